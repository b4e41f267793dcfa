// Warp-strip kernels (gpu/filters/common/warp_strip.h) run on the host: for every block and
// warp with work, the per-lane first stage for all 32 lanes, then the output stage for each
// owning lane with the warp's first-stage results in hand, the neighbours' where the
// kernel's shuffles read them.
#pragma once

#include "gpu/filters/common/warp_strip.h"

#include <utility>
#include <vector>

namespace vp::test {

// The loop over blocks, warps and lanes for any strip layout Lane (constructed from block x,
// block y and thread; warpHasWork(width)): column(lane) -> T is stage 1 for all 32 lanes of a
// warp with work, then outputs(lane, const T* own) for each lane that owns(lane) says has
// outputs, own[d] its neighbour d lanes to the right.
template <class Lane, class Column, class Owns, class Outputs>
void runLanesOnHost(int blocksAcross, int blocksDown, int width, Column&& column, Owns&& owns,
                    Outputs&& outputs) {
  using Result = decltype(column(std::declval<const Lane&>()));
  for (int by = 0; by < blocksDown; ++by)
    for (int bx = 0; bx < blocksAcross; ++bx)
      for (int warp = 0; warp < Lane::kWarps; ++warp) {
        if (!Lane(bx, by, warp * 32).warpHasWork(width)) continue;
        std::vector<Result> lanes;
        lanes.reserve(32);
        for (int lane = 0; lane < 32; ++lane) lanes.push_back(column(Lane(bx, by, warp * 32 + lane)));
        for (int lane = 0; lane < 32; ++lane) {
          const Lane l(bx, by, warp * 32 + lane);
          if (owns(l)) outputs(l, lanes.data() + lane);
        }
      }
}

// column(lane) -> T: stage 1 of a StripLane<R, Rows>; outputs(lane, const T* own): the
// owning lane's outputs, own[d] its neighbour d lanes to the right (d = -R..R).
template <int R, int Rows = kStripRows, class Column, class Outputs>
void runStripsOnHost(int width, int height, Column&& column, Outputs&& outputs) {
  using Lane = StripLane<R, Rows>;
  runLanesOnHost<Lane>(
      stripBlocksAcross<R>(width), stripBlocksDown(height, Rows), width, column,
      [width](const Lane& l) { return l.ownsColumn(width); }, outputs);
}

}  // namespace vp::test
