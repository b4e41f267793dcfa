// Median filter timings: GPU kernel time by CUDA events around one medianGpu call, input
// already in device memory (RGBA8 pitched); the CPU twin in real time. Bytes processed =
// the RGBA image read once and written once per call, as bench_box_blur.cpp counts them.
// The label names the method the radius runs (median_params.h).
#include "gpu/filters/median/median.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <string>

namespace vp::test {
namespace {

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

std::string label(MedianMethod method, const char* variant = "") {
  return std::string(medianMethodName(method)) + variant + timingTag();
}

// One medianGpu call. Args: w, h, radius, border (0 zero, 1 replicate, 2 reflect, 3 wrap).
void BM_MedianGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const MedianParams p{int(state.range(2)), static_cast<BorderMode>(state.range(3))};
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  MedianWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { medianGpu(in.view(), out.view(), p, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(label(ws.method(p.radius)));
}
BENCHMARK(BM_MedianGpu)
    ->ArgNames({"w", "h", "r", "border"})
    ->ArgsProduct({{1920}, {1080}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1}})
    ->ArgsProduct({{3840}, {2160}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1}})
    ->Args({1920, 1080, 2, 0})
    ->Args({1920, 1080, 2, 2})
    ->Args({1920, 1080, 7, 3})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Every method at every radius it supports, and the variants: where the switch points
// come from. Args: w, h, radius, method (median_params.h order), variant (histograms:
// 1 = load-add-store updates; network: 1 = channels interleaved), rows per segment
// (histograms; 0: the launcher's choice).
void BM_MedianGpuMethod(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = state.range(1) ? int(state.range(1)) : w * 9 / 16;  // 0: 16:9
  const MedianParams p{int(state.range(2)), BorderMode::Replicate};
  detail::MedianTuning t{static_cast<MedianMethod>(state.range(3))};
  const bool variant = state.range(4) != 0;
  (t.method == MedianMethod::Network ? t.channelsTogether : t.plainUpdates) = variant;
  t.rowsPerSegment = int(state.range(5));
  if (!medianMethodSupports(t.method, p.radius)) {
    state.SkipWithError("method does not support this radius");
    return;
  }
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  MedianWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream,
               [&](cudaStream_t s) { detail::medianGpuTuned(in.view(), out.view(), p, t, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(label(t.method, !variant ? "" : t.method == MedianMethod::Network ? " together" : " plain"));
}
BENCHMARK(BM_MedianGpuMethod)
    ->ArgNames({"w", "h", "r", "method", "variant", "rows"})
    ->ArgsProduct({{1920, 3840}, {0}, {1, 2, 3}, {0}, {0, 1}, {0}})
    ->ArgsProduct({{1920, 3840}, {0}, {1}, {3}, {0}, {0}})
    ->ArgsProduct({{1920, 3840}, {0}, {2}, {4}, {0}, {0}})
    ->ArgsProduct({{1920}, {0}, {1, 2, 3, 4, 5, 7}, {1}, {0, 1}, {0}})
    ->ArgsProduct({{1920}, {0}, {1, 3, 7, 8, 15}, {2}, {0, 1}, {0}})
    ->ArgsProduct({{3840}, {0}, {3, 4, 7}, {1}, {0}, {0}})
    ->ArgsProduct({{1920}, {0}, {7}, {1}, {0}, {16, 32, 48, 64, 96}})
    ->ArgsProduct({{1920}, {0}, {15}, {2}, {0}, {32, 64, 96, 135}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_MedianCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const MedianParams p{int(state.range(2)), BorderMode::Replicate};
  const HostImage in = makeNatural(w, h, 1);
  HostImage out(w, h);
  MedianCpuScratch scratch(w, h);
  for (auto _ : state) medianCpu(in.cview(), out.view(), p, scratch);
  setImageBytes(state, w, h);
}
BENCHMARK(BM_MedianCpu)
    ->ArgNames({"w", "h", "r"})
    ->Args({1920, 1080, 1})
    ->Args({1920, 1080, 2})
    ->Args({1920, 1080, 7})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
