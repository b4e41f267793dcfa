#include "gpu/cuda_check.h"
#include "gpu/device_copy.h"

#include <cstdint>
#include <stdexcept>

namespace vp {
namespace {

__global__ void copyWordsKernel(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t words) {
  for (size_t i = threadIdx.x; i < words; i += blockDim.x) dst[i] = src[i];
}

}  // namespace

void copySmallOnDevice(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (bytes % 16 || bytes >= 65536 || reinterpret_cast<uintptr_t>(dst) % 16 || reinterpret_cast<uintptr_t>(src) % 16)
    throw std::invalid_argument("copySmallOnDevice: needs 16-byte aligned pointers and size below 64 KiB");
  copyWordsKernel<<<1, 256, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), bytes / 16);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
