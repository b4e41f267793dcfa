#include "gpu/processor.h"

#include "gpu/cuda/device_info.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

namespace vp {

std::string_view stageName(Stage stage) {
  static constexpr std::string_view kNames[kStageCount] = {"upload", "convert", "download", "present", "encode"};
  const auto i = static_cast<size_t>(stage);
  return i < size_t(kStageCount) ? kNames[i] : "unknown";
}

OutputFrame detail::outputFor(uint64_t ticket, const InputFrame& frame, const ProcessParams& params) {
  OutputFrame out;
  out.ticket = ticket;
  out.ptsUs = frame.ptsUs;
  out.params = params;
  out.width = out.frameWidth = frame.layout.width;
  out.height = out.frameHeight = frame.layout.height;
  return out;
}

void detail::checkParams(const ProcessParams& params) {
  for (const FilterElement& e : params.chain) {
    if (!e.valid()) throw std::invalid_argument("chain element without a filter");
    for (int i = 0; i < e.filter().optionCount; ++i)
      if (!optionAccepts(e.filter().option(i), e.value(i))) throw std::invalid_argument(optionBounds(e.filter().option(i)));
  }
  if (!(params.split >= 0.f && params.split <= 1.f)) throw std::invalid_argument("compare split must be 0..1");
}

bool parseBackend(std::string_view name, Backend& out) {
  if (name == "auto") out = Backend::Auto;
  else if (name == "cuda") out = Backend::Cuda;
  else if (name == "cpu") out = Backend::Cpu;
  else return false;
  return true;
}

std::unique_ptr<Processor> makeProcessor(Backend backend, int streams) {
  switch (backend) {
    case Backend::Cuda: return makeCudaProcessor(streams);
    case Backend::Cpu: return makeCpuProcessor(streams);
    case Backend::Auto:
      if (cudaDeviceCountOrZero() > 0) return makeCudaProcessor(streams);
      spdlog::warn("no CUDA device found: processing on the CPU (slower; --backend cpu silences this)");
      return makeCpuProcessor(streams);
  }
  throw std::invalid_argument("unknown backend");
}

}  // namespace vp
