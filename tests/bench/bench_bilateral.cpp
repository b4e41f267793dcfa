// Bilateral filter timings: GPU kernel time by CUDA events around one bilateralGpu call,
// input already in device memory (RGBA8 pitched), on an idle stream or queued behind a
// host-held gate (VP_BENCH_QUEUED=1), one call or a batch of N back to back per timed
// region (VP_BENCH_BATCH=N), as support/cuda_bench.h times every kernel row; the CPU twin
// in real time.
// Bytes processed = the RGBA image read once and written once per call, as
// bench_median.cpp counts them. S = 3, V = 30, border replicate unless an argument says.
#include "gpu/filters/bilateral/bilateral.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <string>

namespace vp::test {
namespace {

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

std::string label(int columns) { return "cols=" + std::to_string(columns) + timingTag(); }

// One bilateralGpu call on `input` (w x h). Args: w, h, radius.
void timeBilateralGpu(benchmark::State& state, HostImage (*input)(int, int, uint64_t)) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const BilateralParams p{int(state.range(2)), 3.f, 30.f, BorderMode::Replicate};
  const DeviceImage in = upload(input(w, h, 1));
  DeviceImage out(w, h);
  BilateralWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { bilateralGpu(in.view(), out.view(), p, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(label(selectBilateralColumns(p.radius)));
}

HostImage natural(int w, int h, uint64_t seed) { return makeNatural(w, h, seed); }

void BM_BilateralGpu(benchmark::State& state) { timeBilateralGpu(state, natural); }
BENCHMARK(BM_BilateralGpu)
    ->ArgNames({"w", "h", "r"})
    ->ArgsProduct({{1920}, {1080}, {1, 2, 3, 5, 7, 10, 15}})
    ->ArgsProduct({{3840}, {2160}, {1, 2, 3, 5, 7, 10, 15}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The same on uniform random pixels: every tap's colour distance unrelated to its
// neighbours', the worst case for the weight tables' shared-memory gathers (bank
// conflicts: docs/design/bilateral.md).
void BM_BilateralGpuRandom(benchmark::State& state) { timeBilateralGpu(state, makeRandom); }
BENCHMARK(BM_BilateralGpuRandom)
    ->ArgNames({"w", "h", "r"})
    ->Args({1920, 1080, 5})
    ->Args({3840, 2160, 5})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Every columns-per-thread variant (kBilateralColumnChoices), where selectBilateralColumns
// comes from. Args: w, h, radius, columns per thread.
void BM_BilateralGpuColumns(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const BilateralParams p{int(state.range(2)), 3.f, 30.f, BorderMode::Replicate};
  const detail::BilateralTuning tuning{int(state.range(3))};
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  BilateralWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream,
               [&](cudaStream_t s) { detail::bilateralGpuTuned(in.view(), out.view(), p, tuning, ws, s); });
  setImageBytes(state, w, h);
  state.SetLabel(label(tuning.columnsPerThread));
}
BENCHMARK(BM_BilateralGpuColumns)
    ->ArgNames({"w", "h", "r", "cols"})
    ->ArgsProduct({{1920}, {1080}, {1, 2, 3, 5, 7, 10, 11, 12, 13, 14, 15}, {4, 8}})
    ->ArgsProduct({{3840}, {2160}, {5, 15}, {4, 8}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_BilateralCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const BilateralParams p{int(state.range(2)), 3.f, 30.f, BorderMode::Replicate};
  const HostImage in = makeNatural(w, h, 1);
  HostImage out(w, h);
  BilateralCpuScratch scratch(w, h);
  for (auto _ : state) bilateralCpu(in.cview(), out.view(), p, scratch);
  setImageBytes(state, w, h);
}
BENCHMARK(BM_BilateralCpu)
    ->ArgNames({"w", "h", "r"})
    ->Args({320, 180, 2})
    ->Args({320, 180, 5})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
