// The physical floors the kernels are measured against: pinned host<->device copies
// and a device-to-device copy (bytes read + written) on the GPU at hand.
#include "support/cuda_bench.h"

namespace vp::test {
namespace {

void BM_DeviceCopy(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const size_t bytes = size_t(state.range(0)) << 20;
  DeviceBuffer a(bytes), b(bytes);
  VP_CUDA_CHECK(cudaMemset(a.get(), 1, bytes));
  Stream s;
  timeCudaLoop(state, s, [&](cudaStream_t st) {
    VP_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, st));
  });
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(2 * bytes));  // read + write
}
BENCHMARK(BM_DeviceCopy)->Arg(8)->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_PinnedUpload(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  // A frame of `bpp` bytes per pixel: 4 = RGBA, 3 = the pipeline's RGB24 download.
  const size_t bytes = size_t(state.range(0)) * size_t(state.range(1)) * size_t(state.range(2));
  PinnedBuffer h(bytes);
  DeviceBuffer d(bytes);
  std::memset(h.get(), 7, bytes);
  Stream s;
  const bool up = state.range(3) != 0;
  timeCudaLoop(state, s, [&](cudaStream_t st) {
    if (up)
      VP_CUDA_CHECK(cudaMemcpyAsync(d.get(), h.get(), bytes, cudaMemcpyHostToDevice, st));
    else
      VP_CUDA_CHECK(cudaMemcpyAsync(h.get(), d.get(), bytes, cudaMemcpyDeviceToHost, st));
  });
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK(BM_PinnedUpload)
    ->ArgNames({"w", "h", "bpp", "h2d"})
    ->ArgsProduct({{1920}, {1080}, {3, 4}, {1, 0}})
    ->ArgsProduct({{3840}, {2160}, {3, 4}, {1, 0}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vp::test
