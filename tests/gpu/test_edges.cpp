// Sobel edges: the integer luma and rounded square root against double precision over
// their whole domains, the CPU twin exact against the plain reference (luma, Sobel,
// magnitude, overlay) at odd sizes, the kernel's stages run lane by lane on the CPU
// (bounds-checked, poisoned outputs), the GPU against the twin byte for byte, and the
// argument checks.
#include "gpu/filters/edges/edges.h"
#include "gpu/filters/edges/edges_filter.h"
#include "gpu/filters/edges/edges_math.h"
#include "gpu/filters/edges/edges_tiles.h"
#include "gpu/cuda/cuda_resources.h"
#include "support/edges_reference.h"
#include "support/filter_args.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/sub_views.h"
#include "support/view_checks.h"
#include "support/warp_strips_on_host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {
namespace {

std::string describe(int w, int h, const std::string& image, const EdgesParams& p) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + image + " t=" + std::to_string(p.threshold) +
         " overlay=" + (p.overlay ? "1" : "0");
}

uint32_t wordOf(uchar4 v) { return uint32_t(v.x) | uint32_t(v.y) << 8 | uint32_t(v.z) << 16 | uint32_t(v.w) << 24; }

HostImage cpuEdges(const HostImage& in, const EdgesParams& p, EdgesCpuScratch& scratch) {
  HostImage out(in.width(), in.height());
  test::poison(out);
  edgesCpu(in.cview(), out.view(), p, scratch);
  return out;
}

// Random, natural, and inputs with edges in every direction and strength.
HostImage makeCase(const std::string& kind, int w, int h, uint64_t seed) {
  if (kind == "random") return test::makeRandom(w, h, seed);
  if (kind == "natural") return test::makeNatural(w, h, seed);
  HostImage img(w, h);
  test::SplitMix64 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t a = uint8_t(rng.next());
      uchar4 v{};
      if (kind == "shapes") {  // a disc and a bar on a ramp: edges at every angle
        const int dx = x - w / 3, dy = y - h / 2;
        const bool disc = dx * dx + dy * dy < (w * w + h * h) / 25;
        const bool bar = x > 2 * w / 3 && x < 2 * w / 3 + 3;
        v = disc ? make_uchar4(250, 20, 30, a) : bar ? make_uchar4(0, 0, 0, a) : make_uchar4(uint8_t(x), uint8_t(y), 90, a);
      } else if (kind == "checker") {
        v = ((x + y) & 1) ? make_uchar4(255, 255, 255, a) : make_uchar4(0, 0, 0, a);
      } else if (kind == "flat") {
        v = make_uchar4(40, 200, 7, a);
      }
      img.at(x, y) = v;
    }
  return img;
}

TEST(EdgesMath, LumaMatchesTheDefinitionForEveryColour) {
  for (uint32_t r = 0; r < 256; ++r)
    for (uint32_t g = 0; g < 256; ++g)
      for (uint32_t b = 0; b < 256; ++b) {
        const uchar4 v = make_uchar4(uint8_t(r), uint8_t(g), uint8_t(b), 0);
        ASSERT_EQ(int(edges::lumaOf(wordOf(v))), test::ref::edgesLuma(v)) << r << "," << g << "," << b;
      }
  EXPECT_EQ(edges::lumaOf(0xFFFFFFFFu), 255u);
  EXPECT_EQ(edges::lumaOf(0u), 0u);
}

TEST(EdgesMath, RoundedSquareRootIsExact) {
  for (uint32_t n = 0; n <= 65280; ++n) {
    const uint32_t m = edges::roundSqrt65280(n);
    ASSERT_EQ(int(m), test::ref::edgesMagnitude(n)) << n;
    // The integer rule, spelled out: m^2 - m <= n < m^2 + m + 1 (round half up, no ties).
    ASSERT_LE(m * m, n + m) << n;
    ASSERT_LT(n, m * m + m + 1) << n;
  }
  for (int gx = -1020; gx <= 1020; ++gx)
    for (int gy = -1020; gy <= 1020; gy += (gx % 7 == 0 ? 1 : 13))
      ASSERT_EQ(int(edges::sobelMagnitude(gx, gy)), test::ref::edgesMagnitude(int64_t(gx) * gx + int64_t(gy) * gy))
          << gx << "," << gy;
  EXPECT_EQ(edges::sobelMagnitude(1020, 1020), 255u);
  EXPECT_EQ(edges::sobelMagnitude(0, 0), 0u);
  EXPECT_EQ(edges::sobelMagnitude(3, 4), 5u);
}

// The overlay compares the squared magnitude with overlaySquare(t) instead of taking the root.
TEST(EdgesMath, OverlaySquareIsTheRoundedRootsThreshold) {
  for (int t = 0; t <= kMaxEdgesThreshold; ++t) {
    const uint32_t least = edges::overlaySquare(t);
    ASSERT_LE(least, 65280u) << t;
    ASSERT_GE(edges::roundSqrt65280(least), uint32_t(t)) << t;
    if (least > 0) {
      ASSERT_LT(edges::roundSqrt65280(least - 1), uint32_t(t)) << t;  // the root never falls
    }
  }
}

const std::vector<std::pair<int, int>> kOddSizes = {{1, 1}, {2, 3}, {3, 2}, {17, 9}, {33, 1}, {1, 33}, {64, 48}, {97, 61}};
const std::vector<EdgesParams> kSettings = {{80, false}, {0, true}, {1, true}, {40, true}, {80, true}, {255, true}};

TEST(EdgesCpu, MatchesReferenceAtOddSizes) {
  for (auto [w, h] : kOddSizes) {
    EdgesCpuScratch scratch(w, h);
    for (const char* image : {"random", "natural", "shapes", "checker", "flat"}) {
      const HostImage in = makeCase(image, w, h, 3);
      for (const EdgesParams& p : kSettings) {
        const test::ImageDiff d = test::compare(cpuEdges(in, p, scratch), test::ref::edgesFilter(in, p));
        ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
      }
    }
  }
}

TEST(EdgesCpu, FlatImagesHaveNoEdges) {
  const int w = 23, h = 11;
  EdgesCpuScratch scratch(w, h);
  const HostImage flat = makeCase("flat", w, h, 1);
  const HostImage grey = cpuEdges(flat, EdgesParams{}, scratch);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uchar4 v = grey.at(x, y);
      ASSERT_TRUE(v.x == 0 && v.y == 0 && v.z == 0 && v.w == flat.at(x, y).w) << x << "," << y;
    }
  EXPECT_EQ(test::compare(cpuEdges(flat, EdgesParams{1, true}, scratch), flat).differing, 0u);  // nothing painted
  const HostImage black = cpuEdges(flat, EdgesParams{0, true}, scratch);  // t = 0: every pixel is an edge
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ASSERT_EQ(wordOf(black.at(x, y)), wordOf(flat.at(x, y)) & 0xFF000000u);
}

// ---- the kernel's per-lane stages run on the host for every block, warp and lane, each
// shuffle replaced by reading the neighbouring lane's stage-1 result ----

HostImage edgesTilesOnHost(const HostImage& in, const EdgesParams& p) {
  const int w = in.width(), h = in.height();
  HostImage out(w, h);
  test::poison(out);
  test::runStripsOnHost<1, edges::kRows>(
      w, h,
      [&](const edges::Lane& l) {
        edges::Column c;
        edges::columnOf(in.cview(), l, c);
        return c;
      },
      [&](const edges::Lane& l, const edges::Column* c) {
        for (int i = 0; i < edges::kRows && l.y0 + i < h; ++i)
          tiles::storePixel(out.view(), l.x, l.y0 + i,
                            edges::stripOutput(c[-1].smooth[i], c[1].smooth[i], c[-1].diff[i], c[0].diff[i],
                                               c[1].diff[i], c[0].pixel[i], p));
      });
  return out;
}

TEST(EdgesTilesOnHost, KernelMatchesCpuTwin) {
  std::vector<std::pair<int, int>> sizes = kOddSizes;
  sizes.insert(sizes.end(), {{32, 32}, {33, 33}, {130, 70}, {241, 17}, {333, 197}, {481, 9}});
  for (auto [w, h] : sizes) {
    EdgesCpuScratch scratch(w, h);
    for (const char* image : {"random", "shapes"}) {
      const HostImage in = makeCase(image, w, h, 9);
      for (const EdgesParams& p : kSettings) {
        const test::ImageDiff d = test::compare(edgesTilesOnHost(in, p), cpuEdges(in, p, scratch));
        ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
      }
    }
  }
}

// ---- argument checks ----

template <class Edges>
void expectArgumentChecks(RgbaView a, RgbaView b, Edges&& edges) {
  auto run = [&](ConstRgbaView in, RgbaView out, EdgesParams p) { edges(in, out, p); };
  EXPECT_THROW(run(a, b, EdgesParams{-1}), std::invalid_argument);
  EXPECT_THROW(run(a, b, EdgesParams{256}), std::invalid_argument);
  test::expectViewChecks(a, b, [&](ConstRgbaView in, RgbaView out) { run(in, out, EdgesParams{}); });
  EXPECT_NO_THROW(run(a, b, EdgesParams{255, true}));
}

TEST(EdgesArgs, CpuRejectsBadArguments) {
  test::expectCpuArgumentChecks<EdgesParams, EdgesCpuScratch>(
      kMaxEdgesDimension, [](RgbaView a, RgbaView b, auto&& run) { expectArgumentChecks(a, b, run); }, edgesCpu);
}

TEST(EdgesArgs, GpuRejectsBadArguments) {
  VP_REQUIRE_GPU();
  DeviceImage a = test::upload(test::makeRandom(16, 8, 1)), b(16, 8);
  Stream stream;
  expectArgumentChecks(a.view(), b.view(), [&](ConstRgbaView in, RgbaView out, const EdgesParams& p) {
    edgesGpu(in, out, p, stream);
  });
  stream.synchronize();
}

// ---- the GPU against the twin ----

TEST(EdgesGpu, MatchesCpuByteForByte) {
  VP_REQUIRE_GPU();
  Stream stream;
  for (auto [w, h] : {std::pair{1, 1}, {17, 9}, {333, 197}, {1921, 1081}, {3840, 2160}}) {
    EdgesCpuScratch scratch(w, h);
    DeviceImage out(w, h);
    for (const char* image : {"random", "natural", "shapes"}) {
      const HostImage in = makeCase(image, w, h, 31);
      const DeviceImage din = test::upload(in);
      for (const EdgesParams& p : kSettings) {
        test::poison(out);
        edgesGpu(din.view(), out.view(), p, stream);
        stream.synchronize();
        const test::ImageDiff d = test::compare(test::download(out), cpuEdges(in, p, scratch));
        ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
      }
    }
  }
}

TEST(EdgesGpu, WorksOnSubViews) {
  VP_REQUIRE_GPU();
  const test::SubViewCase views(makeCase("shapes", test::SubViewCase::kWidth, test::SubViewCase::kHeight, 7));
  EdgesCpuScratch scratch(test::SubViewCase::kViewWidth, test::SubViewCase::kViewHeight);
  Stream stream;
  const EdgesParams p{60, true};
  edgesGpu(views.in(), views.out(), p, stream);
  stream.synchronize();
  EXPECT_EQ(views.mismatches(cpuEdges(views.sub(), p, scratch)), 0u);
}

}  // namespace
}  // namespace vp
