// Warp strips: the work layout of the one-kernel stencils that keep their window in
// registers instead of shared memory (the edge filter, the box blur's strip pass). A warp
// owns a strip of 32 - 2R output columns and kStripRows rows, R the stencil's radius: lane l
// works on column x0 - R + l, so lanes R .. 31 - R own outputs and the outer R lanes each
// side re-read the neighbouring strips' columns (from L1/L2) for the shuffles. kStripWarps
// strips side by side make a block. A strip is kStripRows rows unless a kernel's halo rows
// cost enough to take more (Rows).
#pragma once

#include "gpu/filters/common/border.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>  // __host__ __device__

#include <cstdint>

namespace vp {

constexpr int kStripWarps = 8;  // warps per block, strips side by side
constexpr int kStripThreads = kStripWarps * 32;
constexpr int kStripRows = 8;  // output rows per warp, by default

__host__ __device__ constexpr int stripCols(int r) { return 32 - 2 * r; }  // output columns per warp

// Blocks across a width-pixel frame and down a height-pixel one.
template <int R>
constexpr int stripBlocksAcross(int width) {
  return (width + kStripWarps * stripCols(R) - 1) / (kStripWarps * stripCols(R));
}
constexpr int stripBlocksDown(int height, int rows = kStripRows) { return (height + rows - 1) / rows; }

// Where thread t of block (bx, by) works at radius R: its column (outside the image for
// some halo lanes and for lanes past the right edge) and the strip's first output row.
template <int R, int Rows = kStripRows>
struct StripLane {
  int x, y0, lane;
  __host__ __device__ StripLane(int bx, int by, int t)
      : x((bx * kStripWarps + t / 32) * stripCols(R) + t % 32 - R), y0(by * Rows), lane(t % 32) {}
  // The warp has an output inside the image (a warp-uniform test).
  __host__ __device__ bool warpHasWork(int width) const { return x - lane + R < width; }
  __host__ __device__ bool ownsColumn(int width) const { return lane >= R && lane < 32 - R && x < width; }
};

// The lane's column samples through the border: px[i] is pixel (extX(x), extY(y0 - R + i))
// for i < Rows + 2R, 0 where the zero border applies. Every load is issued before any is used.
template <int R, int Rows>
__host__ __device__ inline void stripSamples(ConstRgbaView in, BorderMode border, const StripLane<R, Rows>& l,
                                             uint32_t (&px)[Rows + 2 * R]) {
  const int x = extendIndex(l.x, in.width, border);  // < 0: a zero sample (border zero)
  const bool rowsInside = l.y0 - R >= 0 && l.y0 + Rows + R <= in.height;
  VP_UNROLL
  for (int i = 0; i < Rows + 2 * R; ++i) {
    const int y = rowsInside ? l.y0 - R + i : extendIndex(l.y0 - R + i, in.height, border);
    px[i] = (x >= 0 && y >= 0) ? tiles::loadPixel(in, x, y) : 0u;
  }
}

}  // namespace vp
