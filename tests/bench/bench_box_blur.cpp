// Box blur timings: GPU kernel time by CUDA events around one whole blur call (all its
// launches), input already in device memory; the CPU twin in real time. Bytes
// processed = the RGBA image read once and written once per call, so GB/s compares
// with BM_DeviceCopy (bench_transfer.cpp).
#include "gpu/box_blur.h"
#include "support/cuda_bench.h"
#include "support/images.h"

namespace vp::test {
namespace {

BorderMode borderArg(int64_t v) { return static_cast<BorderMode>(v); }

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

// Args: w, h, radius, border (0 zero, 1 replicate, 2 reflect, 3 wrap), passes: the
// benchmark's first five, or `args` when given.
void runGpu(benchmark::State& state, const detail::BoxBlurTuning& tuning, const int64_t* args = nullptr) {
  if (skipWithoutGpu(state)) return;
  auto arg = [&](int i) { return args ? args[i] : state.range(i); };
  const int w = int(arg(0)), h = int(arg(1));
  const BlurParams p{int(arg(2)), int(arg(4)), borderArg(arg(3))};
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  BoxBlurWorkspace ws(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { detail::boxBlurGpuTuned(in.view(), out.view(), p, ws, tuning, s); });
  setImageBytes(state, w, h);
}

void BM_BoxBlurGpu(benchmark::State& state) { runGpu(state, {}); }
BENCHMARK(BM_BoxBlurGpu)
    ->ArgNames({"w", "h", "r", "border", "passes"})
    ->ArgsProduct({{1920}, {1080}, {1, 5, 15, 50, 100}, {1}, {1}})
    ->ArgsProduct({{3840}, {2160}, {1, 5, 15, 50, 100}, {1}, {1}})
    ->Args({1920, 1080, 15, 0, 1})
    ->Args({1920, 1080, 15, 2, 1})
    ->Args({1920, 1080, 15, 3, 1})
    ->Args({1920, 1080, 15, 1, 2})
    ->Args({1920, 1080, 15, 1, 3})
    ->Args({1920, 1080, 128, 2, 3})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Launch variants, to see what each choice is worth (notes/box_blur.md). Extra args:
// column version, row version, pdl, stages (1 column pass only, 2 row pass only, 3 both),
// row threads (0: by width), rows per column-pass block (v2) or thread (v3); 0: by size and radius.
void BM_BoxBlurGpuVariant(benchmark::State& state) {
  detail::BoxBlurTuning t;
  t.columnVersion = int(state.range(5));
  t.rowVersion = int(state.range(6));
  t.pdl = state.range(7) != 0;
  t.stages = int(state.range(8));
  t.rowThreads = int(state.range(9));
  t.bandRows = t.slideRows = int(state.range(10));
  runGpu(state, t);
}
BENCHMARK(BM_BoxBlurGpuVariant)
    ->ArgNames({"w", "h", "r", "border", "passes", "col", "row", "pdl", "stages", "rowthreads", "rows"})
    ->ArgsProduct({{1920}, {1080}, {15, 100}, {1}, {1}, {1, 2}, {1, 2}, {1}, {3}, {0}, {0}})
    ->ArgsProduct({{3840}, {2160}, {15, 100}, {1}, {1}, {1, 2}, {1, 2}, {1}, {3}, {0}, {0}})
    ->ArgsProduct({{1920}, {1080}, {15, 100}, {1}, {1}, {2}, {2}, {1}, {1, 2}, {0}, {0}})
    ->ArgsProduct({{3840}, {2160}, {15, 100}, {1}, {1}, {2}, {2}, {1}, {1, 2}, {0}, {0}})
    ->ArgsProduct({{1920}, {1080}, {15}, {1}, {1}, {2}, {2}, {0}, {3}, {0}, {0}})
    ->ArgsProduct({{1920}, {1080}, {15}, {1}, {1}, {2}, {2}, {1}, {3}, {256, 1024}, {0}})
    ->ArgsProduct({{3840}, {2160}, {15}, {1}, {1}, {2}, {2}, {1}, {3}, {512}, {0}})
    ->ArgsProduct({{3840}, {2160}, {100}, {1}, {1}, {3}, {2}, {1}, {2, 3}, {256, 512, 1024}, {0}})  // row block size
    ->ArgsProduct({{1920}, {1080}, {15}, {1}, {1}, {2}, {2}, {1}, {3}, {0}, {32, 128}})
    ->ArgsProduct({{3840}, {2160}, {100}, {1}, {1}, {2}, {2}, {1}, {3}, {0}, {64, 128}})
    // Sliding (v3) against whole-column (v1) column pass, alone (stages 1) and with the row pass (3).
    ->ArgsProduct({{1920}, {1080}, {1, 15, 50, 100}, {1}, {1}, {1, 3}, {2}, {1}, {1, 3}, {0}, {0}})
    ->ArgsProduct({{3840}, {2160}, {1, 15, 50, 100}, {1}, {1}, {1, 3}, {2}, {1}, {1, 3}, {0}, {0}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The sliding column pass (v3) of w x h (args 0, 1) at r (arg 2), replicate, one pass: rows
// per thread (arg 3; 0: by size and radius), rows of loads issued together in the slide
// (arg 4) and in the first window, which stages run.
void runSlide(benchmark::State& state, int firstBatch, int stages) {
  detail::BoxBlurTuning t;
  t.columnVersion = 3;
  t.slideRows = int(state.range(3));
  t.slideBatch = int(state.range(4));
  t.slideFirstBatch = firstBatch;
  t.stages = stages;
  const int64_t args[] = {state.range(0), state.range(1), state.range(2), 1, 1};
  runGpu(state, t, args);
}

// Sliding column pass (v3) alone or with the row pass: rows per thread (0: by size and
// radius) and rows of loads issued together, the first window as the slide
// (BM_BoxBlurGpuSlideFirst varies it). Args: w, h, r, rows, batch, stages.
void BM_BoxBlurGpuSlide(benchmark::State& state) { runSlide(state, int(state.range(4)), int(state.range(5))); }
BENCHMARK(BM_BoxBlurGpuSlide)
    ->ArgNames({"w", "h", "r", "rows", "batch", "stages"})
    ->ArgsProduct({{1920}, {1080}, {1, 5, 15, 50, 100}, {0}, {4, 8}, {1, 3}})
    ->ArgsProduct({{3840}, {2160}, {1, 5, 15, 50, 100}, {0}, {4, 8}, {1, 3}})
    ->ArgsProduct({{3840}, {2160}, {64, 80, 128}, {0}, {8}, {3}})
    ->ArgsProduct({{1920}, {1080}, {15, 100}, {16, 32, 64}, {4, 8}, {1}})
    ->ArgsProduct({{3840}, {2160}, {15, 100}, {16, 32, 64}, {4, 8}, {1}})
    ->ArgsProduct({{3840}, {2160}, {100}, {24, 32, 40, 50, 64, 80}, {8}, {3}})  // 4K r = 100 with the row pass
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Sliding column pass (v3) with its first window's loads issued `first` rows at a time
// (16, 32: plain rows inside the image; equal to `batch`: folded rows, the earlier first
// window), alone (stages 1) or with the row pass (3). Args: w, h, r, rows, batch, first, stages.
void BM_BoxBlurGpuSlideFirst(benchmark::State& state) {
  runSlide(state, int(state.range(5)), int(state.range(6)));
}
BENCHMARK(BM_BoxBlurGpuSlideFirst)
    ->ArgNames({"w", "h", "r", "rows", "batch", "first", "stages"})
    // 4K r = 100, the default's shape (rows 0: 100 rows) against longer and shorter segments;
    // first 8 is the launch BM_BoxBlurGpu made before the wide first window, first 16 the one it makes now.
    ->ArgsProduct({{3840}, {2160}, {100}, {0, 32, 50, 64, 150, 200}, {8}, {8, 16, 32}, {3}})
    ->ArgsProduct({{3840}, {2160}, {100}, {0}, {8}, {8, 16, 32}, {1}})
    ->ArgsProduct({{3840}, {2160}, {50, 64, 80, 128}, {0}, {8}, {8, 16, 32}, {3}})
    ->ArgsProduct({{3840}, {2160}, {15}, {0}, {4}, {4, 16, 32}, {3}})
    ->ArgsProduct({{1920}, {1080}, {15}, {0}, {4}, {4, 16, 32}, {3}})
    ->ArgsProduct({{1920}, {1080}, {50, 100}, {0, 32}, {8}, {8, 16, 32}, {3}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Row pass version 2's outputs unrolled (BoxBlurTuning::rowUnrolled) or in a strided loop,
// alone (stages 2) or after the default column pass (3), replicate, one pass, two-pass
// path. Args: w, h, r, unrolled, stages.
void BM_BoxBlurGpuRowUnrolled(benchmark::State& state) {
  detail::BoxBlurTuning t;
  t.fused = 0;
  t.rowUnrolled = state.range(3) != 0;
  t.stages = int(state.range(4));
  const int64_t args[] = {state.range(0), state.range(1), state.range(2), 1, 1};
  runGpu(state, t, args);
}
BENCHMARK(BM_BoxBlurGpuRowUnrolled)
    ->ArgNames({"w", "h", "r", "unrolled", "stages"})
    ->ArgsProduct({{1920}, {1080}, {1, 15, 100}, {0, 1}, {2, 3}})
    ->ArgsProduct({{3840}, {2160}, {1, 15, 100}, {0, 1}, {2, 3}})
    ->ArgsProduct({{3840}, {2160}, {20, 25, 32, 33, 40, 50}, {1}, {3}})  // two-pass default, against fused
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Fused pass (one kernel per pass for both axes), replicate, one pass; rows: output rows
// per block, 0 by size and radius. Args: w, h, r, rows. Compare with BM_BoxBlurGpu (the
// column + row passes) at the same w, h, r.
void BM_BoxBlurGpuFused(benchmark::State& state) {
  detail::BoxBlurTuning t;
  t.fused = true;
  t.fusedRows = int(state.range(3));
  const int64_t args[] = {state.range(0), state.range(1), state.range(2), 1, 1};  // replicate, one pass
  runGpu(state, t, args);
}
BENCHMARK(BM_BoxBlurGpuFused)
    ->ArgNames({"w", "h", "r", "rows"})
    ->ArgsProduct({{1920}, {1080}, {1, 5, 15, 50, 100}, {0}})
    ->ArgsProduct({{3840}, {2160}, {1, 5, 15, 50, 100}, {0, 16, 32, 64}})
    // Large r: fewer, longer segments (rows = r: the first window ~1/7 of a segment's work)
    // against the automatic choice (~4 blocks per SM, at least r/4 rows).
    ->ArgsProduct({{1920}, {1080}, {50, 100}, {8, 32}})
    ->Args({1920, 1080, 50, 50})
    ->Args({1920, 1080, 100, 100})
    ->Args({3840, 2160, 50, 50})
    ->Args({3840, 2160, 100, 100})
    ->Args({3840, 2160, 128, 0})
    // Where fused stops winning on tall frames: against BM_BoxBlurGpuRowUnrolled's two-pass rows.
    ->ArgsProduct({{3840}, {2160}, {20, 25, 32, 33, 40}, {0}})
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
