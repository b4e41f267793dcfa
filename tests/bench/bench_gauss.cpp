// Gaussian blur timings: GPU kernel time by CUDA events around one whole gaussGpu call
// (all its launches), input already in device memory; the CPU twin in real time. Bytes
// processed = the RGBA image read once and written once per call, so GB/s compares with
// BM_DeviceCopy (bench_transfer.cpp). sigma is given in tenths of a pixel (Google
// Benchmark's arguments are integers): sigma10 = 50 is sigma = 5 (31 taps).
#include "gpu/filters/gauss/gauss.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <array>
#include <string>

namespace vp::test {
namespace {

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

std::string taps(double sigma) { return std::to_string(2 * gaussRadius(sigma) + 1) + " taps"; }

// One gaussGpu call, the path the policy selects named in the label (a line of cost
// against sigma at 1080p and 4K). Args: w, h, sigma10, border (0 zero, 1 replicate,
// 2 reflect, 3 wrap).
void BM_GaussGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const GaussParams p{double(state.range(2)) / 10, static_cast<BorderMode>(state.range(3))};
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  GaussWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { gaussGpu(in.view(), out.view(), p, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(std::string(gaussPathName(ws.path(p.sigma))) + ", " + taps(p.sigma) +
                 timingTag());
}
BENCHMARK(BM_GaussGpu)
    ->ArgNames({"w", "h", "sigma10", "border"})
    ->ArgsProduct({{1920}, {1080}, {10, 20, 50, 100, 200, 300}, {1}})
    ->ArgsProduct({{3840}, {2160}, {10, 20, 50, 100, 200, 300}, {1}})
    ->Args({1920, 1080, 500, 1})  // the largest sigma: 301 taps
    ->Args({1920, 1080, 50, 0})
    ->Args({1920, 1080, 50, 2})
    ->Args({1920, 1080, 50, 3})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Each path forced where it can run (tensor cores R <= 24, fused R <= 16, strips R <= 2):
// where the policy's switches belong (selectGaussPath, gauss_tiles.h). Args: w, h, sigma10,
// path (0 mma, 1 fused, 2 two-pass, 3 strips).
void BM_GaussGpuPath(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const GaussParams p{double(state.range(2)) / 10, BorderMode::Replicate};
  const GaussPath path = std::array{GaussPath::Mma, GaussPath::Fused, GaussPath::TwoPass,
                                     GaussPath::Strips}[size_t(state.range(3))];
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  GaussWorkspace ws(w, h);
  if (!ws.runs(path, p.sigma)) {
    state.SkipWithError("this path cannot run this sigma on this device");
    return;
  }
  Stream stream;
  timeCudaLoop(state, stream,
               [&](cudaStream_t s) { detail::gaussGpuWithPath(in.view(), out.view(), p, path, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(std::string(gaussPathName(path)) + ", " + taps(p.sigma) + timingTag());
}
BENCHMARK(BM_GaussGpuPath)
    ->ArgNames({"w", "h", "sigma10", "path"})
    ->ArgsProduct({{1920}, {1080}, {10, 20, 40, 53}, {0, 1, 2}})
    ->ArgsProduct({{3840}, {2160}, {10, 20, 40, 53}, {0, 1, 2}})
    ->ArgsProduct({{1920}, {1080}, {60, 80}, {0, 2}})
    ->ArgsProduct({{3840}, {2160}, {60, 80}, {0, 2}})
    ->ArgsProduct({{1920}, {1080}, {3, 5, 10}, {0, 3}})  // strips against the tensor cores at R = 1..3
    ->ArgsProduct({{3840}, {2160}, {3, 5, 10}, {0, 3}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_GaussCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const GaussParams p{double(state.range(2)) / 10, BorderMode::Replicate};
  const HostImage in = makeNatural(w, h, 1);
  HostImage out(w, h);
  GaussCpuScratch scratch(w, h);
  for (auto _ : state) gaussCpu(in.cview(), out.view(), p, scratch);
  setImageBytes(state, w, h);
  state.SetLabel(taps(p.sigma));
}
BENCHMARK(BM_GaussCpu)
    ->ArgNames({"w", "h", "sigma10"})
    ->Args({1920, 1080, 10})
    ->Args({1920, 1080, 50})
    ->Args({1920, 1080, 200})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
