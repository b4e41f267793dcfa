// Picking the CUDA device (--gpu N, --list-gpus) and the CUDA side of hardware
// decoding: the runtime's own context and a stream for the decoder, so FFmpeg's
// nvdec hwaccel works in the context the kernels use (no second context).
#pragma once

#include "gpu/cuda/cuda_resources.h"

#include <string>

namespace vp {

// Makes device `index` current for the calling thread (cudaSetDevice) and starts its
// context with a small per-thread stack (the driver grows it for a kernel that needs
// more), so the context reserves less local memory. Throws std::runtime_error "--gpu N:
// no such CUDA device (M present)" when out of range, CudaError when the device fails.
void selectCudaDevice(int index);

// The calling thread's current device (0 when none was selected).
int currentCudaDevice();

// One line per device, "0: NVIDIA H200, sm_90, 139.8 GiB, PCI 0000:19:00.0", or
// "no CUDA device" when there is none.
std::string listCudaDevices();

// The runtime's primary context of one device and a stream for a hardware decoder.
// The stream is a blocking one, so an event recorded on it also follows work the
// decoder may have put on the legacy default stream.
class DecodeStream {
 public:
  // Selects `device` on the calling thread, initialises the runtime's primary
  // context there and creates the stream. Throws CudaError / std::runtime_error.
  explicit DecodeStream(int device);
  DecodeStream(const DecodeStream&) = delete;
  DecodeStream& operator=(const DecodeStream&) = delete;

  int device() const { return device_; }
  void* context() const { return context_; }  // the runtime's CUcontext on device()
  cudaStream_t stream() const { return stream_; }
  // Selects device() on the calling thread (the decode thread, before any CUDA call).
  void bindThread() const;

 private:
  int device_ = 0;
  void* context_ = nullptr;
  Stream stream_{cudaStreamDefault};
};

}  // namespace vp
