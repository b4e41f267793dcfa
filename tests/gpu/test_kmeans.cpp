// K-means: the CPU twin against a plain textbook Lloyd's loop, a score-independent
// nearest-centre check, behaviour checks (empty clusters, k-means++ seeding, warm
// start); the GPU's tests are in test_kmeans_gpu.cpp. Tolerances: none, except the
// score-independent check (a label's exact squared distance may exceed the minimum
// over centres by at most 0.25 squared 8-bit levels; see kmeans_math.h).
#include "gpu/filters/kmeans/kmeans.h"
#include "support/images.h"
#include "support/kmeans_cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace vp {
namespace {

using namespace kmtest;  // NOLINT(google-build-using-namespace): the suites' shared helpers

// ---- The plain textbook reference: single-threaded, written from the definition. ----

std::vector<uchar4> raster(const HostImage& img) {
  return {img.data(), img.data() + img.width() * img.height()};
}

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
        for (int ch = 0; ch < 3; ++ch)
          d += (px[ch] - r.state.centres[j][ch]) * (px[ch] - r.state.centres[j][ch]);
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
      img.at(x, y) = y < 10   ? make_uchar4(200, 10, 10, 255)
                     : y < 20 ? make_uchar4(10, 200, 10, 255)
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

}  // namespace
}  // namespace vp
