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
#include <type_traits>
#include <utility>

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
  static constexpr int kWarps = kStripWarps;  // warps per block, strips side by side
  int x, y0, lane;
  __host__ __device__ StripLane(int bx, int by, int t)
      : x((bx * kStripWarps + t / 32) * stripCols(R) + t % 32 - R), y0(by * Rows), lane(t % 32) {}
  // The warp has an output inside the image (a warp-uniform test).
  __host__ __device__ bool warpHasWork(int width) const { return x - lane + R < width; }
  __host__ __device__ bool ownsColumn(int width) const { return lane >= R && lane < 32 - R && x < width; }
};

// Warp strips of two columns a lane (the median's strips, the Gaussian's wide strips): lane l
// works on columns x, x + 1 with x = x0 - 2 Halo + 2l, so lanes Halo .. 31 - Halo own
// kCols output columns and the outer Halo lanes each side (2 Halo columns) are the halo.
template <int Halo, int Rows = kStripRows, int Warps = kStripWarps>
struct PairLane {
  static constexpr int kCols = 2 * (32 - 2 * Halo);  // output columns per warp
  static constexpr int kWarps = Warps;               // warps per block, strips side by side
  int x, y0, lane;
  __host__ __device__ PairLane(int bx, int by, int t)
      : x((bx * Warps + t / 32) * kCols - 2 * Halo + 2 * (t % 32)), y0(by * Rows), lane(t % 32) {}
  // The warp's first output column is inside the image (a warp-uniform test).
  __host__ __device__ bool warpHasWork(int width) const { return x - 2 * lane + 2 * Halo < width; }
  __host__ __device__ bool ownsColumns(int width) const {
    return lane >= Halo && lane < 32 - Halo && x < width;
  }
  // Blocks across a width-pixel frame.
  static constexpr int blocksAcross(int width) { return (width + Warps * kCols - 1) / (Warps * kCols); }
};

// A lane's columns through the border, for loading its sample rows one at a time: row(i, px...)
// sets px to the pixels (extX(l.x + c), extY(l.y0 - R + i)), 0 where the zero border applies.
// laneSamples loads every row at once; a kernel that uses its rows in order can load each a
// few rows before its use and keep fewer live.
template <int R, int Rows, int Cols>
struct LaneColumns {
  ConstRgbaView in;
  BorderMode border;
  int xs[Cols];  // < 0: a zero sample (border zero)
  int y0;
  bool rowsInside;
  template <class Lane>
  __host__ __device__ LaneColumns(ConstRgbaView view, BorderMode mode, const Lane& l)
      : in(view), border(mode), y0(l.y0) {
    VP_UNROLL
    for (int c = 0; c < Cols; ++c) xs[c] = extendIndex(l.x + c, in.width, border);
    rowsInside = l.y0 - R >= 0 && l.y0 + Rows + R <= in.height;
  }
  template <class... Px>
  __host__ __device__ void row(int i, Px&... px) const {
    static_assert(sizeof...(Px) == Cols, "one pixel a column");
    const int y = rowsInside ? y0 - R + i : extendIndex(y0 - R + i, in.height, border);
    int c = 0;
    ((px = (xs[c] >= 0 && y >= 0) ? tiles::loadPixel(in, xs[c], y) : 0u, ++c), ...);
  }
};

namespace detail {
template <int R, int Rows, class Lane, int... C, class... Column>
__host__ __device__ inline void laneSamples(ConstRgbaView in, BorderMode border, const Lane& l,
                                            std::integer_sequence<int, C...>, Column&... px) {
  const LaneColumns<R, Rows, sizeof...(C)> columns(in, border, l);
  VP_UNROLL
  for (int i = 0; i < Rows + 2 * R; ++i) columns.row(i, px[i]...);
}
}  // namespace detail

// The samples of a lane's columns l.x, l.x + 1, ... through the border, one array of Rows + 2R
// each (Lane: StripLane or a layout like it, with the lane's first column x and the strip's
// first output row y0): the c-th array's [i] is pixel (extX(l.x + c), extY(l.y0 - R + i)), 0
// where the zero border applies. The loads go row by row, a row's columns in order; every load
// is issued before any is used.
template <int R, int Rows, class Lane, class... Column>
__host__ __device__ inline void laneSamples(ConstRgbaView in, BorderMode border, const Lane& l,
                                            Column&... px) {
  static_assert((std::is_same_v<Column, uint32_t[Rows + 2 * R]> && ...), "Rows + 2R samples a column");
  detail::laneSamples<R, Rows>(in, border, l, std::make_integer_sequence<int, sizeof...(Column)>{}, px...);
}

// The lane's column samples: laneSamples of its one column.
template <int R, int Rows>
__host__ __device__ inline void stripSamples(ConstRgbaView in, BorderMode border, const StripLane<R, Rows>& l,
                                             uint32_t (&px)[Rows + 2 * R]) {
  laneSamples<R, Rows>(in, border, l, px);
}

}  // namespace vp
