// K-means benchmarks: kernel time by CUDA events (median over repetitions), input in
// device memory, natural-looking frames. Counters: px/s = frame pixels per second,
// px_it/s = pixel-iterations per second (the assignment throughput), iters = Lloyd
// iterations per frame.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/kmeans/kmeans_auto.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <map>
#include <string>
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

KmeansLoad loadArg(int64_t v) { return v != 0 ? KmeansLoad::Shared : KmeansLoad::Alone; }

// One launch of the configuration kmeansGpu selects (kmeans_policy.h), named in the label.
// Args: width, height, k, maxIterations, init (0 uniform, 1 k-means++), load (0 the GPU to
// itself, 1 shared with other streams: the pipeline's). epsilon = 0: every frame runs
// exactly maxIterations.
void BM_KmeansGpu(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = int(st.range(0)), h = int(st.range(1));
  KmeansParams p;
  p.k = int(st.range(2));
  p.maxIterations = int(st.range(3));
  p.epsilon = 0.f;
  p.init = KmeansInit(st.range(4));
  KmeansWorkspace ws(loadArg(st.range(5)));
  timeKmeans(st, w, h, p, ws);
  st.SetLabel(std::string(ws.policy(w, h, p.k).name) + timingTag());
}
BENCHMARK(BM_KmeansGpu)
    ->ArgNames({"w", "h", "k", "it", "init", "load"})
    ->ArgsProduct({{1920}, {1080}, {8}, {20}, {0}, {0, 1}})  // the targets, as run alone and in the pipeline
    ->ArgsProduct({{3840}, {2160}, {8}, {20}, {0}, {0, 1}})
    ->ArgsProduct({{1920}, {1080}, {4, 16, 32}, {20}, {0}, {0, 1}})  // by cluster bucket
    ->Args({3840, 2160, 4, 20, 0, 0})
    ->Args({3840, 2160, 32, 20, 0, 0})
    ->ArgsProduct(
        {{1920, 3840}, {1080}, {8}, {0, 1}, {0}, {0}})  // init + final pass, one iteration: the fixed part
    ->Args({1920, 1080, 8, 0, 1, 0})                    // k-means++ seeding (k 8 and 32)
    ->Args({1920, 1080, 32, 0, 1, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Spatial (RGBXY) K-means, `kmeans=...:spatial=W`: the targets are 1080p and 4K, k 8, 20
// iterations (epsilon 0: every iteration runs). Args: width, height, k, maxIterations, W x 100.
// BM_KmeansSpatialGpu: what kmeansGpu runs (the cooperative kernel).
KmeansParams spatialParams(const benchmark::State& st) {
  KmeansParams p;
  p.k = int(st.range(2));
  p.maxIterations = int(st.range(3));
  p.epsilon = 0.f;
  p.init = KmeansInit::Uniform;
  p.spatial = float(st.range(4)) / 100.f;
  return p;
}
void spatialArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"w", "h", "k", "it", "W100"})
      ->Args({1920, 1080, 8, 20, 100})
      ->Args({3840, 2160, 8, 20, 100})
      ->Args({1920, 1080, 32, 20, 100})
      ->Args({1920, 1080, 8, 0, 100})  // init + final pass: the fixed part
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

void BM_KmeansSpatialGpu(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  KmeansWorkspace ws;
  timeKmeans(st, int(st.range(0)), int(st.range(1)), spatialParams(st), ws);
  if (!timingTag().empty()) st.SetLabel(timingTag().substr(1));
}
BENCHMARK(BM_KmeansSpatialGpu)->Apply(spatialArgs);

// Automatic K (kmeans_auto.h): choosing K in kmin..kmax on a 1080p frame (target <= 2 ms),
// and the per-frame score of a frame's centres. Args: kmin, kmax (kmax 0: the score alone).
void BM_KmeansAutoGpu(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = 1920, h = 1080, kmin = int(st.range(0)), kmax = int(st.range(1));
  DeviceImage in = upload(natural(w, h));
  DeviceBuffer scores(sizeof(AutoKScores)), sum(sizeof(int64_t)), state(sizeof(KmeansState));
  VP_CUDA_CHECK(cudaMemset(state.get(), 0, sizeof(KmeansState)));
  Stream s;
  timeCudaLoop(st, s, [&](cudaStream_t stream) {
    if (kmax == 0)
      silhouetteGpu(in.view(), state.as<KmeansState>(), kmin, sum.as<int64_t>(), stream);
    else
      autoKGpu(in.view(), kmin, kmax, 24301, scores.as<AutoKScores>(), stream);
  });
}
BENCHMARK(BM_KmeansAutoGpu)
    ->ArgNames({"kmin", "kmax"})
    ->Args({2, 12})  // the default range: the target
    ->Args({2, 32})
    ->Args({8, 0})  // the per-frame score, k 8
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// Consecutive frames of a moving clip, warm-started from the previous frame's centres
// with the default epsilon (0.01): time and Lloyd iterations per frame, as the pipeline
// runs them. Args: width, height, load (as BM_KmeansGpu). With VP_BENCH_BATCH=N, N
// consecutive frames run between the two events (time per frame); "iters" then counts
// each batch's last frame.
void BM_KmeansWarm(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = int(st.range(0)), h = int(st.range(1)), frames = 16;
  std::vector<DeviceImage> clip;
  for (int f = 0; f < frames; ++f) clip.push_back(upload(natural(w, h, 0.05f * f)));
  DeviceImage out(w, h);
  DeviceBuffer labels(size_t(w) * h), state(sizeof(KmeansState));
  PinnedBuffer host(sizeof(KmeansState));
  KmeansWorkspace ws(loadArg(st.range(2)));
  KmeansParams p;
  Stream s;
  p.init = KmeansInit::Uniform;  // the clip's first frame
  kmeansGpu(clip[0].view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), p, ws, s);
  p.init = KmeansInit::Warm;
  RegionTimer timer(st);
  const int calls = batchCalls();
  double iterations = 0;
  int i = 1;
  for (auto _ : st) {
    timer.begin(s);
    for (int c = 0; c < calls; ++c) {
      const int f = i < frames ? i : 2 * frames - 2 - i;  // back and forth: the motion never jumps
      i = (i + 1) % (2 * frames - 2);
      kmeansGpu(clip[f].view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), p, ws, s);
    }
    timer.end(s);
    VP_CUDA_CHECK(cudaMemcpyAsync(host.get(), state.get(), sizeof(KmeansState), cudaMemcpyDeviceToHost, s));
    timer.release();
    s.synchronize();
    double seconds = 0;
    if (!timer.seconds(st, seconds)) return;
    st.SetIterationTime(seconds / calls);
    iterations += host.as<KmeansState>()->iterations;
  }
  st.counters["iters"] = iterations / double(st.iterations());
  st.SetLabel(std::string(ws.policy(w, h, p.k).name) + timingTag());
  setRates(st, double(w) * h, iterations / double(st.iterations()));
}
BENCHMARK(BM_KmeansWarm)
    ->ArgNames({"w", "h", "load"})
    ->Args({1920, 1080, 0})
    ->Args({1920, 1080, 1})
    ->Args({3840, 2160, 0})
    ->Args({3840, 2160, 1})
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
