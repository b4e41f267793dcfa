// Kernel launch helpers: programmatic dependent launch (sm_90) and a checked
// cudaLaunchKernelEx. Used by the box blur's and the Gaussian's kernels.
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
