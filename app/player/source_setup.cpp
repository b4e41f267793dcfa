#include "app/player/source_setup.h"

#include "app/options.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/cuda/device_info.h"

#include <map>
#include <memory>
#include <mutex>

namespace vp {

HostAllocator frameAllocator(const Processor& processor) {
  if (processor.backendName() != "cuda") return HostAllocator::plain();
  // PinnedBuffer stays the one owner of pinned memory; the allocator keeps them by address.
  struct Pool {
    std::mutex mutex;  // guards buffers (decode thread allocates, main thread may free)
    std::map<void*, PinnedBuffer> buffers;
  };
  auto pool = std::make_shared<Pool>();
  HostAllocator a;
  a.allocate = [pool](size_t bytes) {
    PinnedBuffer b(bytes);
    void* p = b.get();
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->buffers.emplace(p, std::move(b));
    return p;
  };
  a.release = [pool](void* p) {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->buffers.erase(p);
  };
  return a;
}

SourceOptions sourceOptionsFrom(const Options& o) {
  SourceOptions s = o.input.empty() && o.format.empty() ? defaultSourceOptions() : SourceOptions{};
  if (!o.input.empty()) s.url = o.input;
  if (!o.format.empty()) s.format = o.format;
  if (!o.videoSize.empty()) s.deviceOptions["video_size"] = o.videoSize;
  if (!o.framerate.empty()) s.deviceOptions["framerate"] = o.framerate;
  if (!o.inputPixfmt.empty()) s.deviceOptions["input_format"] = o.inputPixfmt;
  s.loop = o.loop;
  s.reconnect = o.reconnect;
  s.autorotate = o.autorotate;
  // nvdec frames stay on the GPU: only the cuda backend reads them (auto = cuda when a device exists).
  s.hwdec = o.backend == Backend::Cpu || o.hwdec == "no" || (o.hwdec == "auto" && cudaDeviceCountOrZero() == 0)
                ? HwDecodeMode::No
                : (o.hwdec == "nvdec" ? HwDecodeMode::Nvdec : HwDecodeMode::Auto);
  s.hwdecCodecs = o.hwdecCodecs;
  s.gpu = o.gpu;
  s.latency = o.latency;
  return s;
}

std::string inputDisplayName(const Options& o) {
  return o.input.empty() ? std::string("built-in pattern (lavfi)") : o.input;
}

}  // namespace vp
