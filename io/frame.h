// One decoded frame in its native layout (see gpu/color/pixel_format.h): in host
// memory, or in device memory of its own where a hardware decoder copied it (a
// DeviceSurface).
#pragma once

#include "gpu/color/pixel_format.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/color/device_surface.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace vp {

// The wall time frames are stamped with: steady_clock in microseconds (the players' clock).
inline int64_t steadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Host memory for frames. The pipeline supplies pinned memory (cudaHostAlloc) so
// uploads are asynchronous; tests and the CPU backend may use plain memory.
struct HostAllocator {
  std::function<void*(size_t bytes)> allocate;
  std::function<void(void*)> release;
  static HostAllocator plain();  // new[] / delete[]
};

struct FrameInfo {
  FrameLayout layout;         // format, size and plane offsets inside `data`
  ColorSpace color;           // matrix and range from the stream
  int64_t ptsUs = 0;          // presentation time, microseconds from stream start
  int64_t durationUs = 0;     // nominal frame duration, microseconds (0 if unknown)
  int64_t index = 0;          // decode order index, from 0
  uint32_t serial = 0;        // bumped by seeks: frames of an older serial are stale
  // When the demuxer returned the frame's packet, and when the decoder wrote the frame
  // into the queue (steadyMicros; 0 unknown): the start of the frame's latency.
  int64_t arrivalUs = 0;
  int64_t decodedUs = 0;
  DeviceSurface device;       // present(): the pixels are this device surface (nvdec), not data()
  bool endOfStream = false;   // a marker entry: no pixels, the source is finished
};

// A reusable frame buffer. Grows (reallocates) only when a larger layout arrives,
// i.e. on a resolution change, never per frame.
class HostFrame {
 public:
  explicit HostFrame(HostAllocator alloc) : alloc_(std::move(alloc)) {}
  ~HostFrame() { if (data_) alloc_.release(data_); }
  HostFrame(const HostFrame&) = delete;
  HostFrame& operator=(const HostFrame&) = delete;

  // Makes room for `bytes`; keeps the current buffer when it is large enough.
  void reserve(size_t bytes) {
    if (bytes <= capacity_) return;
    if (data_) alloc_.release(data_);
    data_ = static_cast<uint8_t*>(alloc_.allocate(bytes));
    capacity_ = bytes;
  }
  // Device memory for a hardware decoder's picture: the decoder copies each surface
  // here and hands the surface back at once, so the frames a consumer holds keep no
  // decoder surfaces. Grows only (allocated on the decoder's device at first use).
  DeviceBuffer& deviceCopy(size_t bytes) {
    if (deviceCopy_.bytes() < bytes) deviceCopy_ = DeviceBuffer(bytes);
    return deviceCopy_;
  }
  // The event recorded after the decoder's writes to deviceCopy(); created on first use
  // (on the decoder's device), reused for every later picture.
  Event& readyEvent() {
    if (!ready_) ready_ = std::make_unique<Event>(cudaEventDisableTiming);
    return *ready_;
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t capacity() const { return capacity_; }

  FrameInfo info;

 private:
  HostAllocator alloc_;
  DeviceBuffer deviceCopy_;
  std::unique_ptr<Event> ready_;
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace vp
