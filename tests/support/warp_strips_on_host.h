// Warp-strip kernels (gpu/filters/common/warp_strip.h) run on the host: for every block and
// warp with work, the per-lane first stage for all 32 lanes, then the output stage for each
// owning lane with the warp's first-stage results in hand, the neighbours' where the
// kernel's shuffles read them.
#pragma once

#include "gpu/filters/common/warp_strip.h"

#include <utility>
#include <vector>

namespace vp::test {

// column(lane) -> T: stage 1 of a StripLane<R, Rows>; outputs(lane, const T* own): the
// owning lane's outputs, own[d] its neighbour d lanes to the right (d = -R..R).
template <int R, int Rows = kStripRows, class Column, class Outputs>
void runStripsOnHost(int width, int height, Column&& column, Outputs&& outputs) {
  using Lane = StripLane<R, Rows>;
  using Result = decltype(column(std::declval<const Lane&>()));
  for (int by = 0; by < stripBlocksDown(height, Rows); ++by)
    for (int bx = 0; bx < stripBlocksAcross<R>(width); ++bx)
      for (int warp = 0; warp < kStripWarps; ++warp) {
        if (!Lane(bx, by, warp * 32).warpHasWork(width)) continue;
        std::vector<Result> lanes;
        lanes.reserve(32);
        for (int lane = 0; lane < 32; ++lane) lanes.push_back(column(Lane(bx, by, warp * 32 + lane)));
        for (int lane = 0; lane < 32; ++lane) {
          const Lane l(bx, by, warp * 32 + lane);
          if (l.ownsColumn(width)) outputs(l, lanes.data() + lane);
        }
      }
}

}  // namespace vp::test
