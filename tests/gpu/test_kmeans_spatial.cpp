// Spatial (RGBXY) K-means (kmeans.h, `kmeans=...:spatial=W`): the CPU twin against the
// independent double-precision reference (support/segmentation_reference.h), its effect on
// segment borders, and the GPU's cooperative kernel (through kmeansGpu and through its entry
// point on a caller's scratch) against the twin bit for bit.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/kmeans/kmeans_spatial_math.h"
#include "gpu/filters/slic/slic.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/kmeans_cases.h"
#include "support/segmentation_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace vp {
namespace {

using namespace kmtest;  // NOLINT(google-build-using-namespace): the suites' shared helpers

// Centres spread over the frame: colours from warmState(), positions on a diagonal lattice.
KmeansState spreadState(int width, int height) {
  KmeansState s = warmState();
  for (int j = 0; j < kMaxClusters; ++j) {
    s.positions[j][0] = float((j * 37 + 5) % 97) / 96.f * float(width - 1);
    s.positions[j][1] = float((j * 61 + 17) % 89) / 88.f * float(height - 1);
  }
  return s;
}

std::vector<test::ref::Feature> referenceCentres(const KmeansState& s, int k, double scale) {
  std::vector<test::ref::Feature> c(static_cast<size_t>(k));
  for (int j = 0; j < k; ++j)
    c[size_t(j)] = {s.centres[j][0], s.centres[j][1], s.centres[j][2], scale * s.positions[j][0],
                    scale * s.positions[j][1]};
  return c;
}

std::vector<test::ref::Feature> features(const HostImage& img, double weight) {
  return test::ref::rgbxyFeatures(reinterpret_cast<const uint8_t*>(img.data()), img.width(), img.height(),
                                  weight);
}

KmeansParams spatialParams(int k, float weight, KmeansInit init, int iterations, float epsilon = 0.f) {
  KmeansParams p;
  p.k = k;
  p.spatial = weight;
  p.init = init;
  p.maxIterations = iterations;
  p.epsilon = epsilon;
  return p;
}

// The twin's assignment (no iteration: the final pass against the given centres) is the
// reference's nearest centre, up to the float score's rounding (kmeans_spatial_math.h):
// where they differ, the twin's choice is within 0.5 squared levels of the nearest.
TEST(KmeansSpatial, AssignmentMatchesTheReference) {
  for (auto [w, h] : {std::pair{97, 61}, {331, 203}})
    for (Input kind : {Input::Random, Input::Natural})
      for (float weight : {0.25f, 1.f})
        for (int k : {3, 8, 17}) {
          SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " W " + std::to_string(weight) + " k " +
                       std::to_string(k) + (kind == Input::Random ? " random" : " natural"));
          const HostImage& img = input(w, h, kind);
          const KmeansState initial = spreadState(w, h);
          const Result r = runCpu(img, spatialParams(k, weight, KmeansInit::Warm, 0), initial);
          const double scale = test::ref::spatialScale(weight, w, h);
          const auto points = features(img, weight);
          const auto centres = referenceCentres(initial, k, scale);
          const std::vector<int> want = test::ref::assign(points, centres);
          size_t differing = 0;
          double worst = 0;
          for (size_t i = 0; i < points.size(); ++i) {
            if (r.labels[i] == want[i]) continue;
            ++differing;
            worst = std::max(worst, test::ref::distance2(points[i], centres[r.labels[i]]) -
                                        test::ref::distance2(points[i], centres[size_t(want[i])]));
          }
          EXPECT_LE(worst, 0.5) << differing << " pixels differ";
          EXPECT_LE(differing, points.size() / 1000) << "only near-ties may differ";
        }
}

// One Lloyd step: each centre moves to the mean of the features of its pixels (labels from
// the twin's own first assignment, which the test above checks), colour and position.
TEST(KmeansSpatial, UpdateIsTheMeanOfTheFeatures) {
  const int w = 211, h = 127, k = 6;
  const float weight = 0.75f;
  const HostImage& img = input(w, h, Input::Natural);
  const KmeansState initial = spreadState(w, h);
  const Result assigned = runCpu(img, spatialParams(k, weight, KmeansInit::Warm, 0), initial);
  const Result stepped = runCpu(img, spatialParams(k, weight, KmeansInit::Warm, 1), initial);
  EXPECT_EQ(stepped.state.iterations, 1);
  const double scale = test::ref::spatialScale(weight, w, h);
  const auto points = features(img, weight);
  const std::vector<int> labels(assigned.labels.begin(), assigned.labels.end());
  const auto want = test::ref::centresOf(points, labels, referenceCentres(initial, k, scale));
  for (int j = 0; j < k; ++j) {
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(stepped.state.centres[j][c], want[size_t(j)][c], 1e-4) << j << "." << c;
    EXPECT_NEAR(stepped.state.positions[j][0], want[size_t(j)][3] / scale, 1e-3) << j;
    EXPECT_NEAR(stepped.state.positions[j][1], want[size_t(j)][4] / scale, 1e-3) << j;
  }
}

// Pixels whose right or lower neighbour has another label: the segments' border length.
template <class Label>
size_t borderPixels(const std::vector<Label>& labels, int w, int h) {
  size_t n = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Label l = labels[size_t(y) * w + x];
      n += (x + 1 < w && labels[size_t(y) * w + x + 1] != l) ||
           (y + 1 < h && labels[size_t(y + 1) * w + x] != l);
    }
  return n;
}

// On a noisy frame, colour-only segments are speckled; with position they are compact:
// the total border length of spatial K-means, and of SLIC with as many superpixels, falls
// far below colour-only K-means at the same K.
TEST(KmeansSpatial, NoisyFrameGetsFarShorterBorders) {
  const int w = 320, h = 240, k = 8;
  const HostImage img = test::makeBlobs(w, h, 3, 24.0, 11);
  const Result colour = runCpu(img, spatialParams(k, 0.f, KmeansInit::KmeansPlusPlus, 20), KmeansState{});
  const Result spatial = runCpu(img, spatialParams(k, 1.f, KmeansInit::KmeansPlusPlus, 20), KmeansState{});
  SlicCpuScratch scratch(w, h);
  HostImage out(w, h);
  SlicParams slic;
  slic.superpixels = k;
  slicCpu(img.cview(), out.view(), SegmentView::Colour, slic, scratch);
  const size_t a = borderPixels(colour.labels, w, h), b = borderPixels(spatial.labels, w, h),
               c = borderPixels(scratch.regions(), w, h);
  RecordProperty("border_ratio", std::to_string(double(b) / double(a)));
  RecordProperty("slic_border_ratio", std::to_string(double(c) / double(a)));
  EXPECT_LT(double(b), 0.25 * double(a)) << "spatial " << b << " vs colour-only " << a << " border pixels";
  EXPECT_LT(double(c), 0.25 * double(a)) << "SLIC " << c << " vs colour-only " << a << " border pixels";
  EXPECT_GE(scratch.stats().regions, uint32_t(k / 2)) << "SLIC kept its superpixels apart";
}

// The colour-only K-means is what spatial = 0 runs: same bytes as a run without the option.
TEST(KmeansSpatial, ZeroWeightIsTheColourOnlyKmeans) {
  const HostImage& img = input(123, 77, Input::Natural);
  KmeansParams plain;
  plain.k = 7;
  plain.init = KmeansInit::KmeansPlusPlus;
  KmeansParams zero = plain;
  zero.spatial = 0.f;
  const Result a = runCpu(img, plain, KmeansState{}), b = runCpu(img, zero, KmeansState{});
  expectSame(b, a, plain.k);
  // And a weight does change the segmentation.
  KmeansParams some = plain;
  some.spatial = 2.f;
  EXPECT_NE(runCpu(img, some, KmeansState{}).labels, a.labels);
}

TEST(KmeansSpatial, RejectsBadWeights) {
  const HostImage& img = input(16, 9, Input::Random);
  for (float bad : {-0.5f, NAN, kMaxSpatialWeight * 2}) {
    KmeansState s;
    HostImage out(16, 9);
    EXPECT_THROW(
        kmeansCpu(img.cview(), out.view(), nullptr, s, spatialParams(4, bad, KmeansInit::Uniform, 3)),
        std::invalid_argument)
        << bad;
  }
}

// The per-step candidate test (kmeans_spatial_math.h) on random steps and centres, the
// kernel's box included: at every pixel of the step each dropped centre scores strictly
// above the best, so the argmin over the candidates is the full argmin; and it drops.
TEST(KmeansSpatial, CandidateTestDropsOnlyLosers) {
  std::mt19937 rng(7);
  auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  long dropped = 0, pixels = 0;
  for (const float weight : {0.05f, 0.5f, 1.f, 4.f, 100.f})
    for (int trial = 0; trial < 300; ++trial) {
      const int width = 1 + int(rng() % 4000), height = 1 + int(rng() % 3000), k = 2 + int(rng() % 15);
      const float s = km::spatialScale(weight, width, height), pmax = float(std::max(width, height));
      std::vector<km::SpatialCoeffs> c(static_cast<size_t>(k));
      for (auto& cj : c) {
        float f[5] = {uniform(0.f, 255.f), uniform(0.f, 255.f), uniform(0.f, 255.f), uniform(0.f, pmax),
                      uniform(0.f, pmax)};
        if (&cj != &c[0] && rng() % 4 == 0) {  // near the first centre: close calls
          f[0] = std::min(255.f, std::max(0.f, c[0].rgb.x / -2.f + uniform(-1.f, 1.f)));
          f[1] = std::min(255.f, std::max(0.f, c[0].rgb.y / -2.f + uniform(-1.f, 1.f)));
        }
        ASSERT_TRUE(km::spatialCentreInRange(f, width, height));
        cj = km::spatialCoeffs(f[0], f[1], f[2], f[3], f[4], s);
      }
      // A step: row y, columns xs .. xs + 127 (clipped), colours in a random sub-box.
      const int y = int(rng() % uint32_t(height)), xs = int(rng() % uint32_t((width + 127) / 128)) * 128;
      const int xl = std::min(xs + 127, width - 1), spread = 1 + int(rng() % 64);
      int base[3];
      for (int& b : base) b = int(rng() % uint32_t(256 - spread + 1));
      std::vector<std::array<int, 3>> px;
      km::SpatialBox box{{255.f, 255.f, 255.f}, {0.f, 0.f, 0.f}, 0.f, 0.f, 0.f};
      for (int x = xs; x <= xl; ++x) {
        std::array<int, 3> p{};
        for (int ch = 0; ch < 3; ++ch) {
          p[size_t(ch)] = base[ch] + int(rng() % uint32_t(spread));
          box.lo[ch] = std::min(box.lo[ch], float(p[size_t(ch)]));
          box.hi[ch] = std::max(box.hi[ch], float(p[size_t(ch)]));
        }
        px.push_back(p);
      }
      box.fxLo = km::spatialFeature(s, xs), box.fxHi = km::spatialFeature(s, xl);
      box.fy = km::spatialFeature(s, y);
      std::vector<bool> drop(static_cast<size_t>(k), false);
      for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b)
          if (a != b && km::spatialPairMinOverBox(km::spatialPairCoeffs(c[size_t(a)], c[size_t(b)]), box) >
                            km::spatialCandidateMargin(weight))
            drop[size_t(a)] = true;
      for (int x = xs; x <= xl; ++x) {
        const auto& p = px[size_t(x - xs)];
        const float fx = km::spatialFeature(s, x);
        std::vector<float> score(static_cast<size_t>(k));
        for (int j = 0; j < k; ++j)
          score[size_t(j)] =
              km::spatialScore(float(p[0]), float(p[1]), float(p[2]), fx, box.fy, c[size_t(j)]);
        const float best = *std::min_element(score.begin(), score.end());
        for (int j = 0; j < k; ++j)
          if (drop[size_t(j)]) {
            ASSERT_GT(score[size_t(j)], best) << "weight " << weight << " trial " << trial << " centre " << j;
            ++dropped;
          }
        ++pixels;
      }
    }
  EXPECT_GT(dropped, pixels) << "the test drops more than one centre a pixel on average";
}

TEST(KmeansSpatial, ChainOption) {
  const FilterElement e(kKmeansFilter);
  EXPECT_EQ(kmeansParamsOf(e).spatial, 0.f);
  KmeansParams p;
  p.spatial = 1.5f;
  EXPECT_EQ(kmeansParamsOf(kmeansElement(p)).spatial, 1.5f);
}

// ---- GPU against the twin ----

void expectSamePositions(const Result& got, const Result& want, int k) {
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < 2; ++c)
      EXPECT_TRUE(sameBits(got.state.positions[j][c], want.state.positions[j][c]))
          << "position " << j << "." << c << ": " << got.state.positions[j][c] << " vs "
          << want.state.positions[j][c];
}

struct SpatialCase {
  int w, h;
  Input input;
  int k;
  float weight;
  KmeansInit init;
  int iterations;
  float epsilon;
};

// The spatial entry point directly (support/kmeans_cases.h's runGpuWith), on the given
// scratch (detail::spatialScratchBytes()).
Result runSpatialEntry(const HostImage& img, const KmeansParams& p, const KmeansState& initial, void* scratch,
                       const detail::SpatialDevice& device = detail::spatialDevice()) {
  return runGpuWith(img, initial,
                    [&](ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state,
                        cudaStream_t stream, const KmeansState* warm) {
                      detail::kmeansSpatialGpu(in, out, labels, state, p, scratch, device, stream, warm);
                    });
}

class KmeansSpatialGpuVsCpu : public testing::TestWithParam<SpatialCase> {};

// The cooperative kernel through kmeansGpu (the filter's call) against one twin run, twice
// on the workspace's scratch (plain, then warm from another state when the case is warm), so
// the second run also checks what the first left in the scratch.
TEST_P(KmeansSpatialGpuVsCpu, Identical) {
  VP_REQUIRE_GPU();
  const SpatialCase& c = GetParam();
  const HostImage& img = input(c.w, c.h, c.input);
  const KmeansParams p = spatialParams(c.k, c.weight, c.init, c.iterations, c.epsilon);
  const KmeansState initial = spreadState(c.w, c.h);
  const Result want = runCpu(img, p, initial);
  KmeansWorkspace ws;
  const Result got = runGpu(img, p, initial, ws);
  expectSame(got, want, c.k);
  expectSamePositions(got, want, c.k);
  // As the pipeline runs it: the warm centres read from another state (kmeansGpu's warmFrom).
  if (c.init == KmeansInit::Warm) {
    KmeansState fromAfter;
    const Result piped = runGpu(img, p, initial, ws, &fromAfter);
    expectSame(piped, want, c.k);
    expectSamePositions(piped, want, c.k);
  } else {
    expectSame(runGpu(img, p, initial, ws), want, c.k);
  }
}

// The scratch contract: zero-filled before the first call, and every call leaves it zeroed
// (so each call on it gives the twin's result), including one that stops early and one with
// 0 iterations.
TEST(KmeansSpatialGpu, ScratchLeftZeroed) {
  VP_REQUIRE_GPU();
  const int w = 333, h = 187, k = 8;
  const HostImage& img = input(w, h, Input::Natural);
  const size_t bytes = detail::spatialScratchBytes();
  DeviceBuffer scratch(bytes);
  VP_CUDA_CHECK(cudaMemset(scratch.get(), 0, bytes));
  for (auto [iterations, epsilon] : {std::pair{20, 0.01f}, {20, 0.f}, {0, 0.f}, {3, 0.f}}) {
    SCOPED_TRACE(std::to_string(iterations) + " iterations, epsilon " + std::to_string(epsilon));
    const KmeansParams p = spatialParams(k, 1.f, KmeansInit::Uniform, iterations, epsilon);
    const Result want = runCpu(img, p, KmeansState{});
    const Result got = runSpatialEntry(img, p, KmeansState{}, scratch.get());
    expectSame(got, want, k);
    expectSamePositions(got, want, k);
    std::vector<unsigned char> left(bytes);
    VP_CUDA_CHECK(cudaMemcpy(left.data(), scratch.get(), bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::count(left.begin(), left.end(), 0), std::ptrdiff_t(bytes));
  }
}

// Grids of one and three blocks (every warp 7 to 20 steps a pass) with the warps' 32-bit
// sums flushed every step, every 2 and every 4 steps, and at the overflow bound alone: the
// mid-pass flushes (global atomics) add up to the twin's sums at every k bucket.
TEST(KmeansSpatialGpu, SmallGridsAndFlushes) {
  VP_REQUIRE_GPU();
  const int w = 401, h = 157;  // 628 steps: small enough for the sanitizers
  const HostImage& img = input(w, h, Input::Natural);
  const size_t bytes = detail::spatialScratchBytes();
  DeviceBuffer scratch(bytes);
  VP_CUDA_CHECK(cudaMemset(scratch.get(), 0, bytes));
  for (int k : {3, 8, 12, 32})
    for (auto [sms, flushSteps] : {std::pair{1, 1}, {1, 3}, {3, 2}, {1, 0}, {3, 4}}) {
      SCOPED_TRACE("k " + std::to_string(k) + ", " + std::to_string(sms) + " SMs, flush " +
                   std::to_string(flushSteps));
      detail::SpatialDevice device = detail::spatialDevice();
      device.smCount = sms;
      device.flushSteps = flushSteps;
      const KmeansParams p = spatialParams(k, 1.f, KmeansInit::Uniform, 6, 0.f);
      const Result want = runCpu(img, p, KmeansState{});
      const Result got = runSpatialEntry(img, p, KmeansState{}, scratch.get(), device);
      expectSame(got, want, k);
      expectSamePositions(got, want, k);
    }
}

// out == in (the pipeline runs a colour-view K-means in place): every block has read its
// pixels, and a uniform start's centre pixels, before any block writes.
TEST(KmeansSpatialGpu, InPlaceEqualsTheTwin) {
  VP_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{333, 187}, {97, 61}})
    for (auto [init, iterations] :
         {std::pair{KmeansInit::Uniform, 0}, {KmeansInit::Uniform, 20}, {KmeansInit::KmeansPlusPlus, 20}}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " init " + std::to_string(int(init)) + ", " +
                   std::to_string(iterations) + " iterations");
      const HostImage& img = input(w, h, Input::Natural);
      const KmeansParams p = spatialParams(8, 1.f, init, iterations, 0.f);
      const Result want = runCpu(img, p, KmeansState{});
      KmeansWorkspace ws;
      DeviceImage d = test::upload(img);
      DeviceBuffer state(sizeof(KmeansState));
      VP_CUDA_CHECK(cudaMemset(state.get(), 0, sizeof(KmeansState)));
      kmeansGpu(d.view(), d.view(), nullptr, state.as<KmeansState>(), p, ws, nullptr);
      EXPECT_EQ(test::compare(test::download(d), want.out).differing, 0u);
    }
}

std::vector<SpatialCase> spatialCases() {
  std::vector<SpatialCase> cases;
  for (auto [w, h] : {std::pair{1, 1}, {1, 37}, {45, 1}, {33, 17}, {97, 61}, {640, 480}})
    for (Input in : {Input::Random, Input::Natural})
      for (int k : {1, 3, 8, 17, 32})
        for (KmeansInit init : {KmeansInit::Uniform, KmeansInit::KmeansPlusPlus, KmeansInit::Warm})
          cases.push_back({w, h, in, k, 1.f, init, 20, 0.01f});
  for (float weight : {0.1f, 0.5f, 4.f, kMaxSpatialWeight})
    cases.push_back({211, 127, Input::Natural, 8, weight, KmeansInit::KmeansPlusPlus, 20, 0.f});
  for (auto [w, h] : {std::pair{1920, 1080}, {1921, 1081}, {3840, 2160}})
    for (int k : {2, 8, 32}) cases.push_back({w, h, Input::Natural, k, 1.f, KmeansInit::Uniform, 20, 0.f});
  cases.push_back({1920, 1080, Input::Random, 8, 1.f, KmeansInit::Warm, 0, 0.f});
  cases.push_back({7680, 4320, Input::Natural, 8, 1.f, KmeansInit::Uniform, 3, 0.f});  // 8K: the largest sums
  return cases;
}

std::string spatialCaseName(const testing::TestParamInfo<SpatialCase>& info) {
  const SpatialCase& c = info.param;
  std::string weight = std::to_string(int(std::lround(c.weight * 100)));
  return std::to_string(c.w) + "x" + std::to_string(c.h) +
         (c.input == Input::Random ? "_random" : "_natural") + "_k" + std::to_string(c.k) + "_w" + weight +
         "_" + initName(c.init) + "_it" + std::to_string(c.iterations) + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(All, KmeansSpatialGpuVsCpu, testing::ValuesIn(spatialCases()), spatialCaseName);

}  // namespace
}  // namespace vp
