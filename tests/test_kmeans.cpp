// K-means: the CPU twin against a plain textbook Lloyd's loop, a score-independent
// nearest-centre check, behaviour checks (empty clusters, k-means++ seeding, warm
// start), and GPU vs CPU twin bit-exact equality. Tolerances: none, except the
// score-independent check (a label's exact squared distance may exceed the minimum
// over centres by at most 0.25 squared 8-bit levels; see kmeans_math.h).
#include "gpu/kmeans.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace vp {
namespace {

struct Result {
  std::vector<uint8_t> labels;
  HostImage out;
  KmeansState state;
};

enum class Input { Random, Natural };

const HostImage& input(int w, int h, Input kind, float phase = 0.f) {
  static std::map<std::tuple<int, int, Input, float>, HostImage> cache;
  auto key = std::make_tuple(w, h, kind, phase);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, kind == Input::Random ? test::makeRandom(w, h, 42) : test::makeNatural(w, h, 7, phase))
             .first;
  return it->second;
}

// A plausible previous frame's state for warm starts.
KmeansState warmState() {
  KmeansState s;
  for (int j = 0; j < kMaxClusters; ++j) {
    s.centres[j][0] = float((j * 53 + 11) % 256) + 0.25f;
    s.centres[j][1] = float((j * 97 + 40) % 256) + 0.5f;
    s.centres[j][2] = float((j * 29 + 200) % 256) + 0.75f;
  }
  return s;
}

// ---- The plain textbook reference: single-threaded, written from the definition. ----

std::vector<uchar4> raster(const HostImage& img) { return {img.data(), img.data() + img.width() * img.height()}; }

void naivePlusPlus(const std::vector<uchar4>& px, int k, uint64_t seed, std::vector<float>& c) {
  const uint64_t n = px.size(), m = std::min<uint64_t>(n, kKmeansPlusPlusSamples);
  std::vector<uchar4> sample;
  for (uint64_t i = 0; i < m; ++i) sample.push_back(px[i * n / m]);
  km::SplitMix64 rng(seed);
  std::vector<uchar4> chosen{sample[rng.next() % m]};
  while (int(chosen.size()) < k) {
    std::vector<uint64_t> d2(m);
    uint64_t total = 0;
    for (uint64_t i = 0; i < m; ++i) {
      uint64_t best = UINT64_MAX;
      for (uchar4 ch : chosen) best = std::min<uint64_t>(best, km::pixelDistance2(sample[i], ch));
      d2[i] = best;
      total += best;
    }
    if (total == 0) {
      chosen.push_back(sample[rng.next() % m]);
      continue;
    }
    uint64_t u = rng.next() % total, prefix = 0, i = 0;
    while ((prefix += d2[i]) <= u) ++i;
    chosen.push_back(sample[i]);
  }
  for (int j = 0; j < k; ++j) c[3 * j] = chosen[j].x, c[3 * j + 1] = chosen[j].y, c[3 * j + 2] = chosen[j].z;
}

int naiveNearest(uchar4 p, const std::vector<float>& c, int k) {
  int bi = 0;
  float best = INFINITY;
  for (int j = 0; j < k; ++j) {
    float s = km::score(p.x, p.y, p.z, km::centreCoeffs(c[3 * j], c[3 * j + 1], c[3 * j + 2]));
    if (s < best) best = s, bi = j;
  }
  return bi;
}

Result naiveLloyd(const HostImage& img, const KmeansParams& p, const KmeansState& initial) {
  const std::vector<uchar4> px = raster(img);
  const uint64_t n = px.size();
  const int k = p.k;
  std::vector<float> c(3 * k);
  if (p.init == KmeansInit::Uniform) {
    for (int j = 0; j < k; ++j) {
      uchar4 q = px[uint64_t(j) * n / uint64_t(k)];
      c[3 * j] = q.x, c[3 * j + 1] = q.y, c[3 * j + 2] = q.z;
    }
  } else if (p.init == KmeansInit::KmeansPlusPlus) {
    naivePlusPlus(px, k, p.seed, c);
  } else {
    for (int j = 0; j < k; ++j)
      for (int ch = 0; ch < 3; ++ch) c[3 * j + ch] = initial.centres[j][ch];
  }
  Result r{std::vector<uint8_t>(n), HostImage(img.width(), img.height()), initial};
  r.state.shift2 = INFINITY;
  r.state.iterations = 0;
  for (int it = 0; it < p.maxIterations; ++it) {
    std::vector<uint64_t> sum(4 * k, 0);
    for (uchar4 q : px) {
      int j = naiveNearest(q, c, k);
      sum[4 * j] += q.x, sum[4 * j + 1] += q.y, sum[4 * j + 2] += q.z, sum[4 * j + 3] += 1;
    }
    float shift2 = 0.f;
    for (int j = 0; j < k; ++j) {
      if (sum[4 * j + 3] == 0) continue;
      float nc[3];
      for (int ch = 0; ch < 3; ++ch) nc[ch] = float(double(sum[4 * j + ch]) / double(sum[4 * j + 3]));
      shift2 = std::max(shift2, km::shiftSquared(c[3 * j], c[3 * j + 1], c[3 * j + 2], nc[0], nc[1], nc[2]));
      for (int ch = 0; ch < 3; ++ch) c[3 * j + ch] = nc[ch];
    }
    r.state.shift2 = shift2;
    r.state.iterations = it + 1;
    if (shift2 < p.epsilon) break;
  }
  r.state.cost = 0;
  for (uint64_t i = 0; i < n; ++i) {
    int j = naiveNearest(px[i], c, k);
    r.labels[i] = uint8_t(j);
    r.out.data()[i] = make_uchar4(km::centreByte(c[3 * j]), km::centreByte(c[3 * j + 1]),
                                  km::centreByte(c[3 * j + 2]), px[i].w);
    const uchar4 o = r.out.data()[i];  // the cost: the output's squared error
    const int64_t dr = o.x - px[i].x, dg = o.y - px[i].y, db = o.z - px[i].z;
    r.state.cost += uint64_t(dr * dr + dg * dg + db * db);
  }
  for (int j = 0; j < k; ++j) {
    for (int ch = 0; ch < 3; ++ch) r.state.centres[j][ch] = c[3 * j + ch];
    r.state.centres[j][3] = 0.f;
  }
  r.state.k = k;
  return r;
}

// ---- Runners and comparison ----

Result runCpu(const HostImage& img, const KmeansParams& p, const KmeansState& initial) {
  Result r{std::vector<uint8_t>(img.width() * size_t(img.height()), 0xA5), HostImage(img.width(), img.height()),
        initial};
  test::poison(r.out);
  kmeansCpu(img.cview(), r.out.view(), r.labels.data(), r.state, p);
  return r;
}

// fromAfter (optional): run as the pipeline does, with the initial centres read from a
// second device state holding `initial` (kmeansGpu's warmFrom) while the state itself is
// poisoned (NaN bytes); *fromAfter receives that second state after the run.
Result runGpu(const HostImage& img, const KmeansParams& p, const KmeansState& initial, KmeansWorkspace& ws,
              KmeansState* fromAfter = nullptr) {
  const size_t n = img.width() * size_t(img.height());
  DeviceImage in = test::upload(img), out(img.width(), img.height());
  test::poison(out);
  DeviceBuffer labels(n), state(sizeof(KmeansState)), from(fromAfter ? sizeof(KmeansState) : 0);
  VP_CUDA_CHECK(cudaMemset(labels.get(), test::kPoison, n));
  if (fromAfter) {
    VP_CUDA_CHECK(cudaMemset(state.get(), 0xFF, sizeof(KmeansState)));
    VP_CUDA_CHECK(cudaMemcpy(from.get(), &initial, sizeof initial, cudaMemcpyHostToDevice));
  } else {
    VP_CUDA_CHECK(cudaMemcpy(state.get(), &initial, sizeof initial, cudaMemcpyHostToDevice));
  }
  VP_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream copies vs the non-blocking stream below
  Stream s;
  kmeansGpu(in.view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), p, ws, s,
            fromAfter ? from.as<KmeansState>() : nullptr);
  s.synchronize();
  Result r{std::vector<uint8_t>(n), test::download(out), {}};
  VP_CUDA_CHECK(cudaMemcpy(r.labels.data(), labels.get(), n, cudaMemcpyDeviceToHost));
  VP_CUDA_CHECK(cudaMemcpy(&r.state, state.get(), sizeof r.state, cudaMemcpyDeviceToHost));
  if (fromAfter) VP_CUDA_CHECK(cudaMemcpy(fromAfter, from.get(), sizeof *fromAfter, cudaMemcpyDeviceToHost));
  return r;
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expectSame(const Result& got, const Result& want, int k) {
  EXPECT_EQ(got.state.k, want.state.k);
  EXPECT_EQ(got.state.iterations, want.state.iterations);
  EXPECT_EQ(got.state.cost, want.state.cost);
  EXPECT_TRUE(sameBits(got.state.shift2, want.state.shift2)) << got.state.shift2 << " vs " << want.state.shift2;
  for (int j = 0; j < k; ++j)
    for (int ch = 0; ch < 4; ++ch)
      EXPECT_TRUE(sameBits(got.state.centres[j][ch], want.state.centres[j][ch]))
          << "centre " << j << "." << ch << ": " << got.state.centres[j][ch] << " vs " << want.state.centres[j][ch];
  size_t differing = 0, first = 0;
  for (size_t i = got.labels.size(); i-- > 0;)
    if (got.labels[i] != want.labels[i]) ++differing, first = i;
  EXPECT_EQ(differing, 0u) << "labels; first at " << first << ": " << int(got.labels[first]) << " vs "
                           << int(want.labels[first]);
  test::ImageDiff d = test::compare(got.out, want.out);
  EXPECT_EQ(d.differing, 0u) << d.first;
}

const char* initName(KmeansInit i) {
  return i == KmeansInit::Uniform ? "uniform" : i == KmeansInit::KmeansPlusPlus ? "kpp" : "warm";
}

struct Case {
  int w, h;
  Input input;
  int k;
  KmeansInit init;
  int maxIterations;
  float epsilon;
};

std::string caseName(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::to_string(c.w) + "x" + std::to_string(c.h) + (c.input == Input::Random ? "_random" : "_natural") +
         "_k" + std::to_string(c.k) + "_" + initName(c.init) + "_it" + std::to_string(c.maxIterations) +
         (c.epsilon > 0 ? "_early" : "_eps0") + "_" + std::to_string(info.index);
}

KmeansParams paramsOf(const Case& c) {
  KmeansParams p;
  p.k = c.k, p.init = c.init, p.maxIterations = c.maxIterations, p.epsilon = c.epsilon;
  return p;
}

// Small images: every k, init and stopping rule. Large: a selection (the naive loop is slow).
std::vector<Case> smallCases() {
  std::vector<Case> cases;
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {37, 11}})
    for (Input in : {Input::Random, Input::Natural})
      for (int k : {1, 2, 8, 32})
        for (KmeansInit init : {KmeansInit::Uniform, KmeansInit::KmeansPlusPlus, KmeansInit::Warm})
          for (auto [it, eps] : {std::pair{0, 0.f}, {3, 0.f}, {20, 0.f}, {50, 1.f}})
            cases.push_back({w, h, in, k, init, it, eps});
  return cases;
}
std::vector<Case> largeCases() {
  return {{1921, 1081, Input::Random, 8, KmeansInit::Uniform, 3, 0.f},
          {1921, 1081, Input::Natural, 32, KmeansInit::KmeansPlusPlus, 2, 0.f},
          {1921, 1081, Input::Natural, 1, KmeansInit::Warm, 3, 0.f},
          {1921, 1081, Input::Natural, 2, KmeansInit::Uniform, 0, 0.f},
          {1920, 1080, Input::Natural, 8, KmeansInit::Uniform, 20, 1.f},
          {1920, 1080, Input::Random, 2, KmeansInit::KmeansPlusPlus, 5, 0.f},
          {1920, 1080, Input::Natural, 32, KmeansInit::Warm, 1, 0.f},
          {1920, 1080, Input::Random, 32, KmeansInit::Uniform, 2, 0.f}};
}

class KmeansCpuVsNaive : public testing::TestWithParam<Case> {};

TEST_P(KmeansCpuVsNaive, Identical) {
  const Case& c = GetParam();
  const HostImage& img = input(c.w, c.h, c.input);
  KmeansParams p = paramsOf(c);
  expectSame(runCpu(img, p, warmState()), naiveLloyd(img, p, warmState()), c.k);
}
INSTANTIATE_TEST_SUITE_P(Small, KmeansCpuVsNaive, testing::ValuesIn(smallCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Large, KmeansCpuVsNaive, testing::ValuesIn(largeCases()), caseName);

TEST(KmeansCpu, LabelsAreNearestByExactDistance) {
  for (auto [in, k] : {std::pair{Input::Natural, 8}, {Input::Random, 32}}) {
    const HostImage& img = input(1921, 1081, in);
    KmeansParams p;
    p.k = k, p.maxIterations = 4, p.epsilon = 0.f;
    Result r = runCpu(img, p, {});
    double worst = 0;
    for (size_t i = 0; i < r.labels.size(); ++i) {
      const uchar4 q = img.data()[i];
      const double px[3] = {double(q.x), double(q.y), double(q.z)};
      auto exact = [&](int j) {
        double d = 0;
        for (int ch = 0; ch < 3; ++ch) d += (px[ch] - r.state.centres[j][ch]) * (px[ch] - r.state.centres[j][ch]);
        return d;
      };
      double best = exact(0);
      for (int j = 1; j < k; ++j) best = std::min(best, exact(j));
      worst = std::max(worst, exact(r.labels[i]) - best);
    }
    EXPECT_LE(worst, 0.25) << "k=" << k;
  }
}

TEST(KmeansCpu, EmptyClusterKeepsItsCentre) {
  HostImage img(40, 30);  // three colours, k = 8: uniform init duplicates them
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x)
      img.at(x, y) = y < 10 ? make_uchar4(200, 10, 10, 255) : y < 20 ? make_uchar4(10, 200, 10, 255)
                                                                     : make_uchar4(10, 10, 200, 255);
  KmeansParams p;
  p.k = 8, p.maxIterations = 5;
  Result r = runCpu(img, p, {});
  std::vector<int> count(8, 0);
  for (uint8_t l : r.labels) ++count[l];
  int empty = 0;
  for (int j = 0; j < 8; ++j) {
    uchar4 initial = img.data()[size_t(j) * 1200 / 8];
    if (count[j] == 0) {
      ++empty;
      EXPECT_EQ(r.state.centres[j][0], float(initial.x)) << j;
      EXPECT_EQ(r.state.centres[j][1], float(initial.y)) << j;
      EXPECT_EQ(r.state.centres[j][2], float(initial.z)) << j;
    }
  }
  EXPECT_EQ(empty, 5);
  EXPECT_EQ(r.state.cost, 0u);
  EXPECT_EQ(r.state.iterations, 1);  // centres already exact: shift 0 < epsilon
}

TEST(KmeansCpu, PlusPlusDeterministicPerSeed) {
  const HostImage& img = input(320, 240, Input::Random);
  KmeansParams p;
  p.k = 8, p.init = KmeansInit::KmeansPlusPlus, p.maxIterations = 0;
  Result a = runCpu(img, p, {}), b = runCpu(img, p, {});
  p.seed = 12345;
  Result c = runCpu(img, p, {});
  EXPECT_EQ(std::memcmp(a.state.centres, b.state.centres, sizeof a.state.centres), 0);
  EXPECT_NE(std::memcmp(a.state.centres, c.state.centres, sizeof a.state.centres), 0);
}

TEST(KmeansCpu, WarmStartFromConvergedCentresTakesOneIteration) {
  const HostImage& img = input(96, 64, Input::Natural);
  KmeansParams p;
  p.k = 8, p.maxIterations = 1000, p.epsilon = 1e-30f;  // shift2 < 1e-30 only when it is 0
  Result converged = runCpu(img, p, {});
  ASSERT_LT(converged.state.iterations, 1000);
  p.init = KmeansInit::Warm;
  Result warm = runCpu(img, p, converged.state);
  EXPECT_EQ(warm.state.iterations, 1);
  EXPECT_EQ(warm.state.shift2, 0.f);
  KmeansState want = converged.state;  // the same centres, labels, output and cost; one iteration, no shift
  want.iterations = 1;
  want.shift2 = 0.f;
  expectSame(warm, Result{converged.labels, converged.out, want}, 8);
}

TEST(KmeansCpu, InPlaceEqualsOutOfPlace) {
  const HostImage& img = input(37, 11, Input::Random);
  for (int it : {0, 5}) {
    KmeansParams p;
    p.maxIterations = it;
    Result want = runCpu(img, p, {});
    HostImage inplace = img;
    KmeansState s;
    kmeansCpu(inplace.cview(), inplace.view(), nullptr, s, p);
    EXPECT_EQ(test::compare(inplace, want.out).differing, 0u);
    EXPECT_EQ(s.cost, want.state.cost);
  }
}

void expectArgumentChecks(const std::function<void(ConstRgbaView, RgbaView, const KmeansParams&)>& run) {
  HostImage img = test::makeRandom(8, 8, 1), out(8, 8), small(4, 8), empty;
  KmeansParams p;
  for (int k : {0, -1, 33}) {
    p.k = k;
    EXPECT_THROW(run(img.cview(), out.view(), p), std::invalid_argument) << k;
  }
  p = {};
  p.maxIterations = -1;
  EXPECT_THROW(run(img.cview(), out.view(), p), std::invalid_argument);
  p = {};
  EXPECT_THROW(run(empty.cview(), empty.view(), p), std::invalid_argument);
  EXPECT_THROW(run(img.cview(), small.view(), p), std::invalid_argument);
}

TEST(KmeansCpu, ArgumentChecks) {
  expectArgumentChecks([](ConstRgbaView in, RgbaView out, const KmeansParams& p) {
    KmeansState s;
    kmeansCpu(in, out, nullptr, s, p);
  });
}

// One scratch serves every frame up to its size (its tiles indexed by the current width),
// and refuses larger ones.
TEST(KmeansCpu, ScratchServesSmallerFramesAndRefusesLarger) {
  KmeansCpuScratch scratch(300, 40);
  KmeansParams p;
  p.k = 8, p.maxIterations = 6, p.epsilon = 0.f, p.init = KmeansInit::KmeansPlusPlus;
  for (auto [w, h] : {std::pair{300, 40}, {37, 11}, {129, 40}, {300, 1}}) {
    const HostImage& img = input(w, h, Input::Natural);
    Result got{std::vector<uint8_t>(size_t(w) * h, 0xA5), HostImage(w, h), KmeansState{}};
    test::poison(got.out);
    kmeansCpu(img.cview(), got.out.view(), got.labels.data(), got.state, p, scratch);
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    expectSame(got, naiveLloyd(img, p, KmeansState{}), p.k);
  }
  HostImage wide(301, 40), tall(300, 41);
  KmeansState s;
  EXPECT_THROW(kmeansCpu(wide.cview(), wide.view(), nullptr, s, p, scratch), std::invalid_argument);
  EXPECT_THROW(kmeansCpu(tall.cview(), tall.view(), nullptr, s, p, scratch), std::invalid_argument);
  EXPECT_THROW(KmeansCpuScratch(0, 5), std::invalid_argument);
  EXPECT_THROW(KmeansCpuScratch(5, 0), std::invalid_argument);
}

// ---- GPU vs CPU twin ----

// Every launch variant of kmeansGpu (KmeansTuning); each must equal the CPU twin bit for bit.
struct Variant {
  const char* name;
  KmeansTuning tuning;
};
std::vector<Variant> gpuVariants() {
  auto make = [](int bps, bool tree, int threads, int slots, int quads) {
    KmeansTuning t;
    t.blocksPerSm = bps, t.treeArgmin = tree, t.blockThreads = threads, t.sumSlots = slots;
    t.quadsPerStep = quads;
    return t;
  };
  auto gridSync = [](KmeansTuning t) {
    t.countedBarrier = false;
    return t;
  };
  auto nocand = [](KmeansTuning t) {  // without per-tile candidate centres (the plain pass)
    t.tileCandidates = false;
    return t;
  };
  auto cache = [](KmeansTuning t, int quads) {  // pixel cache off (0) or holding a block's first quads only
    t.pixelCacheQuads = quads;
    return t;
  };
  auto contiguous = [](KmeansTuning t) {  // blocks own ranges of the raster order, not interleaved tiles
    t.interleaveTiles = false;
    return t;
  };
  auto stepPrologue = [](KmeansTuning t) {  // the prologue's loads one warp step at a time
    t.batchedPrologue = false;
    return t;
  };
  return {{"tree_bps2", make(2, true, 256, 1, 1)},
          {"scan_bps3", make(3, false, 256, 1, 1)},
          {"default", KmeansTuning{}},
          {"wide512", make(0, true, 512, 1, 1)},
          {"wide768", make(0, true, 768, 1, 1)},
          {"wide1024", make(0, true, 1024, 1, 1)},  // k > 8: 768
          {"spread8", make(0, true, 256, 8, 1)},
          {"wide1024_spread4", make(0, true, 1024, 4, 1)},
          {"wide768_spread8_scan", make(0, false, 768, 8, 1)},  // wide blocks always use the tree
          {"pairs", make(0, true, 256, 1, 2)},
          {"pairs_scan_bps3", make(3, false, 256, 1, 2)},  // pairs use the tree; occupancy caps bps at 2
          {"wide512_pairs_spread8", make(0, true, 512, 8, 2)},
          {"wide1024_pairs", make(0, true, 1024, 1, 2)},  // pairs at 1024: 768
          {"gridsync", gridSync(KmeansTuning{})},         // the other barrier
          {"gridsync_scan_bps3", gridSync(make(3, false, 256, 1, 1))},
          {"gridsync_wide768_spread8", gridSync(make(0, true, 768, 8, 1))},
          {"nocand", nocand(KmeansTuning{})},
          {"nocand_tree_bps2", nocand(make(2, true, 256, 1, 1))},
          {"nocand_scan_bps3", nocand(make(3, false, 256, 1, 1))},
          {"nocand_wide1024_spread4", nocand(make(0, true, 1024, 4, 1))},
          {"nocand_wide768", nocand(make(0, true, 768, 1, 1))},
          {"nocand_gridsync_wide512", nocand(gridSync(make(0, true, 512, 1, 1)))},
          {"nocache", cache(KmeansTuning{}, 0)},
          {"nocache_wide768", cache(make(0, true, 768, 1, 1), 0)},
          {"cache100", cache(KmeansTuning{}, 100)},  // a tile split between cache and image
          {"cache37_scan_bps3", cache(make(3, false, 256, 1, 1), 37)},
          {"nocand_cache100_pairs", nocand(cache(make(0, true, 256, 1, 2), 100))},
          {"nocand_nocache", nocand(cache(KmeansTuning{}, 0))},
          {"contig", contiguous(KmeansTuning{})},
          {"contig_cache100_wide512", contiguous(cache(make(0, true, 512, 1, 1), 100))},
          {"contig_nocand_pairs_bps3", contiguous(nocand(make(3, true, 256, 1, 2)))},
          {"contig_gridsync_nocache", contiguous(gridSync(cache(KmeansTuning{}, 0)))},
          {"stepprologue", stepPrologue(KmeansTuning{})},
          {"stepprologue_contig_cache37", stepPrologue(contiguous(cache(KmeansTuning{}, 37)))}};
}

class KmeansGpuVsCpu : public testing::TestWithParam<Case> {};

TEST_P(KmeansGpuVsCpu, Identical) {
  VP_REQUIRE_GPU();
  const Case& c = GetParam();
  const HostImage& img = input(c.w, c.h, c.input);
  KmeansParams p = paramsOf(c);
  const Result want = runCpu(img, p, warmState());
  for (const Variant& v : gpuVariants()) {  // argmin variants, launch shapes, block sizes, sum copies
    KmeansWorkspace ws;
    ws.tuning = v.tuning;
    SCOPED_TRACE(v.name);
    expectSame(runGpu(img, p, warmState(), ws), want, c.k);
  }
}

std::vector<Case> gpuCases() {
  std::vector<Case> cases = smallCases();
  for (auto [w, h] : {std::pair{1921, 1081}, {1920, 1080}})
    for (Input in : {Input::Random, Input::Natural})
      for (int k : {1, 2, 8, 32})
        for (KmeansInit init : {KmeansInit::Uniform, KmeansInit::KmeansPlusPlus, KmeansInit::Warm})
          for (auto [it, eps] : {std::pair{20, 0.f}, {20, 0.5f}})
            cases.push_back({w, h, in, k, init, it, eps});
  cases.push_back({1921, 1081, Input::Natural, 16, KmeansInit::Uniform, 0, 0.f});
  cases.push_back({1920, 1080, Input::Random, 4, KmeansInit::Uniform, 3, 0.f});
  cases.push_back({3840, 2160, Input::Natural, 8, KmeansInit::Uniform, 20, 0.f});
  return cases;
}
INSTANTIATE_TEST_SUITE_P(All, KmeansGpuVsCpu, testing::ValuesIn(gpuCases()), caseName);

TEST(KmeansGpu, WarmFramesOfAClipMatchCpu) {
  VP_REQUIRE_GPU();
  KmeansParams p;  // defaults: k 8, 20 iterations, epsilon 0.01
  std::vector<Result> cpu;
  KmeansState cpuState;  // each backend carries its own state from frame to frame
  for (int f = 0; f < 6; ++f) {
    p.init = f == 0 ? KmeansInit::Uniform : KmeansInit::Warm;
    cpu.push_back(runCpu(input(1920, 1080, Input::Natural, 0.1f * f), p, cpuState));
    cpuState = cpu.back().state;
  }
  for (const Variant& v : gpuVariants()) {
    KmeansWorkspace ws;
    ws.tuning = v.tuning;
    KmeansState gpuState;
    for (int f = 0; f < 6; ++f) {
      p.init = f == 0 ? KmeansInit::Uniform : KmeansInit::Warm;
      Result gpu = runGpu(input(1920, 1080, Input::Natural, 0.1f * f), p, gpuState, ws);
      gpuState = gpu.state;
      SCOPED_TRACE(std::string(v.name) + " frame " + std::to_string(f));
      expectSame(gpu, cpu[f], p.k);
    }
  }
}

TEST(KmeansGpu, GridShapeAndUnalignedViewsDoNotChangeResults) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(1921, 1081, Input::Random);
  KmeansParams p;
  p.k = 8, p.maxIterations = 5, p.epsilon = 0.f;
  Result want = runCpu(img, p, {});
  // A view starting one pixel into each row: no 16-byte loads or stores.
  const int w = img.width() - 1, h = img.height();
  HostImage sub(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) sub.at(x, y) = img.at(x + 1, y);
  Result cpu = runCpu(sub, p, {});
  for (const Variant& v : gpuVariants()) {
    for (int shape = 0; shape < 4; ++shape) {
      KmeansWorkspace ws;
      ws.tuning = v.tuning;
      ws.tuning.blocksPerSm = shape == 0 ? 1 : 64;  // 64: as many as fit
      ws.tuning.fullGrid = shape >= 2;
      if (shape == 3) ws.tuning.treeArgmin = !ws.tuning.treeArgmin;
      SCOPED_TRACE(std::string(v.name) + " shape " + std::to_string(shape));
      expectSame(runGpu(img, p, {}, ws), want, p.k);
    }
    SCOPED_TRACE(std::string(v.name) + " unaligned");
    KmeansWorkspace ws;
    ws.tuning = v.tuning;
    DeviceImage in = test::upload(img), out(img.width(), img.height());
    test::poison(out);
    ConstRgbaView inView{in.view().data + 1, in.pitch(), w, h};
    RgbaView outView{out.view().data + 1, out.pitch(), w, h};
    DeviceBuffer state(sizeof(KmeansState));
    kmeansGpu(inView, outView, nullptr, state.as<KmeansState>(), p, ws, nullptr);
    KmeansState gpu;
    VP_CUDA_CHECK(cudaMemcpy(&gpu, state.get(), sizeof gpu, cudaMemcpyDeviceToHost));
    HostImage got = test::download(out), gotSub(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) gotSub.at(x, y) = got.at(x + 1, y);
    EXPECT_EQ(test::compare(gotSub, cpu.out).differing, 0u);
    EXPECT_EQ(got.at(0, 5).x, test::kPoison);  // column 0 untouched
    EXPECT_EQ(gpu.cost, cpu.state.cost);
    EXPECT_EQ(std::memcmp(gpu.centres, cpu.state.centres, sizeof(float) * 4 * 8), 0);
  }
}

TEST(KmeansGpu, InPlaceEqualsOutOfPlace) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(1921, 1081, Input::Natural);
  for (int it : {0, 5}) {
    KmeansParams p;
    p.maxIterations = it;
    Result want = runCpu(img, p, {});
    for (const Variant& v : gpuVariants()) {
      KmeansWorkspace ws;
      ws.tuning = v.tuning;
      DeviceImage d = test::upload(img);
      DeviceBuffer state(sizeof(KmeansState));
      kmeansGpu(d.view(), d.view(), nullptr, state.as<KmeansState>(), p, ws, nullptr);
      EXPECT_EQ(test::compare(test::download(d), want.out).differing, 0u) << v.name << " it " << it;
    }
  }
}

// Consecutive launches on one workspace with different variants: each leaves the scratch
// it used clean for the next (sum copies, cost).
TEST(KmeansGpu, SwitchingVariantsOnOneWorkspace) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(640, 360, Input::Natural);
  KmeansParams p;
  p.k = 8, p.maxIterations = 7, p.epsilon = 0.f;
  const Result want = runCpu(img, p, {});
  KmeansWorkspace ws;
  for (int round = 0; round < 2; ++round)
    for (const Variant& v : gpuVariants()) {
      ws.tuning = v.tuning;
      SCOPED_TRACE(std::string(v.name) + " round " + std::to_string(round));
      expectSame(runGpu(img, p, {}, ws), want, p.k);
    }
}

// warmFrom: the initial centres come from another state, which stays unchanged; the
// state's own centres (poisoned: NaN) are not read. Ignored by the other inits.
TEST(KmeansGpu, WarmFromAnotherState) {
  VP_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1, 1}, {37, 11}, {1921, 1081}})
    for (KmeansInit init : {KmeansInit::Warm, KmeansInit::Uniform, KmeansInit::KmeansPlusPlus}) {
      const HostImage& img = input(w, h, Input::Natural);
      KmeansParams p;
      p.k = 8, p.init = init;
      const KmeansState warm = warmState();
      const Result want = runCpu(img, p, warm);
      for (const Variant& v : gpuVariants()) {
        SCOPED_TRACE(std::string(v.name) + " " + std::to_string(w) + "x" + std::to_string(h) + " " + initName(init));
        KmeansWorkspace ws;
        ws.tuning = v.tuning;
        KmeansState fromAfter;
        expectSame(runGpu(img, p, warm, ws, &fromAfter), want, p.k);
        EXPECT_EQ(std::memcmp(&fromAfter, &warm, sizeof warm), 0);
      }
    }
}

// Warm-start centres outside [0, 255] switch the candidate test off (its error bound assumes
// them inside) until the first update brings them in: still identical to the CPU twin.
TEST(KmeansGpu, CandidatesWithCentresOutOfRange) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(1921, 1081, Input::Natural);
  KmeansState warm = warmState();
  const float odd[][3] = {{-40.5f, 12.f, 300.25f}, {1e6f, -1e6f, 0.f}, {255.5f, 255.f, 255.f}, {-0.25f, 0.f, 0.f}};
  for (int j = 0; j < 4; ++j)
    for (int f = 0; f < 3; ++f) warm.centres[2 * j][f] = odd[j][f];
  for (int it : {0, 1, 3, 20}) {
    KmeansParams p;
    p.k = 8, p.init = KmeansInit::Warm, p.maxIterations = it, p.epsilon = 0.f;
    const Result want = runCpu(img, p, warm);
    for (int threads : {256, 768}) {
      KmeansWorkspace ws;
      ws.tuning.blockThreads = threads;
      SCOPED_TRACE("it " + std::to_string(it) + " threads " + std::to_string(threads));
      expectSame(runGpu(img, p, warm, ws), want, p.k);
    }
  }
}

TEST(KmeansGpu, BadTuningThrows) {
  VP_REQUIRE_GPU();
  DeviceImage in(8, 8), out(8, 8);
  DeviceBuffer state(sizeof(KmeansState));
  for (auto [threads, slots, quads] : {std::tuple{300, 1, 1}, {128, 1, 1}, {256, -1, 1}, {256, kMaxSumSlots + 1, 1},
                                       {256, 1, 0}, {256, 1, 3}}) {
    KmeansWorkspace ws;
    ws.tuning.blockThreads = threads, ws.tuning.sumSlots = slots, ws.tuning.quadsPerStep = quads;
    EXPECT_THROW(kmeansGpu(in.view(), out.view(), nullptr, state.as<KmeansState>(), KmeansParams{}, ws, nullptr),
                 std::invalid_argument)
        << threads << " " << slots << " " << quads;
  }
}

TEST(KmeansGpu, ArgumentChecks) {
  VP_REQUIRE_GPU();
  KmeansWorkspace ws;
  DeviceBuffer state(sizeof(KmeansState));
  expectArgumentChecks([&](ConstRgbaView in, RgbaView out, const KmeansParams& p) {
    kmeansGpu(in, out, nullptr, state.as<KmeansState>(), p, ws, nullptr);
  });
  DeviceImage in(8, 8), out(8, 8);
  EXPECT_THROW(kmeansGpu(in.view(), out.view(), nullptr, nullptr, KmeansParams{}, ws, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace vp
