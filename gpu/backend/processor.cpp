#include "gpu/processor.h"

#include "gpu/cuda/device_info.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

namespace vp {

std::string_view modeName(Mode mode) {
  switch (mode) {
    case Mode::Kmeans: return "kmeans";
    case Mode::Blur: return "blur";
    case Mode::None: return "none";
  }
  return "unknown";
}

bool parseMode(std::string_view name, Mode& out) {
  for (Mode m : {Mode::Kmeans, Mode::Blur, Mode::None})
    if (modeName(m) == name) {
      out = m;
      return true;
    }
  return false;
}

std::string_view stageName(Stage stage) {
  static constexpr std::string_view kNames[kStageCount] = {"upload",   "convert", "kmeans", "blur",
                                                           "download", "present", "encode"};
  const auto i = static_cast<size_t>(stage);
  return i < size_t(kStageCount) ? kNames[i] : "unknown";
}

std::string_view borderModeName(BorderMode mode) {
  switch (mode) {
    case BorderMode::Zero: return "zero";
    case BorderMode::Replicate: return "replicate";
    case BorderMode::Reflect: return "reflect";
    case BorderMode::Wrap: return "wrap";
  }
  return "unknown";
}

bool parseBorderMode(std::string_view name, BorderMode& out) {
  for (BorderMode m : {BorderMode::Zero, BorderMode::Replicate, BorderMode::Reflect, BorderMode::Wrap})
    if (borderModeName(m) == name) {
      out = m;
      return true;
    }
  return false;
}

std::string_view kmeansInitName(KmeansInit init) {
  switch (init) {
    case KmeansInit::Uniform: return "uniform";
    case KmeansInit::KmeansPlusPlus: return "kmeans++";
    case KmeansInit::Warm: return "warm";
  }
  return "unknown";
}

bool parseKmeansInit(std::string_view name, KmeansInit& out) {
  for (KmeansInit i : {KmeansInit::Uniform, KmeansInit::KmeansPlusPlus, KmeansInit::Warm})
    if (kmeansInitName(i) == name) {
      out = i;
      return true;
    }
  return false;
}

OutputFrame detail::outputFor(uint64_t ticket, const InputFrame& frame, const ProcessParams& params) {
  OutputFrame out;
  out.ticket = ticket;
  out.ptsUs = frame.ptsUs;
  out.params = params;
  out.width = frame.layout.width;
  out.height = frame.layout.height;
  return out;
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
