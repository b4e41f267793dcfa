// The device side of HostGate (support/cuda_bench.h): a one-thread kernel that holds its
// stream until the host opens the gate, so the launches queued behind it are all
// submitted before the GPU reaches the first timing event.
#include "support/cuda_bench.h"

namespace vp::test {
namespace {

__device__ __forceinline__ unsigned long long globalNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// gate[0]: opened by the host (1); gate[1]: set here when the wait gave up after
// `timeoutNs`, so a launch that waits on its own stream cannot hang the benchmark.
__global__ void waitForHostKernel(volatile int* gate, unsigned long long timeoutNs) {
  const unsigned long long t0 = globalNs();
  while (gate[0] == 0) {
    if (globalNs() - t0 > timeoutNs) {
      gate[1] = 1;
      return;
    }
    __nanosleep(500);
  }
}

}  // namespace

void launchHostGate(volatile int* gate, unsigned long long timeoutNs, cudaStream_t stream) {
  waitForHostKernel<<<1, 1, 0, stream>>>(gate, timeoutNs);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp::test
