// Box blur: the CPU twin against a plain O(r^2) window mean, the GPU against the twin
// (exact equality, no tolerance), and the argument checks of both backends.
#include "gpu/filters/blur/blur_strips.h"
#include "gpu/filters/blur/box_blur.h"
#include "gpu/filters/blur/box_blur_math.h"
#include "support/blur_reference.h"
#include "support/borders.h"
#include "support/filter_args.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/view_checks.h"
#include "support/warp_strips_on_host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {
namespace {

using test::ref::extend;
using test::ref::naiveBlur;
using test::ref::naivePixel;

using test::kBorderModes;

std::string describe(int w, int h, bool natural, const BlurParams& p) {
  return std::to_string(w) + "x" + std::to_string(h) + (natural ? " natural" : " random") +
         " r=" + std::to_string(p.radius) + " passes=" + std::to_string(p.passes) + " " +
         test::borderName(p.border);
}

HostImage makeInput(int w, int h, bool natural, uint64_t seed) {
  return natural ? test::makeNatural(w, h, seed) : test::makeRandom(w, h, seed);
}

HostImage cpuBlur(const HostImage& in, const BlurParams& p, BoxBlurCpuScratch& scratch) {
  HostImage out(in.width(), in.height());
  test::poison(out);
  boxBlurCpu(in.cview(), out.view(), p, scratch);
  return out;
}

bool samePixel(uchar4 a, uchar4 b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

// Coordinates worth checking on a long axis: the bands where the window meets a border,
// plus a coarse stride through the middle.
std::vector<int> sampleAxis(int n, int r) {
  std::set<int> s;
  for (int c : {0, r, n - 1 - r, n - 1})
    for (int d = -3; d <= 3; ++d)
      if (c + d >= 0 && c + d < n) s.insert(c + d);
  for (int i = 0; i < n; i += 131) s.insert(i);
  return {s.begin(), s.end()};
}

TEST(BoxBlurCpu, MatchesNaiveOnSmallImages) {
  struct Size {
    int w, h;
    std::vector<int> radii;
  };
  const Size sizes[] = {{1, 1, {0, 1, 2, 7, 100, 128}},
                        {2, 3, {0, 1, 2, 5, 7, 100}},
                        {7, 5, {0, 1, 2, 7, 100, 128}},
                        {37, 23, {0, 1, 2, 7, 19, 30}}};
  for (const Size& sz : sizes) {
    BoxBlurCpuScratch scratch(sz.w, sz.h);
    for (bool natural : {false, true}) {
      const HostImage in = makeInput(sz.w, sz.h, natural, 11);
      for (BorderMode mode : kBorderModes)
        for (int r : sz.radii)
          for (int passes = 1; passes <= 3; ++passes) {
            const BlurParams p{r, passes, mode};
            const test::ImageDiff d = test::compare(cpuBlur(in, p, scratch), naiveBlur(in, p));
            ASSERT_EQ(d.differing, 0u) << describe(sz.w, sz.h, natural, p) << ": " << d.first;
          }
    }
  }
}

TEST(BoxBlurCpu, MatchesNaiveOnLargeImagesSampled) {
  for (auto [w, h] : {std::pair{1921, 1081}, std::pair{1920, 1080}}) {
    BoxBlurCpuScratch scratch(w, h);
    for (bool natural : {false, true}) {
      const HostImage in = makeInput(w, h, natural, 23);
      for (BorderMode mode : kBorderModes)
        for (int r : {0, 1, 2, 7, 100}) {
          const BlurParams p{r, 1, mode};
          const HostImage out = cpuBlur(in, p, scratch);
          const std::vector<int> xs = sampleAxis(w, r), ys = sampleAxis(h, r);
          for (int y : ys)
            for (int x : xs) {
              const uchar4 want = naivePixel(in, x, y, r, mode);
              ASSERT_TRUE(samePixel(out.at(x, y), want))
                  << describe(w, h, natural, p) << " at " << x << "," << y;
            }
        }
    }
  }
}

TEST(BoxBlurCpu, PassesAreRepeatedSinglePasses) {
  const int w = 1921, h = 1081;
  BoxBlurCpuScratch scratch(w, h);
  const HostImage in = test::makeNatural(w, h, 5);
  for (BorderMode mode : kBorderModes)
    for (int r : {2, 7, 100}) {
      // Passes 2 and 3 against chained single passes (a single pass is checked against the
      // definition by MatchesNaiveOnLargeImagesSampled: comparing it with itself here proved nothing).
      HostImage chained = cpuBlur(in, BlurParams{r, 1, mode}, scratch);
      for (int passes = 2; passes <= 3; ++passes) {
        chained = cpuBlur(chained, BlurParams{r, 1, mode}, scratch);
        const BlurParams p{r, passes, mode};
        const test::ImageDiff d = test::compare(cpuBlur(in, p, scratch), chained);
        ASSERT_EQ(d.differing, 0u) << describe(w, h, true, p) << ": " << d.first;
      }
    }
}

TEST(BoxBlurCpu, KeepsAlphaAndConstantImages) {
  const int w = 64, h = 48;
  BoxBlurCpuScratch scratch(w, h);
  HostImage in = test::makeRandom(w, h, 3);
  const HostImage out = cpuBlur(in, BlurParams{9, 3, BorderMode::Reflect}, scratch);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ASSERT_EQ(out.at(x, y).w, in.at(x, y).w) << x << "," << y;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) in.at(x, y) = make_uchar4(200, 17, 255, uint8_t(x));
  for (BorderMode mode : {BorderMode::Replicate, BorderMode::Reflect, BorderMode::Wrap}) {
    const HostImage flat = cpuBlur(in, BlurParams{kMaxBlurRadius, 2, mode}, scratch);
    EXPECT_EQ(test::compare(flat, in).differing, 0u) << int(mode);
  }
}

TEST(BoxBlurMath, ExtendIndexFoldsLikeTheDefinition) {
  for (BorderMode mode : kBorderModes)
    for (int n = 1; n <= 9; ++n)
      for (int k = -300; k <= 300; ++k)
        ASSERT_EQ(extendIndex(k, n, mode), extend(k, n, mode)) << n << " " << k;
}

TEST(BoxBlurMath, DividerIsExactRoundHalfUp) {
  // Every radius; the sums just below and at each rounding boundary, plus a stride.
  // (An exhaustive check of every sum 0..255*(2r+1)^2 for every r also passed.)
  for (int r = 0; r <= kMaxBlurRadius; ++r) {
    const uint32_t area = uint32_t(2 * r + 1) * uint32_t(2 * r + 1);
    const blur::Divider dv = blur::makeDivider(area);
    for (uint32_t q = 0; q <= 255; ++q)
      for (uint32_t s : {q * area, q * area + area / 2 - 1, q * area + area / 2, q * area + area - 1}) {
        if (s > 255 * area || (area == 1 && s != q)) continue;
        ASSERT_EQ(blur::roundDiv(s, dv), (s + area / 2) / area) << "r=" << r << " s=" << s;
      }
    for (uint32_t s = 0; s <= 255 * area; s += 977) ASSERT_EQ(blur::roundDiv(s, dv), (s + area / 2) / area);
  }
}

TEST(BoxBlurMath, HighDividerIsExactRoundHalfUp) {
  // The kernels' form (the quotient from the high word): the same sums as above for every
  // radius >= 1, and every sum where the shift was raised (areas up to 64: r <= 3).
  for (int r = 1; r <= kMaxBlurRadius; ++r) {
    const uint32_t area = uint32_t(2 * r + 1) * uint32_t(2 * r + 1);
    const blur::Divider dv = blur::makeHighDivider(area);
    ASSERT_GE(dv.shift, 32u) << "r=" << r;
    auto expectExact = [&](uint32_t s) {
      ASSERT_EQ(blur::roundDivHigh(s, dv), (s + area / 2) / area) << "r=" << r << " s=" << s;
    };
    for (uint32_t q = 0; q <= 255; ++q)
      for (uint32_t s : {q * area, q * area + area / 2 - 1, q * area + area / 2, q * area + area - 1})
        if (s <= 255 * area) expectExact(s);
    const uint32_t stride = area <= 64 ? 1 : 977;
    for (uint32_t s = 0; s <= 255 * area; s += stride) expectExact(s);
  }
}

// Both backends reject the same arguments; `blur` runs one backend on views of `a`/`b`.
template <class Blur>
void expectArgumentChecks(RgbaView a, RgbaView b, Blur&& blur) {
  auto run = [&](ConstRgbaView in, RgbaView out, BlurParams p) { blur(in, out, p); };
  EXPECT_THROW(run(a, b, BlurParams{-1, 1}), std::invalid_argument);
  EXPECT_THROW(run(a, b, BlurParams{kMaxBlurRadius + 1, 1}), std::invalid_argument);
  EXPECT_THROW(run(a, b, BlurParams{3, 0}), std::invalid_argument);
  EXPECT_THROW(run(a, b, BlurParams{3, kMaxBlurPasses + 1}), std::invalid_argument);
  EXPECT_THROW(run(a, b, BlurParams{3, 1, static_cast<BorderMode>(7)}), std::invalid_argument);
  test::expectViewChecks(a, b, [&](ConstRgbaView in, RgbaView out) { run(in, out, BlurParams{3, 1}); });
  EXPECT_NO_THROW(run(a, b, BlurParams{kMaxBlurRadius, kMaxBlurPasses, BorderMode::Wrap}));
}

// ---- the strip pass's per-lane stages run on the host for every block, warp and lane,
// each shuffle replaced by reading the neighbouring lanes' stage-1 results ----

template <int R>
HostImage stripsOnHost(const HostImage& in, BorderMode border) {
  const int w = in.width(), h = in.height();
  HostImage out(w, h);
  test::poison(out);
  const blur::Divider dv = blur::makeDivider(uint32_t(2 * R + 1) * uint32_t(2 * R + 1));
  test::runStripsOnHost<R>(
      w, h,
      [&](const StripLane<R>& l) {
        blur::StripColumn c;
        blur::stripColumn<R>(in.cview(), border, l, c);
        return c;
      },
      [&](const StripLane<R>& l, const blur::StripColumn* c) {
        for (int i = 0; i < kStripRows && l.y0 + i < h; ++i) {
          uint32_t rb = 0, ga = 0;
          for (int d = -R; d <= R; ++d) rb += c[d].rb[i], ga += c[d].ga[i];
          tiles::storePixel(out.view(), l.x, l.y0 + i, blur::stripOutput(rb, ga, c[0].pixel[i], dv));
        }
      });
  return out;
}

// The pair strips (two columns a lane, R >= kMinPairStripRadius) likewise: column x + j of
// the window is column j & 1 of the lane floor(j / 2) to the right.
template <int R>
HostImage pairStripsOnHost(const HostImage& in, BorderMode border) {
  using Lane = blur::BlurPairLane<R>;
  struct Columns {
    blur::StripColumn c[2];
  };
  const int w = in.width(), h = in.height();
  HostImage out(w, h);
  test::poison(out);
  const blur::Divider dv = blur::makeDivider(uint32_t(2 * R + 1) * uint32_t(2 * R + 1));
  test::runLanesOnHost<Lane>(
      Lane::blocksAcross(w), stripBlocksDown(h), w,
      [&](const Lane& l) {
        Columns c;
        blur::pairColumns<R>(in.cview(), border, l, c.c[0], c.c[1]);
        return c;
      },
      [w](const Lane& l) { return l.ownsColumns(w); },
      [&](const Lane& l, const Columns* lanes) {
        for (int i = 0; i < kStripRows && l.y0 + i < h; ++i)
          for (int k = 0; k < 2 && l.x + k < w; ++k) {
            uint32_t rb = 0, ga = 0;
            for (int j = k - R; j <= k + R; ++j) {
              const blur::StripColumn& c = lanes[j >> 1].c[j & 1];  // >> 1 rounds down
              rb += c.rb[i], ga += c.ga[i];
            }
            tiles::storePixel(out.view(), l.x + k, l.y0 + i,
                              blur::stripOutput(rb, ga, lanes[0].c[k].pixel[i], dv));
          }
      });
  return out;
}

HostImage stripsOnHost(const HostImage& in, int r, BorderMode border) {
  static_assert(blur::kMinPairStripRadius == 3 && blur::kMaxStripRadius == 5, "every radius");
  switch (r) {
    case 1: return stripsOnHost<1>(in, border);
    case 2: return stripsOnHost<2>(in, border);
    case 3:
      return pairStripsOnHost<3>(in, border);
    case 4:
      return pairStripsOnHost<4>(in, border);
    default:
      return pairStripsOnHost<5>(in, border);
  }
}

TEST(BoxBlurStripsOnHost, KernelStagesMatchCpuTwin) {
  const std::vector<std::pair<int, int>> sizes = {{1, 1},   {2, 3},   {7, 5},  {37, 23},
                                                  {221, 9}, {241, 17}, {333, 70}};
  for (auto [w, h] : sizes) {
    BoxBlurCpuScratch scratch(w, h);
    const HostImage in = makeInput(w, h, true, 7);
    for (BorderMode mode : kBorderModes)
      for (int r = 1; r <= blur::kMaxStripRadius; ++r) {
        const BlurParams p{r, 1, mode};
        const test::ImageDiff d = test::compare(stripsOnHost(in, r, mode), cpuBlur(in, p, scratch));
        ASSERT_EQ(d.differing, 0u) << describe(w, h, true, p) << ": " << d.first;
      }
  }
}

TEST(BoxBlurArgs, CpuRejectsBadArguments) {
  test::expectCpuArgumentChecks<BlurParams, BoxBlurCpuScratch>(
      kMaxBlurDimension, [](RgbaView a, RgbaView b, auto&& run) { expectArgumentChecks(a, b, run); }, boxBlurCpu);
}

constexpr BlurPass kPasses[] = {BlurPass::Fused, BlurPass::FusedStacked, BlurPass::Slide, BlurPass::SlideWide,
                                BlurPass::WholeColumns};

TEST(BoxBlurArgs, GpuRejectsBadArguments) {
  VP_REQUIRE_GPU();
  DeviceImage a = test::upload(test::makeRandom(16, 8, 1)), b(16, 8), big(17, 9), big2(17, 9);
  BoxBlurWorkspace ws(16, 8);
  Stream stream;
  expectArgumentChecks(a.view(), b.view(), [&](ConstRgbaView in, RgbaView out, const BlurParams& p) {
    boxBlurGpu(in, out, p, ws, stream);
  });
  for (BlurPass pass : kPasses)
    expectArgumentChecks(a.view(), b.view(), [&](ConstRgbaView in, RgbaView out, const BlurParams& p) {
      detail::boxBlurGpuWithPass(in, out, p, pass, ws, stream);
    });
  // The strip pass takes radii 1..kMaxStripRadius only; the policy never gives it others.
  const BlurParams tooWide{blur::kMaxStripRadius + 1}, widest{blur::kMaxStripRadius, 3, BorderMode::Wrap};
  EXPECT_THROW(detail::boxBlurGpuWithPass(a.view(), b.view(), tooWide, BlurPass::Strips, ws, stream),
               std::invalid_argument);
  EXPECT_NO_THROW(detail::boxBlurGpuWithPass(a.view(), b.view(), widest, BlurPass::Strips, ws, stream));
  EXPECT_THROW(boxBlurGpu(big.view(), big2.view(), BlurParams{}, ws, stream), std::invalid_argument);
  EXPECT_THROW(BoxBlurWorkspace(0, 5), std::invalid_argument);
  EXPECT_THROW(BoxBlurWorkspace(kMaxBlurDimension + 1, 5), std::invalid_argument);
  stream.synchronize();
}

// GPU output for `p` into a poisoned `out`, downloaded after the stream drains; `pass`:
// that configuration instead of the policy's choice.
HostImage gpuBlur(const DeviceImage& in, DeviceImage& out, const BlurParams& p, BoxBlurWorkspace& ws,
                  cudaStream_t stream, std::optional<BlurPass> pass) {
  test::poison(out);
  if (pass)
    detail::boxBlurGpuWithPass(in.view(), out.view(), p, *pass, ws, stream);
  else
    boxBlurGpu(in.view(), out.view(), p, ws, stream);
  VP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return test::download(out);
}

struct GpuCase {
  std::vector<std::pair<int, int>> sizes;
  std::vector<int> radii;
  std::vector<int> passes;
  std::vector<bool> natural;
  std::optional<BlurPass> pass;  // none: the policy's choice
};

void expectGpuMatchesCpu(const GpuCase& c) {
  Stream stream;
  for (auto [w, h] : c.sizes) {
    BoxBlurWorkspace ws(w, h);
    BoxBlurCpuScratch scratch(w, h);
    DeviceImage out(w, h);
    for (bool natural : c.natural) {
      const HostImage in = makeInput(w, h, natural, 29);
      const DeviceImage din = test::upload(in);
      for (BorderMode mode : kBorderModes)
        for (int r : c.radii)
          for (int passes : c.passes) {
            const BlurParams p{r, passes, mode};
            const test::ImageDiff d =
                test::compare(gpuBlur(din, out, p, ws, stream, c.pass), cpuBlur(in, p, scratch));
            ASSERT_EQ(d.differing, 0u) << describe(w, h, natural, p) << " "
                                       << (c.pass ? blurPassName(*c.pass)
                                           : r    ? ws.policy(w, h, r).name
                                                  : "copy")
                                       << ": " << d.first;
          }
    }
  }
}

TEST(BoxBlurGpu, MatchesCpuOnSmallImages) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{1, 1}, {2, 3}, {7, 5}, {37, 23}, {130, 70}},
                       {0, 1, 2, 5, 7, 15, 100, 128},
                       {1, 2, 3},
                       {false, true},
                       {}});
}

TEST(BoxBlurGpu, MatchesCpuOnLargeImages) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{1921, 1081}, {1920, 1080}, {1280, 720}},
                       {0, 1, 2, 7, 15, 30, 40, 50, 100, 128},
                       {1, 2, 3},
                       {false, true},
                       {}});
}

// 4K: the strips, then the stacked fused pass with its rows' alpha in shared memory.
TEST(BoxBlurGpu, MatchesCpuIn4K) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{3840, 2160}, {3841, 2161}}, {1, 15, 50, 64, 100, 101, 128}, {1, 2}, {true}, {}});
}

// 8K: the stacked fused pass where its rows' alpha no longer fits shared memory beside its
// segments (the segments grow with the frame's width), so the centre rows are loaded.
TEST(BoxBlurGpu, MatchesCpuIn8K) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{7680, 4320}}, {15, 64}, {1}, {true}, {}});
}

// Every shipped pass configuration at odd sizes, whatever the policy would pick there:
// segment and tile edges everywhere, radii larger than the image, each row pass by width
// (8 warps up to 2048 pixels, 32 warps up to 4096, the chunked scan beyond).
TEST(BoxBlurGpu, EveryShippedPassMatchesCpu) {
  VP_REQUIRE_GPU();
  const std::vector<std::pair<int, int>> sizes = {{1, 1},       {2, 3},    {37, 11},   {130, 70},
                                                  {1921, 1081}, {2100, 9}, {3000, 20}, {4500, 7}};
  for (BlurPass pass : kPasses) {
    SCOPED_TRACE(blurPassName(pass));
    expectGpuMatchesCpu({sizes, {1, 3, 15, 33, 100, 128}, {1, 3}, {false}, pass});
    expectGpuMatchesCpu({{{37, 23}, {1921, 1081}}, {2, 50}, {2}, {true}, pass});
  }
  SCOPED_TRACE("strips");
  expectGpuMatchesCpu({sizes, {1, 2, 3, 4, 5}, {1, 3}, {false}, BlurPass::Strips});
  expectGpuMatchesCpu({{{37, 23}, {1921, 1081}, {3841, 2161}}, {1, 5}, {2}, {true}, BlurPass::Strips});
}

TEST(BoxBlurPolicy, ShippedConfigurations) {
  VP_REQUIRE_GPU();
  BoxBlurWorkspace hd(1920, 1080), uhd(3840, 2160);
  auto name = [](const BoxBlurWorkspace& ws, int r) {
    return std::string(ws.policy(ws.maxWidth(), ws.maxHeight(), r).name);
  };
  // On the H200 (and any device with >= 100 KB of shared memory per block): 1080p frames get
  // 8-column blocks, 4K frames narrower ones.
  EXPECT_EQ(name(hd, 1), "strips");
  EXPECT_EQ(name(hd, 5), "strips");
  EXPECT_EQ(name(uhd, 4), "strips");
  EXPECT_EQ(name(uhd, 5), "strips");
  EXPECT_EQ(name(uhd, 6), "fused-stacked");
  EXPECT_EQ(name(uhd, 15), "fused-stacked");
  EXPECT_EQ(name(hd, 6), "fused");
  EXPECT_EQ(name(hd, 9), "fused");
  EXPECT_EQ(name(hd, 10), "fused-stacked");
  EXPECT_EQ(name(hd, 15), "fused-stacked");
  EXPECT_EQ(name(hd, 30), "fused-stacked");
  EXPECT_EQ(name(hd, 40), "fused-stacked");
  EXPECT_EQ(name(hd, 41), "columns");
  EXPECT_EQ(name(hd, 50), "columns");
  EXPECT_EQ(name(uhd, 50), "fused-stacked");
  EXPECT_EQ(name(uhd, 51), "fused-stacked");
  EXPECT_EQ(name(uhd, 100), "fused-stacked");
  EXPECT_EQ(name(uhd, 101), "fused-stacked");
  EXPECT_EQ(name(uhd, 128), "fused-stacked");
  EXPECT_EQ(hd.policy(1920, 1080, 15).row, BlurRowPass::Warps8);
  EXPECT_EQ(uhd.policy(3840, 2160, 100).row, BlurRowPass::Warps32);
  EXPECT_EQ(uhd.policy(4500, 10, 100).row, BlurRowPass::Chunked);
}

// Views that start mid-allocation (rows not 256-byte aligned, pitch of the parent),
// and two blurs queued back to back on one stream sharing a workspace.
void expectSubViewsAndBackToBackCalls(BlurPass pass, BlurParams p1 = {100, 3, BorderMode::Reflect},
                                      BlurParams p2 = {4, 2, BorderMode::Wrap}) {
  const int W = 301, H = 203, x0 = 3, y0 = 2, w = 290, h = 190;
  const HostImage full = test::makeNatural(W, H, 41);
  const DeviceImage din = test::upload(full);
  DeviceImage dout(W, H), dout2(W, H);
  test::poison(dout);
  test::poison(dout2);
  auto sub = [&](const DeviceImage& img) {
    RgbaView v = img.view();
    return RgbaView{v.row(y0) + x0, v.pitch, w, h};
  };
  HostImage in(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) in.at(x, y) = full.at(x + x0, y + y0);
  BoxBlurWorkspace ws(W, H);
  BoxBlurCpuScratch scratch(w, h);
  Stream stream;
  detail::boxBlurGpuWithPass(sub(din), sub(dout), p1, pass, ws, stream);
  detail::boxBlurGpuWithPass(sub(dout), sub(dout2), p2, pass, ws, stream);  // reads the first result
  stream.synchronize();
  const HostImage got1 = test::download(dout), got2 = test::download(dout2);
  const HostImage want1 = cpuBlur(in, p1, scratch), want2 = cpuBlur(want1, p2, scratch);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const bool inside = x >= x0 && x < x0 + w && y >= y0 && y < y0 + h;
      const uchar4 poison = make_uchar4(test::kPoison, test::kPoison, test::kPoison, test::kPoison);
      ASSERT_TRUE(samePixel(got1.at(x, y), inside ? want1.at(x - x0, y - y0) : poison)) << x << "," << y;
      ASSERT_TRUE(samePixel(got2.at(x, y), inside ? want2.at(x - x0, y - y0) : poison)) << x << "," << y;
    }
}

TEST(BoxBlurGpu, SubViewsAndBackToBackCalls) {
  VP_REQUIRE_GPU();
  for (BlurPass pass : kPasses) {
    SCOPED_TRACE(blurPassName(pass));
    expectSubViewsAndBackToBackCalls(pass);
  }
  SCOPED_TRACE("strips");
  expectSubViewsAndBackToBackCalls(BlurPass::Strips, {5, 3, BorderMode::Reflect}, {2, 2, BorderMode::Zero});
}

// Few launches, for compute-sanitizer (memcheck, racecheck, synccheck): every shipped pass
// and row pass, segment edges inside the image.
TEST(BoxBlurGpu, SanitizerSubset) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{1, 1}, {7, 5}, {37, 23}, {130, 70}}, {1, 7, 100}, {1, 3}, {true}, {}});
  for (BlurPass pass : kPasses) {
    SCOPED_TRACE(blurPassName(pass));
    expectGpuMatchesCpu({{{37, 23}, {1100, 12}, {2100, 3}, {4200, 2}}, {3, 40}, {2}, {false}, pass});
  }
  expectGpuMatchesCpu({{{37, 23}, {1100, 12}, {2100, 3}}, {1, 5}, {2}, {false}, BlurPass::Strips});
}

}  // namespace
}  // namespace vp
