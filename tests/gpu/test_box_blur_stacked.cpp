// The stacked fused pass's window union in chunks (blur_stacked.h), on the host: for every
// radius and every segment length the chunks serve, each row of the union is loaded by exactly
// one group, no group loads more than max(2 segLen, a quarter of the union), and each group's
// window, assembled from the loads as fusedStackedWindow does, is its 2r + 1 rows' sum.
#include "gpu/filters/blur/blur_stacked.h"
#include "gpu/filters/blur/box_blur.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace vp {
namespace {

using blur::kStackedGroups;

TEST(BoxBlurStackedOnHost, WindowChunksLoadTheUnionOnceAndSumEachWindow) {
  std::mt19937 rng(17);
  int served = 0;
  for (int r = 1; r <= kMaxBlurRadius; ++r)
    for (int segLen = 1; (2 * r + 1) / segLen >= kStackedGroups; ++segLen) {
      const int n = 2 * r + 1, q = n / segLen, e = n % segLen;
      const int rows = n + 3 * segLen;  // the union, row 0 = the block's first row - r
      std::vector<uint32_t> value(rows);
      for (uint32_t& v : value) v = rng();
      std::vector<int> loads(rows, 0);
      // Sum of union rows [from, from + count), each counted as one group's load.
      const auto load = [&](int from, int count, int& groupLoads) {
        uint32_t s = 0;
        for (int i = from; i < from + count; ++i) s += value[i], ++loads[i], ++groupLoads;
        return s;
      };
      uint32_t own[kStackedGroups], x[kStackedGroups] = {}, y[kStackedGroups] = {};
      for (int g = 0; g < kStackedGroups; ++g) {
        const blur::WindowChunks c = blur::windowChunks(segLen, r, g);
        int groupLoads = 0;
        const uint32_t m = load(c.mFrom, c.mTo - c.mFrom, groupLoads);
        const uint32_t chunk = load(g * segLen, segLen, groupLoads);
        const uint32_t head = load((q + g) * segLen, e, groupLoads);
        own[g] = m + chunk + head;
        x[g] = chunk + m;            // read by the groups above g
        if (g < kStackedGroups - 1)  // Y_g = M_g + c_{q+g}, read by the groups below
          y[g] = m + head + load((q + g) * segLen + e, segLen - e, groupLoads);
        ASSERT_LE(groupLoads, std::max(2 * segLen, (rows + kStackedGroups - 1) / kStackedGroups))
            << "r " << r << " segLen " << segLen << " group " << g;
      }
      for (int i = 0; i < rows; ++i)
        ASSERT_EQ(loads[i], 1) << "r " << r << " segLen " << segLen << " row " << i;
      for (int g = 0; g < kStackedGroups; ++g) {
        uint32_t window = own[g], direct = 0;
        for (int h = 0; h < kStackedGroups; ++h) window += h > g ? x[h] : h < g ? y[h] : 0;
        for (int i = g * segLen; i < g * segLen + n; ++i) direct += value[i];
        ASSERT_EQ(window, direct) << "r " << r << " segLen " << segLen << " group " << g;
      }
      ++served;
    }
  EXPECT_EQ(served, 4096);  // the sum over r = 1..128 of floor((2r + 1) / 4)
}

}  // namespace
}  // namespace vp
