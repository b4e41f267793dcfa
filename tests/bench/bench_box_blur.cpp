// Box blur timings: GPU kernel time by CUDA events around one whole blur call (all its
// launches), input already in device memory; the CPU twin in real time. Bytes
// processed = the RGBA image read once and written once per call, so GB/s compares
// with BM_DeviceCopy (bench_transfer.cpp).
#include "gpu/filters/blur/box_blur.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <string>

namespace vp::test {
namespace {

BorderMode borderArg(int64_t v) { return static_cast<BorderMode>(v); }

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

// One boxBlurGpu call, the configuration it selects (box_blur_policy.h) named in the label.
// Args: w, h, radius, border (0 zero, 1 replicate, 2 reflect, 3 wrap), passes.
void BM_BoxBlurGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const BlurParams p{int(state.range(2)), int(state.range(4)), borderArg(state.range(3))};
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  BoxBlurWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { boxBlurGpu(in.view(), out.view(), p, ws, s); });
  setImageBytes(state, w, h);
  if (p.radius > 0)
    state.SetLabel(std::string(ws.policy(w, h, p.radius).name) + timingTag());
}
BENCHMARK(BM_BoxBlurGpu)
    ->ArgNames({"w", "h", "r", "border", "passes"})
    ->ArgsProduct({{1920}, {1080}, {1, 5, 15, 50, 100}, {1}, {1}})
    ->ArgsProduct({{3840}, {2160}, {1, 5, 15, 50, 100}, {1}, {1}})
    ->Args({3840, 2160, 128, 1, 1})
    ->Args({1920, 1080, 15, 0, 1})
    ->Args({1920, 1080, 15, 2, 1})
    ->Args({1920, 1080, 15, 3, 1})
    ->Args({1920, 1080, 15, 1, 2})
    ->Args({1920, 1080, 15, 1, 3})
    ->Args({1920, 1080, 128, 2, 3})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// One pass forced (detail::boxBlurGpuWithPass): the strip pass against the fused one at the
// radii both take, the fused pass against the sliding two-pass form on short frames, one
// segment a block against four stacked, the stacked form against slide-wide and whole columns
// on 4K frames, and against one segment a block and whole columns on 1080p and 720p frames
// (where the policy's switches lie). Args: w, h, radius, pass (an index into kForcedPasses).
constexpr BlurPass kForcedPasses[] = {BlurPass::Strips,       BlurPass::Fused,     BlurPass::Slide,
                                      BlurPass::FusedStacked, BlurPass::SlideWide, BlurPass::WholeColumns};

void BM_BoxBlurGpuPass(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const BlurParams p{int(state.range(2)), 1, BorderMode::Replicate};
  const BlurPass forced = kForcedPasses[state.range(3)];
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  BoxBlurWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream,
               [&](cudaStream_t s) { detail::boxBlurGpuWithPass(in.view(), out.view(), p, forced, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(std::string(blurPassName(forced)) + timingTag());
}
BENCHMARK(BM_BoxBlurGpuPass)
    ->ArgNames({"w", "h", "r", "pass"})
    ->ArgsProduct({{1920}, {1080}, {1, 2, 3, 4, 5}, {0, 1}})
    ->ArgsProduct({{3840}, {2160}, {1, 2, 3, 4, 5}, {0, 1}})
    ->ArgsProduct({{1920}, {1080}, {6, 10, 15}, {1, 2}})
    ->ArgsProduct({{1920}, {1080}, {50}, {1}})
    ->ArgsProduct({{3840}, {2160}, {6, 15, 50}, {1, 3}})
    ->ArgsProduct({{3840}, {2160}, {64, 80, 100}, {3, 4}})
    ->ArgsProduct({{3840}, {2160}, {101, 112, 128}, {3, 5}})
    ->ArgsProduct({{1920}, {1080}, {6, 8, 10, 12, 15, 20, 30, 35, 40, 45, 50, 100, 128}, {3}})
    ->ArgsProduct({{1920}, {1080}, {20, 30, 35, 40, 45, 50, 100, 128}, {5}})
    ->ArgsProduct({{1280}, {720}, {6, 10, 15, 20, 30, 40, 50, 100}, {1, 3, 5}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_BoxBlurCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const BlurParams p{int(state.range(2)), 1, BorderMode::Replicate};
  const HostImage in = makeNatural(w, h, 1);
  HostImage out(w, h);
  BoxBlurCpuScratch scratch(w, h);
  for (auto _ : state) boxBlurCpu(in.cview(), out.view(), p, scratch);
  setImageBytes(state, w, h);
}
BENCHMARK(BM_BoxBlurCpu)
    ->ArgNames({"w", "h", "r"})
    ->Args({1920, 1080, 1})
    ->Args({1920, 1080, 15})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
