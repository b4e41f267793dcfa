// SLIC timings: GPU time by CUDA events around one call (init, every round, connectivity,
// the mean-colour paint: the whole element), input already in device memory (RGBA8
// pitched); the CPU twin in real time. Bytes processed = the RGBA image read once and
// written once per call, as the other filters count them. Targets (docs/design/slic.md):
// 1080p N=1000 10 iterations <= 500 us, 4K <= 2 ms on the H200.
#include "gpu/filters/slic/slic.h"
#include "support/cuda_bench.h"
#include "support/images.h"

namespace vp::test {
namespace {

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

SlicParams paramsOf(const benchmark::State& state) {
  SlicParams p;
  p.superpixels = int(state.range(2));
  p.iterations = int(state.range(3));
  p.compactness = 10.f;
  return p;
}

// One slicGpu call. Args: w, h, superpixels, iterations, view (0 colour, 2 boundaries).
void BM_SlicGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const SlicParams p = paramsOf(state);
  const SegmentView view = static_cast<SegmentView>(state.range(4));
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  SlicWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { slicGpu(in.view(), out.view(), view, p, ws, s); });
  setImageBytes(state, w, h);
  if (!timingTag().empty()) state.SetLabel(timingTag().substr(1));
}

void slicGpuSizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"w", "h", "n", "iterations", "view"})
      ->Args({1920, 1080, 1000, 10, 0})
      ->Args({3840, 2160, 1000, 10, 0})
      ->Args({1920, 1080, 1000, 0, 0})    // init, one assignment, connectivity, paint: the fixed cost
      ->Args({1920, 1080, 400, 10, 0})    // the filter's default N
      ->Args({1920, 1080, 16384, 10, 0})  // most superpixels
      ->Args({1920, 1080, 1000, 10, 2})   // boundaries view
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_SlicGpu)->Apply(slicGpuSizes);

void BM_SlicCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const SlicParams p = paramsOf(state);
  const HostImage in = makeNatural(w, h, 1);
  HostImage out(w, h);
  SlicCpuScratch scratch(w, h);
  for (auto _ : state) slicCpu(in.cview(), out.view(), SegmentView::Colour, p, scratch);
  setImageBytes(state, w, h);
}
BENCHMARK(BM_SlicCpu)
    ->ArgNames({"w", "h", "n", "iterations"})
    ->Args({1920, 1080, 1000, 10})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
