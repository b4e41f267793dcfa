// The K-means views (gpu/filters/common/segment_view.h): the palette, each view held to its
// definition written out here (the labels from kmeansCpu, the borders from the right and
// lower neighbours), the element's option and command, and the CUDA processor equal to
// the CPU one for every view.
#include "gpu/filters/chain.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/common/segment_view.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/processor_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace vp {
namespace {

uint32_t wordOf(const HostImage& img, int x, int y) { return tiles::loadPixel(img.cview(), x, y); }

TEST(KmeansView, PaletteColoursAreDistinctAndFarApart) {
  std::set<uint32_t> seen;
  int closest = 1 << 30;
  for (int a = 0; a < kMaxClusters; ++a) {
    const uint32_t ca = labelColour(a);
    EXPECT_EQ(ca >> 24, 0u) << a;
    seen.insert(ca);
    for (int b = 0; b < a; ++b) {
      const uint32_t cb = labelColour(b);
      int d = 0;
      for (int s = 0; s < 24; s += 8) d += std::abs(int((ca >> s) & 255) - int((cb >> s) & 255));
      closest = std::min(closest, d);
    }
  }
  EXPECT_EQ(seen.size(), size_t(kMaxClusters));
  EXPECT_GE(closest, 40) << "two labels' colours are hard to tell apart";  // L1 over R, G, B
  EXPECT_EQ(labelColour(0), 250u | 53u << 8 | 53u << 16);  // hue 0: red, v 250, s 200 (250 * 55 / 255 = 53)
}

// A hand-made 5 x 3 label map: borders where the right or the lower neighbour differs.
TEST(KmeansView, BoundariesAndLabelsFollowTheirDefinitions) {
  const int w = 5, h = 3;
  const uint8_t labels[w * h] = {0, 0, 1, 1, 1,  //
                                 0, 0, 1, 2, 2,  //
                                 0, 0, 0, 2, 2};
  // Borders, worked out by hand from the map:
  //   . b . b b
  //   . b b . .
  //   . . b . .
  const bool border[w * h] = {false, true, false, true, true,  //
                              false, true, true,  false, false, //
                              false, false, true, false, false};
  HostImage in = test::makeRandom(w, h, 3);
  HostImage out(w, h), shown(w, h);
  segmentViewCpu(SegmentView::Boundaries, in.cview(), labels, out.view());
  segmentViewCpu(SegmentView::Labels, in.cview(), labels, shown.view());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint32_t src = wordOf(in, x, y), alpha = src & 0xFF000000u;
      const int i = y * w + x;
      EXPECT_EQ(wordOf(out, x, y), border[i] ? (kBoundaryColour | alpha) : src) << x << "," << y;
      EXPECT_EQ(wordOf(shown, x, y), labelColour(labels[i]) | alpha) << x << "," << y;
    }
  // Colour: nothing written.
  test::poison(out);
  segmentViewCpu(SegmentView::Colour, in.cview(), labels, out.view());
  EXPECT_EQ(wordOf(out, 0, 0), 0xA5A5A5A5u);
}

TEST(KmeansView, OptionFormatsBackAndDefaultsToColour) {
  const FilterChain chain = parseChain("kmeans=k=4:view=boundaries");
  EXPECT_EQ(kmeansViewOf(chain[0]), SegmentView::Boundaries);
  EXPECT_EQ(parseChain(formatChain(chain)), chain);
  EXPECT_NE(formatChain(chain).find(":view=boundaries"), std::string::npos) << formatChain(chain);
  EXPECT_EQ(kmeansViewOf(parseElement("kmeans")), SegmentView::Colour);
  const FilterElement e = kmeansElement(kmeansParamsOf(parseElement("kmeans=k=3")), true, SegmentView::Labels);
  EXPECT_EQ(e, parseElement("kmeans=k=3:view=labels"));
  EXPECT_THROW(parseChain("kmeans=view=rainbow"), std::invalid_argument);
}

// The CPU processor's frames against K-means's own labels painted by the definitions.
TEST(KmeansView, CpuProcessorPaintsTheFinalAssignment) {
  const int w = 97, h = 61, n = 3;
  const test::runs::Clip clip = test::runs::makeClip(w, h, n, PixelFormat::Rgba);
  for (SegmentView view : {SegmentView::Labels, SegmentView::Boundaries}) {
    const char* text = view == SegmentView::Labels ? "kmeans=k=5:warm=0:view=labels" : "kmeans=k=5:warm=0:view=boundaries";
    const std::vector<test::runs::Out> got =
        test::runs::runAll(*makeCpuProcessor(1), clip, [&](int) { return test::runs::chainParams(text); });
    ASSERT_EQ(got.size(), size_t(n));
    const KmeansParams kp = kmeansParamsOf(parseElement(text));
    for (int f = 0; f < n; ++f) {
      const HostImage& in = clip.rgba[size_t(f)];
      HostImage centres(w, h);
      std::vector<uint8_t> labels(size_t(w) * h);
      KmeansState state{};
      kmeansCpu(in.cview(), centres.view(), labels.data(), state, kp);  // warm=0: every frame starts afresh
      HostImage want(w, h);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const size_t i = size_t(y) * w + x;
          const uint32_t src = wordOf(in, x, y);
          uint32_t v = labelColour(labels[i]) | (src & 0xFF000000u);
          if (view == SegmentView::Boundaries) {
            const bool border =
                (x + 1 < w && labels[i + 1] != labels[i]) || (y + 1 < h && labels[i + size_t(w)] != labels[i]);
            v = border ? kBoundaryColour | (src & 0xFF000000u) : src;
          }
          tiles::storePixel(want.view(), x, y, v);
        }
      EXPECT_EQ(got[size_t(f)].rgb, test::packRgb(want)) << text << " frame " << f;
    }
  }
}

// The fraction of pixels whose colour changes from each frame to the next, over a run's
// labels-view frames (packed RGB), from frame `from` on.
double changedFraction(const std::vector<test::runs::Out>& frames, size_t from) {
  size_t changed = 0, total = 0;
  for (size_t f = std::max<size_t>(from, 1); f < frames.size(); ++f) {
    const std::vector<uint8_t>& a = frames[f - 1].rgb;
    const std::vector<uint8_t>& b = frames[f].rgb;
    for (size_t i = 0; i < a.size(); i += 3) changed += a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2];
    total += a.size() / 3;
  }
  return total ? double(changed) / double(total) : 0;
}

// Stable colours: with warm starts a region keeps its label, so its colour. A still clip:
// no pixel changes after the first frame (1 and 3 slots). A slow pan: far fewer pixels
// change label from frame to frame with warm starts than without (each frame seeded
// afresh by k-means++ may number the same clusters differently).
TEST(KmeansView, LabelsStayPutOnAStillClipAndMostlyOnASlowPan) {
  const int w = 160, h = 96, n = 16;
  const test::runs::Clip still = test::runs::makeClip(w, h, n, PixelFormat::Rgba, 0.f);
  for (int slots : {1, 3}) {
    const std::vector<test::runs::Out> got = test::runs::runAll(
        *makeCpuProcessor(slots), still, [](int) { return test::runs::chainParams("kmeans=k=8:view=labels"); });
    ASSERT_EQ(got.size(), size_t(n));
    EXPECT_EQ(changedFraction(got, 1), 0.0) << slots << " slots";
  }
  const test::runs::Clip pan = test::runs::makeClip(w, h, n, PixelFormat::Rgba, 0.02f);
  double fraction[2] = {};
  for (int warm : {0, 1}) {
    const std::string chain = std::string("kmeans=k=8:view=labels:warm=") + char('0' + warm);
    const std::vector<test::runs::Out> got =
        test::runs::runAll(*makeCpuProcessor(1), pan, [&](int) { return test::runs::chainParams(chain.c_str()); });
    fraction[warm] = changedFraction(got, 1);
  }
  RecordProperty("pan_changed_warm", std::to_string(fraction[1]));
  RecordProperty("pan_changed_no_warm", std::to_string(fraction[0]));
  std::printf("[ views    ] slow pan: %.2f %% of pixels change label a frame with warm starts, %.2f %% without\n",
              100 * fraction[1], 100 * fraction[0]);
  EXPECT_LT(fraction[1], 0.1);
  EXPECT_LT(fraction[1] * 3, fraction[0]);
}

TEST(KmeansView, CudaProcessorMatchesCpu) {
  VP_REQUIRE_GPU();
  const test::runs::Clip clip = test::runs::makeClip(321, 181, 6, PixelFormat::Yuv420p);
  test::runs::expectCudaMatchesCpu(clip, {"kmeans=k=6:view=labels", "kmeans=k=6:view=boundaries",
                                          "gauss=sigma=2,kmeans=k=3:view=boundaries", "kmeans=k=32:view=labels,edges=overlay=1"});
}

}  // namespace
}  // namespace vp
