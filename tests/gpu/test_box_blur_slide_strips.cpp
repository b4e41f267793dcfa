// The box blur's sliding strips (gpu/filters/blur/blur_slide_strips.h) run on the host: every
// block, warp and lane of the kernel's layout, its per-lane stages as the kernel calls them,
// the warp's scan a running sum over the lanes and each shuffle a read of the lane it names.
// Equal to the CPU twin for every C the launcher may take, every r mod C, segment lengths
// that do and do not divide the height, and every border. The GPU runs of the same pass are
// in test_box_blur.cpp.
#include "gpu/filters/blur/blur_slide_strips.h"
#include "gpu/filters/blur/box_blur.h"
#include "support/borders.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace vp {
namespace {

template <int C>
struct LanePrefix {
  uint64_t e[C + 1];
};

template <int C>
HostImage slideStripsOnHost(const HostImage& in, int r, BorderMode border, int rows) {
  using Lane = blur::SlideStripLane<C>;
  const int w = in.width(), h = in.height(), q = r / C, m = r % C;
  HostImage out(w, h);
  test::poison(out);
  const blur::Divider dv = blur::makeDivider(uint32_t(2 * r + 1) * uint32_t(2 * r + 1));
  for (int by = 0; by < (h + rows - 1) / rows; ++by)
    for (int bx = 0; bx < Lane::blocksAcross(w, r); ++bx)
      for (int warp = 0; warp < Lane::kWarps; ++warp) {
        if (!Lane(bx, by, warp * 32, r, rows).warpHasWork(w)) continue;
        std::vector<Lane> lanes;
        std::vector<blur::SlideColumns<C>> cols;
        std::vector<blur::SlideSums<C>> sums(32);
        for (int t = 0; t < 32; ++t) {
          lanes.emplace_back(bx, by, warp * 32 + t, r, rows);
          cols.emplace_back(in.cview(), border, lanes[t].x, true);
          sums[t].first(cols[t], lanes[t].y0, r);
        }
        const int y0 = lanes[0].y0;
        for (int y = y0; y < std::min(h, y0 + rows); ++y) {
          std::vector<LanePrefix<C>> prefix(32);
          std::vector<std::array<uint32_t, C>> centre(32);
          uint64_t left = 0;  // the warp's scan: the totals of the lanes to the left
          for (int t = 0; t < 32; ++t) {
            uint32_t entering[C], leaving[C], px[C];
            cols[t].row(y + r, entering);
            cols[t].row(y - r - 1, leaving);
            cols[t].row(y, px);
            std::copy(px, px + C, centre[t].begin());
            sums[t].slide(entering, leaving);
            sums[t].prefix(prefix[t].e);
            const uint64_t total = prefix[t].e[C];
            for (uint64_t& e : prefix[t].e) e += left;
            left += total;
          }
          for (int t = 0; t < 32; ++t) {
            const Lane& l = lanes[t];
            if (!l.ownsColumns(w)) continue;
            for (int j = 0; j < C && l.x + j < w; ++j) {
              const blur::WindowEnd a = blur::rightEnd<C>(j, m, q), b = blur::leftEnd<C>(j, m, q);
              VP_TILE_CHECK(t + a.lane >= 0 && t + a.lane < 32 && t + b.lane >= 0 && t + b.lane < 32);
              const uint64_t window = prefix[t + a.lane].e[a.sub] - prefix[t + b.lane].e[b.sub];
              tiles::storePixel(out.view(), l.x + j, y, blur::slideOutput(window, centre[t][j], dv));
            }
          }
        }
      }
  return out;
}

HostImage cpuBlur(const HostImage& in, const BlurParams& p) {
  BoxBlurCpuScratch scratch(in.width(), in.height());
  HostImage out(in.width(), in.height());
  test::poison(out);
  boxBlurCpu(in.cview(), out.view(), p, scratch);
  return out;
}

template <int C>
void expectStagesMatchCpu(const std::vector<int>& radii) {
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {2, 3}, {7, 5}, {37, 23}, {221, 9}, {333, 70}};
  for (auto [w, h] : sizes) {
    const HostImage in = (w * h) % 2 ? test::makeRandom(w, h, 5) : test::makeNatural(w, h, 5);
    for (BorderMode mode : test::kBorderModes)
      for (int r : radii) {
        const HostImage want = cpuBlur(in, BlurParams{r, 1, mode});
        for (int rows : {1, 5, 32}) {
          const test::ImageDiff d = test::compare(slideStripsOnHost<C>(in, r, mode, rows), want);
          ASSERT_EQ(d.differing, 0u) << w << "x" << h << " C=" << C << " r=" << r << " rows=" << rows << " "
                                     << test::borderName(mode) << ": " << d.first;
        }
      }
  }
}

TEST(BoxBlurSlideStripsOnHost, FourColumnsALaneMatchCpuTwin) {
  expectStagesMatchCpu<4>({blur::kMinSlideStripRadius, 7, 8, 9, 15, 20, blur::kMaxSlideStripRadius});
}

TEST(BoxBlurSlideStripsOnHost, EightColumnsALaneMatchCpuTwin) {
  expectStagesMatchCpu<8>(
      {blur::kMinSlideStripRadius, 7, 8, 9, 10, 11, 12, 13, 21, blur::kMaxSlideStripRadius});
}

// The packed sums: one pixel's channels land in their fields, and the largest window a
// field must hold (r = kMaxSlideStripRadius, every sample 255) unpacks to 255 each.
TEST(BoxBlurSlideStripsOnHost, PackedFieldsHoldTheLargestWindow) {
  EXPECT_EQ(blur::packWord(0xDDCCBBAAu), 0xAAull | 0xBBull << 21 | 0xCCull << 42);
  const int r = blur::kMaxSlideStripRadius, n = (2 * r + 1) * (2 * r + 1);
  uint64_t window = 0;
  for (int i = 0; i < n; ++i) window += blur::packWord(0xFFFFFFFFu);
  EXPECT_EQ(blur::slideOutput(window, 0x7F000000u, blur::makeDivider(uint32_t(n))), 0x7FFFFFFFu);
}

}  // namespace
}  // namespace vp
