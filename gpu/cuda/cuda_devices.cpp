#include "gpu/cuda/cuda_devices.h"

#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/device_info.h"

#include <cuda.h>

#include <cstdio>
#include <stdexcept>

namespace vp {

namespace {
// The per-thread stack the context starts with. The driver reserves local memory at this
// size for every thread the device can hold (the default 1 KB is 277 MB on 132 SMs of
// 2048 threads). vidproc's kernels need at most 336 bytes (auto-K; k-means++ 192, the
// rest 16 or none: ptxas, sm_90), and the driver raises the limit by itself for a kernel
// that needs more (cuCtxSetLimit: once, at that launch, which waits for the work before it).
constexpr size_t kStartStackBytes = 256;
}  // namespace

void selectCudaDevice(int index) {
  const int n = cudaDeviceCountOrZero();
  if (index < 0 || index >= n)
    throw std::runtime_error("--gpu " + std::to_string(index) + ": no such CUDA device (" + std::to_string(n) +
                             " present; --list-gpus names them)");
  VP_CUDA_CHECK(cudaSetDevice(index));
  VP_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, kStartStackBytes));
}

int currentCudaDevice() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return d;
}

std::string listCudaDevices() {
  const int n = cudaDeviceCountOrZero();
  if (n == 0) return "no CUDA device\n";
  std::string out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      (void)cudaGetLastError();
      out += std::to_string(i) + ": (properties unavailable)\n";
      continue;
    }
    char line[512];
    std::snprintf(line, sizeof line, "%d: %s, sm_%d%d, %.1f GiB, PCI %04x:%02x:%02x.0\n", i, p.name, p.major,
                  p.minor, double(p.totalGlobalMem) / double(1ull << 30), p.pciDomainID, p.pciBusID, p.pciDeviceID);
    out += line;
  }
  return out;
}

DecodeStream::DecodeStream(int device) : device_((selectCudaDevice(device), device)) {
  VP_CUDA_CHECK(cudaFree(nullptr));  // creates (or retains) the runtime's primary context, now current
  // cuCtxGetCurrent through the runtime's driver entry point: no link-time libcuda
  // dependency, so the binary still starts on machines without a driver.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  VP_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found));
  if (!fn || found != cudaDriverEntryPointSuccess) throw std::runtime_error("cuCtxGetCurrent is not available");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    throw std::runtime_error("no current CUDA context on device " + std::to_string(device));
  context_ = ctx;
}

void DecodeStream::bindThread() const { VP_CUDA_CHECK(cudaSetDevice(device_)); }

}  // namespace vp
