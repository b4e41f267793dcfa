// Warp strips: the work layout of the one-kernel stencils that keep their window in
// registers instead of shared memory (the edge filter, the box blur's strip pass). A warp
// owns a strip of 32 - 2R output columns and kStripRows rows, R the stencil's radius: lane l
// works on column x0 - R + l, so lanes R .. 31 - R own outputs and the outer R lanes each
// side re-read the neighbouring strips' columns (from L1/L2) for the shuffles. kStripWarps
// strips side by side make a block.
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__

namespace vp {

constexpr int kStripWarps = 8;  // warps per block, strips side by side
constexpr int kStripThreads = kStripWarps * 32;
constexpr int kStripRows = 8;  // output rows per warp

__host__ __device__ constexpr int stripCols(int r) { return 32 - 2 * r; }  // output columns per warp

// Blocks across a width-pixel frame and down a height-pixel one.
template <int R>
constexpr int stripBlocksAcross(int width) {
  return (width + kStripWarps * stripCols(R) - 1) / (kStripWarps * stripCols(R));
}
constexpr int stripBlocksDown(int height) { return (height + kStripRows - 1) / kStripRows; }

// Where thread t of block (bx, by) works at radius R: its column (outside the image for
// some halo lanes and for lanes past the right edge) and the strip's first output row.
template <int R>
struct StripLane {
  int x, y0, lane;
  __host__ __device__ StripLane(int bx, int by, int t)
      : x((bx * kStripWarps + t / 32) * stripCols(R) + t % 32 - R), y0(by * kStripRows), lane(t % 32) {}
  // The warp has an output inside the image (a warp-uniform test).
  __host__ __device__ bool warpHasWork(int width) const { return x - lane + R < width; }
  __host__ __device__ bool ownsColumn(int width) const { return lane >= R && lane < 32 - R && x < width; }
};

}  // namespace vp
