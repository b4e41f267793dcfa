// Kernel launch helpers: programmatic dependent launch (sm_90) and a checked
// cudaLaunchKernelEx. The filters' kernels begin with waitForPriorGrid() and
// releaseNextGrid() and are launched with the attribute where the device has it, so a
// kernel is scheduled while the one before it on the stream (the previous chain element or
// the previous frame's) drains, and touches no memory before that one has finished.
#pragma once

#include "gpu/cuda/cuda_check.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

namespace vp {

// Programmatic dependent launch (sm_90): a kernel launched with the attribute is scheduled
// while the previous one drains and waits here until that one has finished; it releases
// its own dependent at once (its dependent waits in turn).
__device__ __forceinline__ void waitForPriorGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");  // no-op without a programmatic dependency
#endif
}
__device__ __forceinline__ void releaseNextGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");  // the next grid may be scheduled now
#endif
}

// Whether the current device has programmatic dependent launch (sm_90 on). The runtime
// answers attribute queries from its cache: cheap enough for every launch.
inline bool pdlAvailable() {
  int device = 0, major = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

// cudaLaunchKernelEx, with the programmatic-serialization attribute when `pdl`; checks the launch.
template <class... Params, class... Args>
void launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream, bool pdl,
            Args&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl ? 1 : 0;
  VP_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
