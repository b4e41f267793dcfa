// The edge filter's GPU work as plain per-lane functions (edges.cu wraps them in the kernel,
// with warp shuffles between the two stages; the tests run them on the CPU for every block,
// warp and lane, the shuffles replaced by reading the neighbouring lanes' results).
//
// A warp owns a strip of 30 output columns and kRows rows (common/warp_strip.h at radius 1):
// lane l works on column x0 - 1 + l, so lanes 1..30 own outputs and lanes 0 and 31 are the
// strip's halo (the neighbouring strips' edge columns, read again: an L1/L2 hit). Stage 1,
// per lane: the column's pixels of rows y0 - 1 .. y0 + kRows (coordinates clamped: border replicate), their
// luma, and per output row the column's vertical Sobel sums. Stage 2, per owning lane: Gx and
// Gy from its own and its two neighbours' sums, the magnitude and the output pixel. No shared
// memory and no barrier; every row's loads are issued before the first is used.
#pragma once

#include "gpu/filters/common/tile_access.h"
#include "gpu/filters/common/warp_strip.h"
#include "gpu/filters/edges/edges_math.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::edges {

// The warp-strip layout at radius 1 (common/warp_strip.h): 30 output columns a warp.
constexpr int kRows = kStripRows;
using Lane = StripLane<1, kRows>;

__host__ __device__ inline int clampTo(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

// Stage 1's result: per output row i (y0 + i), the column's input pixel and its vertical
// sums Y(y-1) + 2 Y(y) + Y(y+1) and Y(y+1) - Y(y-1).
struct Column {
  uint32_t pixel[kRows];
  int smooth[kRows];
  int diff[kRows];
};

__host__ __device__ inline void columnOf(ConstRgbaView in, const Lane& l, Column& c) {
  const int x = clampTo(l.x, in.width);
  uint32_t px[kRows + 2];
VP_UNROLL
  for (int i = 0; i < kRows + 2; ++i) px[i] = tiles::loadPixel(in, x, clampTo(l.y0 - 1 + i, in.height));
  int y[kRows + 2];
VP_UNROLL
  for (int i = 0; i < kRows + 2; ++i) y[i] = int(lumaOf(px[i]));
VP_UNROLL
  for (int i = 0; i < kRows; ++i) {
    c.pixel[i] = px[i + 1];
    c.smooth[i] = y[i] + 2 * y[i + 1] + y[i + 2];
    c.diff[i] = y[i + 2] - y[i];
  }
}

// Stage 2: the output pixel of an owned column at row i of the strip, from the left (L),
// own (C) and right (R) columns' sums: Gx = smooth(x+1) - smooth(x-1), Gy = diff(x-1)
// + 2 diff(x) + diff(x+1), the definition of edges.h regrouped (integers: exact).
__host__ __device__ inline uint32_t stripOutput(int smoothL, int smoothR, int diffL, int diffC, int diffR,
                                                uint32_t pixel, const EdgesParams& params) {
  return edgePixel(sobelSquare(smoothR - smoothL, diffL + 2 * diffC + diffR), pixel, params);
}

}  // namespace vp::edges
