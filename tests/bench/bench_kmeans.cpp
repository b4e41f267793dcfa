// K-means benchmarks: kernel time by CUDA events (median over repetitions), input in
// device memory, natural-looking frames. Counters: px/s = frame pixels per second,
// px_it/s = pixel-iterations per second (the assignment throughput), iters = Lloyd
// iterations per frame.
#include "gpu/kmeans.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <map>
#include <tuple>
#include <vector>

namespace vp::test {
namespace {

const HostImage& natural(int w, int h, float phase = 0.f) {
  static std::map<std::tuple<int, int, float>, HostImage> cache;
  auto key = std::make_tuple(w, h, phase);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, makeNatural(w, h, 7, phase)).first;
  return it->second;
}

void setRates(benchmark::State& st, double pixels, double iterations) {
  st.counters["px/s"] = benchmark::Counter(pixels * double(st.iterations()), benchmark::Counter::kIsRate);
  st.counters["px_it/s"] =
      benchmark::Counter(pixels * iterations * double(st.iterations()), benchmark::Counter::kIsRate);
}

// Kernel time of one natural w x h frame by CUDA events, repeated.
void timeKmeans(benchmark::State& st, int w, int h, const KmeansParams& p, KmeansWorkspace& ws) {
  DeviceImage in = upload(natural(w, h)), out(w, h);
  DeviceBuffer labels(size_t(w) * h), state(sizeof(KmeansState));
  Stream s;
  timeCudaLoop(st, s, [&](cudaStream_t stream) {
    kmeansGpu(in.view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), p, ws, stream);
  });
  setRates(st, double(w) * h, p.maxIterations);
}

// Args: width, height, k, maxIterations, blocksPerSm (0: default), fullGrid, init,
// treeArgmin, blockThreads (0: the default; variant "wide" when > 256), sumSlots (0: the default;
// variant "spread" when > 1), quadsPerStep (variant "pairs" when 2). epsilon = 0: every frame runs exactly
// maxIterations.
void BM_KmeansGpu(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = int(st.range(0)), h = int(st.range(1));
  KmeansParams p;
  p.k = int(st.range(2));
  p.maxIterations = int(st.range(3));
  p.epsilon = 0.f;
  p.init = KmeansInit(st.range(6));
  KmeansWorkspace ws;
  if (st.range(4) > 0) ws.tuning.blocksPerSm = int(st.range(4));
  ws.tuning.fullGrid = st.range(5) != 0;
  ws.tuning.treeArgmin = st.range(7) != 0;
  ws.tuning.blockThreads = int(st.range(8));
  ws.tuning.sumSlots = int(st.range(9));
  ws.tuning.quadsPerStep = int(st.range(10));
  timeKmeans(st, w, h, p, ws);
}
BENCHMARK(BM_KmeansGpu)
    ->ArgNames({"w", "h", "k", "it", "bps", "full", "init", "tree", "thr", "slots", "q"})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 0, 0, 1})    // the 1080p target, default shape (768 threads, 4 copies)
    ->Args({1920, 1080, 4, 20, 0, 0, 0, 1, 0, 0, 1})    // default shape at k 4 and 16
    ->Args({1920, 1080, 16, 20, 0, 0, 0, 1, 0, 0, 1})
    ->Args({3840, 2160, 4, 20, 0, 0, 0, 1, 0, 0, 1})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 8, 20, 3, 0, 0, 1, 256, 1, 1})  // launch shapes and argmin variants
    ->Args({1920, 1080, 8, 20, 1, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 8, 20, 2, 0, 0, 0, 256, 1, 1})
    ->Args({1920, 1080, 8, 20, 3, 0, 0, 0, 256, 1, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 0, 0, 1})    // the 4K target, default shape
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 256, 1, 1})
    ->Args({3840, 2160, 8, 20, 3, 0, 0, 1, 256, 1, 1})
    ->Args({3840, 2160, 8, 20, 2, 0, 0, 0, 256, 1, 1})
    ->Args({1920, 1080, 4, 20, 0, 0, 0, 1, 256, 1, 1})  // k sweep
    ->Args({1920, 1080, 4, 20, 3, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 16, 20, 0, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 16, 20, 3, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 32, 20, 0, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 32, 20, 3, 0, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 32, 20, 2, 0, 0, 0, 256, 1, 1})
    ->Args({1920, 1080, 8, 0, 0, 0, 0, 1, 256, 1, 1})  // init + final pass only: per-iteration cost by difference
    ->Args({1920, 1080, 8, 1, 0, 0, 0, 1, 256, 1, 1})
    ->Args({3840, 2160, 8, 0, 0, 0, 0, 1, 256, 1, 1})
    ->Args({64, 64, 8, 0, 0, 1, 0, 1, 256, 1, 1})  // a full grid on a tiny image: barrier and launch cost
    ->Args({64, 64, 8, 20, 0, 1, 0, 1, 256, 1, 1})
    ->Args({64, 64, 8, 20, 1, 1, 0, 1, 256, 1, 1})
    ->Args({64, 64, 8, 20, 3, 1, 0, 1, 256, 1, 1})
    ->Args({1920, 1080, 8, 0, 0, 0, 1, 1, 256, 1, 1})  // k-means++ seeding cost (k 8 and 32)
    ->Args({1920, 1080, 32, 0, 0, 0, 1, 1, 256, 1, 1})
    // Variants (run 3): "wide" = one block of 512 / 768 / 1024 threads per SM; "spread" = the
    // sum atomics spread over 8 (or 4) copies; and both together. 1080p and 4K, k 8, 20 it,
    // epsilon 0.
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 512, 1, 1})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 768, 1, 1})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 1024, 1, 1})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 256, 8, 1})
    ->Args({1920, 1080, 8, 20, 3, 0, 0, 1, 256, 8, 1})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 768, 8, 1})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 1024, 4, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 512, 1, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 768, 1, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 1024, 1, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 256, 8, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 768, 8, 1})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 1024, 4, 1})
    ->Args({1920, 1080, 8, 0, 0, 0, 0, 1, 768, 1, 1})  // the variants' fixed and per-iteration parts
    ->Args({1920, 1080, 8, 0, 0, 0, 0, 1, 1024, 1, 1})
    ->Args({64, 64, 8, 20, 0, 1, 0, 1, 512, 1, 1})
    ->Args({64, 64, 8, 20, 0, 1, 0, 1, 1024, 1, 1})
    ->Args({64, 64, 8, 20, 0, 1, 0, 1, 256, 8, 1})
    ->Args({1920, 1080, 32, 20, 0, 0, 0, 1, 768, 1, 1})  // k 32 wide (1024 runs k > 8 with 768)
    // Variant "pairs" (two quads per step), alone and with the others.
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 256, 1, 2})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 512, 1, 2})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 768, 1, 2})
    ->Args({1920, 1080, 8, 20, 0, 0, 0, 1, 512, 8, 2})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 256, 1, 2})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 512, 1, 2})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 768, 1, 2})
    ->Args({3840, 2160, 8, 20, 0, 0, 0, 1, 512, 8, 2})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// 20 iterations, epsilon 0, of a natural frame of args 0 x 1 with k = arg 2, under `tuning`.
void timeTuned(benchmark::State& st, const KmeansTuning& tuning) {
  if (skipWithoutGpu(st)) return;
  KmeansParams p;
  p.k = int(st.range(2));
  p.epsilon = 0.f;
  KmeansWorkspace ws;
  ws.tuning = tuning;
  timeKmeans(st, int(st.range(0)), int(st.range(1)), p, ws);
}

// Per-tile candidate centres (KmeansTuning::tileCandidates) against the plain pass.
// Args: width, height, k, tileCandidates, blockThreads (0: default).
void BM_KmeansCandidates(benchmark::State& st) {
  KmeansTuning t;
  t.tileCandidates = st.range(3) != 0;
  t.blockThreads = int(st.range(4));
  timeTuned(st, t);
}
BENCHMARK(BM_KmeansCandidates)
    ->ArgNames({"w", "h", "k", "cand", "thr"})
    ->ArgsProduct({{1920}, {1080}, {8}, {0, 1}, {0, 256, 512}})
    ->ArgsProduct({{3840}, {2160}, {8}, {0, 1}, {0, 256, 512}})
    ->ArgsProduct({{1920}, {1080}, {4, 16, 32}, {0, 1}, {0}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The pixel cache (KmeansTuning::pixelCacheQuads: -1 as many quads as fit, 0 off) against
// reading every quad from the image each iteration.
// Args: width, height, k, pixelCacheQuads, blockThreads (0: default), tileCandidates.
void BM_KmeansCache(benchmark::State& st) {
  KmeansTuning t;
  t.pixelCacheQuads = int(st.range(3));
  t.blockThreads = int(st.range(4));
  t.tileCandidates = st.range(5) != 0;
  timeTuned(st, t);
}
BENCHMARK(BM_KmeansCache)
    ->ArgNames({"w", "h", "k", "cache", "thr", "cand"})
    ->ArgsProduct({{1920}, {1080}, {8}, {-1, 0}, {0, 256, 512}, {1}})
    ->ArgsProduct({{3840}, {2160}, {8}, {-1, 0}, {0, 512, 768}, {1}})
    ->ArgsProduct({{1920}, {1080}, {4, 16, 32}, {-1, 0}, {0}, {1}})
    ->ArgsProduct({{1920}, {1080}, {8}, {-1, 0}, {0}, {0}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Interleaved tiles (KmeansTuning::interleaveTiles) against contiguous block ranges, with and
// without the pixel cache and with copies of the sums. Args: width, height, k, interleaveTiles,
// pixelCacheQuads, blockThreads (0: default), tileCandidates, sumSlots.
void BM_KmeansInterleave(benchmark::State& st) {
  KmeansTuning t;
  t.interleaveTiles = st.range(3) != 0;
  t.pixelCacheQuads = int(st.range(4));
  t.blockThreads = int(st.range(5));
  t.tileCandidates = st.range(6) != 0;
  t.sumSlots = int(st.range(7));
  timeTuned(st, t);
}
BENCHMARK(BM_KmeansInterleave)
    ->ArgNames({"w", "h", "k", "inter", "cache", "thr", "cand", "slots"})
    ->ArgsProduct({{1920}, {1080}, {8}, {1, 0}, {-1}, {768, 256}, {1}, {1, 4, 8}})
    ->ArgsProduct({{3840}, {2160}, {8}, {1, 0}, {-1}, {768, 256}, {1}, {1, 4, 8}})
    ->ArgsProduct({{1920}, {1080}, {8}, {1, 0}, {0}, {768}, {1}, {1, 8}})
    ->ArgsProduct({{1920}, {1080}, {4, 16}, {1, 0}, {-1}, {768}, {1}, {1, 8}})
    ->ArgsProduct({{1920}, {1080}, {8}, {1, 0}, {-1}, {768}, {0}, {1, 8}})
    ->ArgsProduct({{1920}, {1080}, {8}, {1}, {-1}, {512, 768, 1024}, {1}, {2, 3, 4}})  // copies by block size
    ->ArgsProduct({{3840}, {2160}, {8}, {1}, {-1}, {512, 768, 1024}, {1}, {2, 3, 4}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The two grid barriers (KmeansTuning::countedBarrier) side by side, k 8, epsilon 0.
// Args: width, height, maxIterations, counted, blockThreads, fullGrid.
void BM_KmeansBarrier(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = int(st.range(0)), h = int(st.range(1));
  KmeansParams p;
  p.maxIterations = int(st.range(2));
  p.epsilon = 0.f;
  KmeansWorkspace ws;
  ws.tuning.countedBarrier = st.range(3) != 0;
  ws.tuning.blockThreads = int(st.range(4));
  ws.tuning.fullGrid = st.range(5) != 0;
  timeKmeans(st, w, h, p, ws);
}
BENCHMARK(BM_KmeansBarrier)
    ->ArgNames({"w", "h", "it", "counted", "thr", "full"})
    ->ArgsProduct({{1920}, {1080}, {20}, {1, 0}, {256, 768}, {0}})
    ->ArgsProduct({{3840}, {2160}, {20}, {1, 0}, {256, 768}, {0}})
    ->ArgsProduct({{64}, {64}, {0, 20}, {1, 0}, {256}, {1}})  // barrier cost alone: (t20 - t0) / 20
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The prologue's loads batched (KmeansTuning::batchedPrologue) or one warp step at a time, k 8,
// epsilon 0, default tuning otherwise. Args: width, height, maxIterations, batchedPrologue.
void BM_KmeansPrologue(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  KmeansParams p;
  p.maxIterations = int(st.range(2));
  p.epsilon = 0.f;
  KmeansWorkspace ws;
  ws.tuning.batchedPrologue = st.range(3) != 0;
  timeKmeans(st, int(st.range(0)), int(st.range(1)), p, ws);
}
BENCHMARK(BM_KmeansPrologue)
    ->ArgNames({"w", "h", "it", "batched"})
    ->ArgsProduct({{1920}, {1080}, {0, 20}, {0, 1}})
    ->ArgsProduct({{3840}, {2160}, {0, 20}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Consecutive frames of a moving clip, warm-started from the previous frame's centres
// with the default epsilon (0.01): time and Lloyd iterations per frame.
// Args: width, height, threads per block (KmeansTuning::blockThreads), counted barrier (0: grid.sync()),
// per-tile candidate centres, pixel cache (KmeansTuning::pixelCacheQuads).
void BM_KmeansWarm(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = int(st.range(0)), h = int(st.range(1)), frames = 16;
  std::vector<DeviceImage> clip;
  for (int f = 0; f < frames; ++f) clip.push_back(upload(natural(w, h, 0.05f * f)));
  DeviceImage out(w, h);
  DeviceBuffer labels(size_t(w) * h), state(sizeof(KmeansState));
  PinnedBuffer host(sizeof(KmeansState));
  KmeansWorkspace ws;
  ws.tuning.blockThreads = int(st.range(2));
  ws.tuning.countedBarrier = st.range(3) != 0;
  ws.tuning.tileCandidates = st.range(4) != 0;
  ws.tuning.pixelCacheQuads = int(st.range(5));
  KmeansParams p;
  Stream s;
  p.init = KmeansInit::Uniform;  // the clip's first frame
  kmeansGpu(clip[0].view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), p, ws, s);
  p.init = KmeansInit::Warm;
  RegionTimer timer(st);
  double iterations = 0;
  int i = 1;
  for (auto _ : st) {
    const int f = i < frames ? i : 2 * frames - 2 - i;  // back and forth: the motion never jumps
    i = (i + 1) % (2 * frames - 2);
    timer.begin(s);
    kmeansGpu(clip[f].view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), p, ws, s);
    timer.end(s);
    VP_CUDA_CHECK(cudaMemcpyAsync(host.get(), state.get(), sizeof(KmeansState), cudaMemcpyDeviceToHost, s));
    timer.release();
    s.synchronize();
    double seconds = 0;
    if (!timer.seconds(st, seconds)) return;
    st.SetIterationTime(seconds);
    iterations += host.as<KmeansState>()->iterations;
  }
  st.counters["iters"] = iterations / double(st.iterations());
  setRates(st, double(w) * h, iterations / double(st.iterations()));
}
BENCHMARK(BM_KmeansWarm)
    ->ArgNames({"w", "h", "thr", "counted", "cand", "cache"})
    ->Apply([](benchmark::internal::Benchmark* b) {  // the same shapes at 1080p and 4K
      const int64_t shapes[][4] = {{256, 1, 0, 0}, {256, 0, 0, 0},  {768, 1, 0, 0}, {256, 1, 1, 0},
                                   {768, 1, 1, 0}, {256, 1, 1, -1}, {768, 1, 1, -1}};
      for (int64_t w : {1920, 3840})
        for (const auto& [thr, counted, cand, cache] : shapes)
          b->Args({w, w * 9 / 16, thr, counted, cand, cache});
    })
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The CPU twin (OpenMP over every core), 1080p, k 4 / 8 / 16, 20 iterations, epsilon 0.
void BM_KmeansCpu(benchmark::State& st) {
  const HostImage& in = natural(1920, 1080);
  HostImage out(1920, 1080);
  std::vector<uint8_t> labels(size_t(1920) * 1080);
  KmeansState state;
  KmeansCpuScratch scratch(1920, 1080);
  KmeansParams p;
  p.k = int(st.range(0));
  p.epsilon = 0.f;
  for (auto _ : st) kmeansCpu(in.cview(), out.view(), labels.data(), state, p, scratch);
  setRates(st, 1920.0 * 1080.0, p.maxIterations);
}
BENCHMARK(BM_KmeansCpu)->ArgName("k")->Arg(4)->Arg(8)->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
