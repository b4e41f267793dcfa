// Move-only RAII owners, one per CUDA resource type: linear device memory,
// pitched device memory, pinned host memory, streams and events.
//
// Constructors throw vp::CudaError on failure; destructors never throw (a failed
// free during unwinding is ignored: there is nothing better to do with it).
// A default-constructed owner holds nothing and is safe to destroy or move.
#pragma once

#include "gpu/cuda/cuda_check.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

namespace vp {

namespace detail {

// One owner for linear allocations; Memory says how to get and free them.
template <class Memory>
class LinearBuffer {
 public:
  LinearBuffer() = default;
  explicit LinearBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes) VP_CUDA_CHECK(Memory::allocate(&ptr_, bytes));
  }
  ~LinearBuffer() { if (ptr_) Memory::release(ptr_); }
  LinearBuffer(LinearBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  LinearBuffer& operator=(LinearBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  LinearBuffer(const LinearBuffer&) = delete;
  LinearBuffer& operator=(const LinearBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

struct DeviceMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
  static void release(void* p) { cudaFree(p); }
};

// Page-locked: the only host memory async copies overlap with.
struct PinnedMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaHostAlloc(p, bytes, cudaHostAllocDefault); }
  static void release(void* p) { cudaFreeHost(p); }
};

}  // namespace detail

// Linear device memory (cudaMalloc).
using DeviceBuffer = detail::LinearBuffer<detail::DeviceMemory>;
// Page-locked host memory (cudaHostAlloc).
using PinnedBuffer = detail::LinearBuffer<detail::PinnedMemory>;

// Pitched 2-D device memory (cudaMallocPitch): rows start at aligned addresses. Zero-filled,
// row padding included, and ready when the constructor returns: a kernel may read a whole
// aligned 16-byte group at a row's end and mask what lies past the width (the padding is
// inside the allocation), and compute-sanitizer's initcheck then sees defined bytes.
class DevicePitchedBuffer {
 public:
  DevicePitchedBuffer() = default;
  DevicePitchedBuffer(size_t widthBytes, size_t rows) : widthBytes_(widthBytes), rows_(rows) {
    if (!widthBytes || !rows) return;
    VP_CUDA_CHECK(cudaMallocPitch(&ptr_, &pitch_, widthBytes, rows));
    // The legacy stream, waited for: the buffer's users run on non-blocking streams, which
    // do not order behind it. Allocation is set-up work, so the wait costs no frame.
    VP_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, pitch_ * rows, cudaStreamLegacy));
    VP_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  ~DevicePitchedBuffer() { if (ptr_) cudaFree(ptr_); }
  DevicePitchedBuffer(DevicePitchedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), pitch_(std::exchange(o.pitch_, 0)),
        widthBytes_(std::exchange(o.widthBytes_, 0)), rows_(std::exchange(o.rows_, 0)) {}
  DevicePitchedBuffer& operator=(DevicePitchedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(pitch_, o.pitch_);
    std::swap(widthBytes_, o.widthBytes_);
    std::swap(rows_, o.rows_);
    return *this;
  }
  DevicePitchedBuffer(const DevicePitchedBuffer&) = delete;
  DevicePitchedBuffer& operator=(const DevicePitchedBuffer&) = delete;

  void* get() const { return ptr_; }
  size_t pitch() const { return pitch_; }  // bytes
  size_t widthBytes() const { return widthBytes_; }
  size_t rows() const { return rows_; }
  // A typed view of the first width x height elements.
  template <class T> ImageView<T> view(int width, int height) const {
    return {static_cast<T*>(ptr_), pitch_, width, height};
  }

 private:
  void* ptr_ = nullptr;
  size_t pitch_ = 0;
  size_t widthBytes_ = 0;
  size_t rows_ = 0;
};

// A pitched RGBA8 image in device memory.
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(int width, int height)
      : buf_(size_t(width) * sizeof(uchar4), size_t(height)), width_(width), height_(height) {}
  RgbaView view() const { return buf_.view<uchar4>(width_, height_); }
  int width() const { return width_; }
  int height() const { return height_; }
  size_t pitch() const { return buf_.pitch(); }

 private:
  DevicePitchedBuffer buf_;
  int width_ = 0;
  int height_ = 0;
};

// A CUDA stream; non-blocking by default (does not serialise with the legacy default
// stream), cudaStreamDefault for one that does.
class Stream {
 public:
  explicit Stream(unsigned flags = cudaStreamNonBlocking) { VP_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, flags)); }
  ~Stream() { if (s_) cudaStreamDestroy(s_); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void synchronize() const { VP_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// A CUDA event; timing enabled by default (pass cudaEventDisableTiming for pure sync events).
class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) { VP_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
  ~Event() { if (e_) cudaEventDestroy(e_); }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return e_; }
  operator cudaEvent_t() const { return e_; }
  void record(cudaStream_t s) const { VP_CUDA_CHECK(cudaEventRecord(e_, s)); }
  // True once all work captured by the last record() has completed; never blocks.
  bool ready() const {
    cudaError_t r = cudaEventQuery(e_);
    if (r == cudaErrorNotReady) {
      (void)cudaGetLastError();  // not-ready is not sticky, but clear it for VP_CUDA_CHECK_LAUNCH users
      return false;
    }
    VP_CUDA_CHECK(r);
    return true;
  }
  void synchronize() const { VP_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Milliseconds between two completed events.
  static float elapsedMs(const Event& start, const Event& stop) {
    float ms = 0.f;
    VP_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, stop.e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace vp
