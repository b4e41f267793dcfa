#include "gpu/cuda/device_info.h"

#include <cuda_runtime_api.h>

namespace vp {

int cudaDeviceCountOrZero() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the error so later checks do not see it
    return 0;
  }
  return n;
}

std::string cudaDeviceName() {
  if (cudaDeviceCountOrZero() == 0) return "none";
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return "unknown";
  }
  return prop.name;
}

}  // namespace vp
