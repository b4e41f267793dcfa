// Bilateral filter: the CPU twin against a double-precision reference written from the
// definition (bilateral.h; tolerance stated up front: |out - D| <= 0.55 levels at every
// pixel and channel, D the exact quotient, which docs/design/bilateral.md proves and which
// implies the contract's 1 level), the shared weight arithmetic against exp2, the kernel's
// per-thread phases run on the CPU against the twin byte for byte, the GPU against the
// twin byte for byte (every columns-per-thread variant), and the argument checks.
#include "gpu/filters/bilateral/bilateral.h"
#include "gpu/filters/bilateral/bilateral_math.h"
#include "gpu/filters/bilateral/bilateral_tiles.h"
#include "support/bilateral_reference.h"
#include "support/borders.h"
#include "support/filter_args.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/sub_views.h"
#include "support/view_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vp {
namespace {

using test::kBorderModes;

// The bound the design proves for |out - D| (0.5 from the final rounding, < 0.04 from the
// float arithmetic); the contract's 1 level follows.
constexpr double kBound = 0.55;

std::string describe(int w, int h, const char* image, const BilateralParams& p) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + image + " r=" + std::to_string(p.radius) +
         " s=" + std::to_string(p.sigmaSpace) + " v=" + std::to_string(p.sigmaRange) + " " +
         test::borderName(p.border);
}

HostImage makeCase(const char* kind, int w, int h, uint64_t seed) {
  return std::string(kind) == "random" ? test::makeRandom(w, h, seed) : test::makeNatural(w, h, seed);
}

// Largest |out - D| over the image (1000 when an alpha differs), and where: D from the
// definition in double (support/bilateral_reference.h, no code shared with the filter).
struct Deviation {
  double worst = 0;
  std::string where;
};
Deviation deviation(const HostImage& out, const HostImage& in, const BilateralParams& p) {
  Deviation d;
  d.worst = test::ref::bilateralError(out, in, p, &d.where);
  return d;
}

HostImage cpuBilateral(const HostImage& in, const BilateralParams& p, BilateralCpuScratch& scratch) {
  HostImage out(in.width(), in.height());
  test::poison(out);
  bilateralCpu(in.cview(), out.view(), p, scratch);
  return out;
}

// (S, V) pairs: the defaults, the narrowest range (weights underflow), the widest, between.
const std::vector<std::pair<float, float>> kSigmas = {{3.f, 30.f}, {0.5f, 1.f}, {20.f, 255.f}, {1.5f, 10.f}};

TEST(BilateralCpu, WithinBoundOfReferenceOnSmallImages) {
  const std::pair<int, int> sizes[] = {{1, 1}, {7, 5}, {33, 17}};
  double largest = 0;
  for (auto [w, h] : sizes) {
    BilateralCpuScratch scratch(w, h);
    for (const char* image : {"random", "natural"}) {
      const HostImage in = makeCase(image, w, h, 11);
      for (BorderMode mode : kBorderModes)
        for (int r : {1, 2, 5, 15})
          for (auto [s, v] : kSigmas) {
            const BilateralParams p{r, s, v, mode};
            const Deviation d = deviation(cpuBilateral(in, p, scratch), in, p);
            ASSERT_LE(d.worst, kBound) << describe(w, h, image, p) << ": " << d.where;
            largest = std::max(largest, d.worst);
          }
    }
  }
  std::printf("  largest |out - D|: %.4f\n", largest);
}

TEST(BilateralCpu, WithinBoundOfReferenceOnLargerImages) {
  const int w = 127, h = 65;
  BilateralCpuScratch scratch(w, h);
  double largest = 0;
  for (const char* image : {"random", "natural"}) {
    const HostImage in = makeCase(image, w, h, 5);
    for (const BilateralParams& p : {BilateralParams{}, BilateralParams{3, 2.f, 50.f, BorderMode::Zero},
                                     BilateralParams{7, 5.f, 20.f, BorderMode::Reflect},
                                     BilateralParams{4, 0.8f, 120.f, BorderMode::Wrap}}) {
      const Deviation d = deviation(cpuBilateral(in, p, scratch), in, p);
      ASSERT_LE(d.worst, kBound) << describe(w, h, image, p) << ": " << d.where;
      largest = std::max(largest, d.worst);
    }
  }
  std::printf("  largest |out - D|: %.4f\n", largest);
}

// A flat image stays flat (sum w c / sum w = c to 1e-4); a step edge survives a small
// range sigma and is smoothed by a large one.
TEST(BilateralCpu, FlatStaysFlatAndEdgesSurvive) {
  const int w = 40, h = 24;
  BilateralCpuScratch scratch(w, h);
  HostImage flat(w, h), step(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      flat.at(x, y) = make_uchar4(77, 200, 13, uint8_t(x + y));
      step.at(x, y) = x < w / 2 ? make_uchar4(20, 20, 20, 255) : make_uchar4(220, 220, 220, 255);
    }
  for (BorderMode mode : {BorderMode::Replicate, BorderMode::Reflect, BorderMode::Wrap})
    EXPECT_EQ(test::compare(cpuBilateral(flat, BilateralParams{9, 4.f, 5.f, mode}, scratch), flat).differing,
              0u);
  const HostImage kept = cpuBilateral(step, BilateralParams{5, 3.f, 10.f}, scratch);
  EXPECT_EQ(test::compare(kept, step).differing, 0u);
  const HostImage blurred = cpuBilateral(step, BilateralParams{5, 3.f, 255.f}, scratch);
  EXPECT_GT(int(blurred.at(w / 2 - 1, h / 2).x), 40);
  EXPECT_LT(int(blurred.at(w / 2, h / 2).x), 200);
}

// ---- the shared arithmetic ---------------------------------------------------------------

// pow2 = 2^x within the polynomial's relative error (7.4843e-5, checked exhaustively over
// the reduced argument: docs/design/bilateral.md), here on 2 M points of [-125, 0]; below
// the floor, 2^-125 times the polynomial at 0, a normal float.
TEST(BilateralMath, Pow2WithinBound) {
  double worst = 0;
  for (int i = 0; i <= 2'000'000; ++i) {
    const float x = -125.f * float(i) / 2'000'000.f;
    worst = std::max(worst, std::fabs(double(bilateral::pow2(x)) / std::exp2(double(x)) - 1));
  }
  EXPECT_LT(worst, 7.4843e-5);
  const float floor = bilateral::pow2(-1000.f);
  EXPECT_NEAR(double(floor) / std::exp2(-125.0), 1.0, 1e-4);
  EXPECT_EQ(std::fpclassify(floor), FP_NORMAL);
}

// Every weight the tables give (every d2 = 0..195075 at every offset pair |dx|, |dy| <= r)
// against exp(-(dx^2 + dy^2) / 2S^2 - d2 / 2V^2) in double: within the design's relative
// bound kWeightBound, or (below 2^-100: the clamp and underflow) within 2^-124 absolute,
// which is what the 1-level proof uses. The settings
// include small V and S, where a wrong entry, index or factor is off by percents.
TEST(BilateralMath, TableWeightsWithinBound) {
  constexpr double kWeightBound = 1.6218e-4;
  const BilateralParams settings[] = {
      {5, 3.f, 30.f}, {15, 0.5f, 1.f}, {10, 20.f, 255.f}, {3, 1.5f, 10.f}, {7, 7.3f, 4.2f}};
  std::vector<float> high(bilateral::kHighEntries);
  for (const BilateralParams& p : settings) {
    const bilateral::Tables tab = bilateral::makeTables(p);
    const int r = p.radius;
    for (int k = 0; k < bilateral::kHighEntries; ++k)
      high[size_t(k)] = bilateral::highEntry(k, tab.rangeScale);
    std::vector<float> low(size_t(bilateral::lowSpatialEntries(r)));
    for (int e = 0; e < bilateral::lowSpatialEntries(r); ++e)
      low[size_t(e)] = bilateral::lowSpatialEntry(e, r, tab);
    const double s2 = 2.0 * double(p.sigmaSpace) * p.sigmaSpace,
                 v2 = 2.0 * double(p.sigmaRange) * p.sigmaRange;
    double worst = 0;
    for (int ay = 0; ay <= r; ++ay)
      for (int ax = 0; ax <= r; ++ax)
        for (uint32_t d2 = 0; d2 <= uint32_t(bilateral::kMaxSquaredDistance); ++d2) {
          const float got =
              mulRn(high[bilateral::highIndex(d2)],
                    low[size_t(bilateral::lowSpatialBase(r, ay, ax)) + bilateral::lowIndex(d2)]);
          const double want = std::exp(-double(ax * ax + ay * ay) / s2 - double(d2) / v2);
          const double e = std::fabs(double(got) / want - 1);
          if (want >= std::exp2(-100.0)) worst = std::max(worst, e);
          ASSERT_TRUE(e <= kWeightBound ||
                      (want < std::exp2(-100.0) && std::fabs(double(got) - want) <= std::exp2(-124.0)))
              << "r=" << r << " s=" << p.sigmaSpace << " v=" << p.sigmaRange << " d2=" << d2 << " ax=" << ax
              << " ay=" << ay << ": " << got << " against " << want;
        }
    std::printf("  r=%d s=%g v=%g: largest relative weight error %.4g\n", r, p.sigmaSpace, p.sigmaRange,
                worst);
  }
}

// The staged sample: R, G, B exact as floats, the word (alpha zero) as the fourth float's
// bits; squaredDistance of two words the integer the definition gives.
TEST(BilateralMath, PackedDistanceIsExact) {
  test::SplitMix64 rng(3);
  const uint32_t extremes[] = {0x000000u, 0xFFFFFFu, 0x00FF00u, 0xFF00FFu, 0x0000FFu, 0x808080u, 0xFF123456u};
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (uint32_t a : extremes)
    for (uint32_t b : extremes) pairs.push_back({a, b});
  for (int i = 0; i < 1'000'000; ++i) pairs.push_back({uint32_t(rng.next()), uint32_t(rng.next())});
  for (auto [a, b] : pairs) {
    const float4 qa = bilateral::sampleOf(a), qb = bilateral::sampleOf(b);
    ASSERT_EQ(bitsOf(qa.w), a & 0xFFFFFFu);
    ASSERT_EQ(qa.x, float(a & 0xFF));
    ASSERT_EQ(qa.y, float((a >> 8) & 0xFF));
    ASSERT_EQ(qa.z, float((a >> 16) & 0xFF));
    int want = 0;
    for (int c = 0; c < 3; ++c) {
      const int d = int((a >> (8 * c)) & 0xFF) - int((b >> (8 * c)) & 0xFF);
      want += d * d;
    }
    ASSERT_EQ(bilateral::squaredDistance(bitsOf(qa.w), bitsOf(qb.w)), uint32_t(want))
        << std::hex << a << " " << b;
  }
}

// ---- the kernel's phases on the CPU --------------------------------------------------------

// Every block and thread of the kernel at radius R, K columns per thread, run in turn
// (accesses bounds-checked by tile_access.h; shared memory poisoned per block).
template <int R, int K>
HostImage tilesOnHost(const HostImage& in, const BilateralParams& p) {
  using Layout = bilateral::BilateralLayout<R, K>;
  const int w = in.width(), h = in.height();
  HostImage out(w, h);
  test::poison(out);
  const bilateral::Tables tab = bilateral::makeTables(p);
  std::vector<float4> smem((Layout::kBytes + sizeof(float4) - 1) / sizeof(float4));
  for (int by = 0; by < (h + bilateral::kThreadRows - 1) / bilateral::kThreadRows; ++by)
    for (int bx = 0; bx < (w + Layout::kTileCols - 1) / Layout::kTileCols; ++bx) {
      std::fill(smem.begin(), smem.end(), make_float4(1e30f, 1e30f, 1e30f, 1e30f));
      const bilateral::BilateralBlock<R, K> b(smem.data(), bx, by);
      for (int t = 0; t < bilateral::kThreads; ++t)
        bilateral::bilateralStage(b, in.cview(), p.border, tab, t);
      for (int t = 0; t < bilateral::kThreads; ++t)
        bilateral::bilateralOutputs(b, in.cview(), out.view(), tab, t);
    }
  return out;
}

using TilesFn = HostImage (*)(const HostImage&, const BilateralParams&);
template <int... I>
TilesFn tilesFor(int r, int variant, std::integer_sequence<int, I...>) {
  constexpr int kVariants = int(std::size(kBilateralColumnChoices));
  constexpr TilesFn kTable[] = {
      &tilesOnHost<I / kVariants + kMinBilateralRadius, kBilateralColumnChoices[I % kVariants]>...};
  return kTable[(r - kMinBilateralRadius) * kVariants + variant];
}
TilesFn tilesFor(int r, int variant) {
  constexpr int n = (kMaxBilateralRadius - kMinBilateralRadius + 1) * int(std::size(kBilateralColumnChoices));
  return tilesFor(r, variant, std::make_integer_sequence<int, n>{});
}

TEST(BilateralTilesOnHost, KernelMatchesCpuTwin) {
  const std::pair<int, int> sizes[] = {{1, 1}, {7, 5}, {33, 17}, {70, 41}};
  for (auto [w, h] : sizes) {
    BilateralCpuScratch scratch(w, h);
    const HostImage in = makeCase("random", w, h, 17);
    for (BorderMode mode : kBorderModes)
      for (int r : {1, 2, 3, 5, 8, 15}) {
        const BilateralParams p{r, 2.5f, 40.f, mode};
        const HostImage want = cpuBilateral(in, p, scratch);
        for (int v = 0; v < int(std::size(kBilateralColumnChoices)); ++v) {
          const test::ImageDiff d = test::compare(tilesFor(r, v)(in, p), want);
          ASSERT_EQ(d.differing, 0u) << describe(w, h, "random", p)
                                     << " columns=" << kBilateralColumnChoices[v] << ": " << d.first;
        }
      }
  }
}

// ---- argument checks ------------------------------------------------------------------------

// Both backends reject the same arguments; `run` calls one backend on views of a / b.
template <class Bilateral>
void expectArgumentChecks(RgbaView a, RgbaView b, Bilateral&& bilateral) {
  auto run = [&](ConstRgbaView in, RgbaView out, BilateralParams p) { bilateral(in, out, p); };
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(run(a, b, BilateralParams{0}), std::invalid_argument);
  EXPECT_THROW(run(a, b, BilateralParams{kMaxBilateralRadius + 1}), std::invalid_argument);
  for (float s : {0.49f, 20.01f, nan, inf, -3.f})
    EXPECT_THROW(run(a, b, BilateralParams{2, s}), std::invalid_argument) << "sigma_s " << s;
  for (float v : {0.99f, 255.5f, nan, inf, 0.f})
    EXPECT_THROW(run(a, b, BilateralParams{2, 3.f, v}), std::invalid_argument) << "sigma_r " << v;
  EXPECT_THROW(run(a, b, BilateralParams{2, 3.f, 30.f, static_cast<BorderMode>(7)}), std::invalid_argument);
  test::expectViewChecks(a, b, [&](ConstRgbaView in, RgbaView out) { run(in, out, BilateralParams{2}); });
  EXPECT_NO_THROW(run(a, b, BilateralParams{kMaxBilateralRadius, 0.5f, 1.f, BorderMode::Wrap}));
  EXPECT_NO_THROW(run(a, b, BilateralParams{kMinBilateralRadius, 20.f, 255.f, BorderMode::Zero}));
}

TEST(BilateralArgs, CpuRejectsBadArguments) {
  test::expectCpuArgumentChecks<BilateralParams, BilateralCpuScratch>(
      kMaxBilateralDimension, [](RgbaView a, RgbaView b, auto&& run) { expectArgumentChecks(a, b, run); },
      bilateralCpu);
}

TEST(BilateralArgs, GpuRejectsBadArguments) {
  VP_REQUIRE_GPU();
  DeviceImage a = test::upload(test::makeRandom(16, 8, 1)), b(16, 8), big(17, 9), big2(17, 9);
  BilateralWorkspace ws(16, 8);
  Stream stream;
  expectArgumentChecks(a.view(), b.view(), [&](ConstRgbaView in, RgbaView out, const BilateralParams& p) {
    bilateralGpu(in, out, p, ws, stream);
  });
  EXPECT_THROW(bilateralGpu(big.view(), big2.view(), BilateralParams{}, ws, stream), std::invalid_argument);
  for (int columns : {-1, 1, 2, 16})
    EXPECT_THROW(detail::bilateralGpuTuned(a.view(), b.view(), BilateralParams{}, {columns}, ws, stream),
                 std::invalid_argument)
        << columns << " columns";
  EXPECT_THROW(BilateralWorkspace(0, 5), std::invalid_argument);
  EXPECT_THROW(BilateralWorkspace(kMaxBilateralDimension + 1, 5), std::invalid_argument);
  stream.synchronize();
}

// ---- the GPU against the twin ---------------------------------------------------------------

struct GpuCase {
  std::vector<std::pair<int, int>> sizes;
  std::vector<int> radii;
  std::vector<const char*> images;
  std::vector<BorderMode> modes;
  std::vector<std::pair<float, float>> sigmas = {{3.f, 30.f}};
  bool allVariants = true;  // false: the launcher's choice only
};

void expectGpuMatchesCpu(const GpuCase& c) {
  Stream stream;
  for (auto [w, h] : c.sizes) {
    BilateralWorkspace ws(w, h);
    BilateralCpuScratch scratch(w, h);
    DeviceImage out(w, h);
    for (const char* image : c.images) {
      const HostImage in = makeCase(image, w, h, 29);
      const DeviceImage din = test::upload(in);
      for (BorderMode mode : c.modes)
        for (int r : c.radii)
          for (auto [s, v] : c.sigmas) {
            const BilateralParams p{r, s, v, mode};
            const HostImage want = cpuBilateral(in, p, scratch);
            std::vector<int> variants = {0};  // 0: bilateralGpu itself
            if (c.allVariants)
              variants.insert(variants.end(), std::begin(kBilateralColumnChoices),
                              std::end(kBilateralColumnChoices));
            for (int columns : variants) {
              test::poison(out);
              if (columns == 0)
                bilateralGpu(din.view(), out.view(), p, ws, stream);
              else
                detail::bilateralGpuTuned(din.view(), out.view(), p, {columns}, ws, stream);
              stream.synchronize();
              const test::ImageDiff d = test::compare(test::download(out), want);
              ASSERT_EQ(d.differing, 0u)
                  << describe(w, h, image, p) << " columns=" << columns << ": " << d.first;
            }
          }
    }
  }
}

TEST(BilateralGpu, MatchesCpuOnSmallImages) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{1, 1}, {7, 5}, {33, 17}, {127, 65}, {333, 197}},
                       {1, 2, 3, 5, 7, 8, 15},
                       {"random", "natural"},
                       {std::begin(kBorderModes), std::end(kBorderModes)},
                       kSigmas});
}

TEST(BilateralGpu, MatchesCpuAtEveryRadius) {
  VP_REQUIRE_GPU();
  std::vector<int> all;
  for (int r = kMinBilateralRadius; r <= kMaxBilateralRadius; ++r) all.push_back(r);
  expectGpuMatchesCpu({{{67, 45}}, all, {"random"}, {BorderMode::Replicate, BorderMode::Zero}});
}

TEST(BilateralGpu, MatchesCpuOnLargeImages) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu(
      {{{1921, 1081}}, {5}, {"natural", "random"}, {std::begin(kBorderModes), std::end(kBorderModes)}});
  expectGpuMatchesCpu(
      {{{1921, 1081}}, {2, 9}, {"natural"}, {BorderMode::Replicate}, {{3.f, 30.f}, {6.f, 12.f}}});
}

TEST(BilateralGpu, MatchesCpuIn4K) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{3840, 2160}}, {5}, {"natural"}, {BorderMode::Replicate}});
  expectGpuMatchesCpu({{{3840, 2160}}, {3}, {"random"}, {BorderMode::Reflect}, {{1.f, 60.f}}, false});
}

// Sub-views: rows that start mid-allocation, a pitch wider than the row, the input and
// output taken from one allocation without overlapping.
TEST(BilateralGpu, WorksOnSubViews) {
  VP_REQUIRE_GPU();
  const test::SubViewCase views(test::makeNatural(test::SubViewCase::kWidth, test::SubViewCase::kHeight, 7));
  BilateralWorkspace ws(test::SubViewCase::kWidth, test::SubViewCase::kHeight);
  BilateralCpuScratch scratch(test::SubViewCase::kViewWidth, test::SubViewCase::kViewHeight);
  Stream stream;
  for (int r : {1, 4, 6, 12}) {
    const BilateralParams p{r, 3.f, 25.f, BorderMode::Reflect};
    bilateralGpu(views.in(), views.out(), p, ws, stream);
    stream.synchronize();
    EXPECT_EQ(views.mismatches(cpuBilateral(views.sub(), p, scratch)), 0u) << "r=" << r;
  }
}

// Calls queued back to back on one stream (different parameters, one workspace, no
// synchronisation between them) each give the twin's bytes; a repeated call the same bytes.
TEST(BilateralGpu, BackToBackCalls) {
  VP_REQUIRE_GPU();
  const int w = 643, h = 361;
  const HostImage in = test::makeNatural(w, h, 41);
  const DeviceImage din = test::upload(in);
  const BilateralParams params[] = {{5, 3.f, 30.f, BorderMode::Replicate},
                                    {11, 7.f, 80.f, BorderMode::Wrap},
                                    {1, 0.5f, 1.f, BorderMode::Zero},
                                    {5, 3.f, 30.f, BorderMode::Replicate}};
  std::vector<DeviceImage> outs;
  for (size_t i = 0; i < std::size(params); ++i) {
    outs.emplace_back(w, h);
    test::poison(outs.back());
  }
  BilateralWorkspace ws(w, h);
  BilateralCpuScratch scratch(w, h);
  Stream stream;
  for (size_t i = 0; i < std::size(params); ++i)
    bilateralGpu(din.view(), outs[i].view(), params[i], ws, stream);
  stream.synchronize();
  for (size_t i = 0; i < std::size(params); ++i) {
    const test::ImageDiff d = test::compare(test::download(outs[i]), cpuBilateral(in, params[i], scratch));
    EXPECT_EQ(d.differing, 0u) << describe(w, h, "natural", params[i]) << ": " << d.first;
  }
  EXPECT_EQ(test::compare(test::download(outs[0]), test::download(outs[3])).differing, 0u);
}

}  // namespace
}  // namespace vp
