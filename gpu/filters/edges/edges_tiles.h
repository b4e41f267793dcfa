// The edge filter's GPU work as plain per-thread functions (edges.cu wraps them in the
// kernel, a barrier between the two phases; the tests run them on the CPU for every block
// and thread, every access bounds-checked: gpu/filters/common/tile_access.h).
//
// A 256-thread block owns a kTileCols x kTileRows output tile. Phase 1: the luma of the tile
// and a 1-pixel halo, each pixel's once (coordinates clamped: border replicate), into
// shared memory. Phase 2: a thread owns one column and kTileRows / 8 rows of the tile
// (lanes: consecutive columns, so loads, luma reads and stores are contiguous); per output
// it reads the 3x3 luma neighbourhood, computes Gx, Gy, the magnitude and the output pixel.
#pragma once

#include "gpu/filters/edges/edges_math.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::edges {

using tiles::Tile;

constexpr int kThreads = 256;
constexpr int kTileCols = 32;
constexpr int kTileRows = 32;
constexpr int kRowsPerThread = kTileRows / (kThreads / kTileCols);  // 4
constexpr int kLumaCols = kTileCols + 2;
constexpr int kLumaRows = kTileRows + 2;
constexpr int kLumaStride = kLumaCols + 2;  // bytes per shared luma row
constexpr int kLumaBytes = kLumaRows * kLumaStride;

struct EdgesBlock {
  Tile<uint8_t> luma;  // Y of (x0 - 1 + c, y0 - 1 + r), coordinates clamped
  int x0, y0;
  __host__ __device__ EdgesBlock(uint8_t* smem, int bx, int by) : x0(bx * kTileCols), y0(by * kTileRows) {
    luma = {smem, kLumaRows, kLumaCols, kLumaStride};
  }
};

__host__ __device__ inline int clampTo(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

__host__ __device__ inline void edgesStage(const EdgesBlock& b, ConstRgbaView in, int t) {
  for (int i = t; i < kLumaRows * kLumaCols; i += kThreads) {
    const int r = i / kLumaCols, c = i % kLumaCols;
    const int x = clampTo(b.x0 - 1 + c, in.width), y = clampTo(b.y0 - 1 + r, in.height);
    b.luma.at(r, c) = static_cast<uint8_t>(lumaOf(tiles::loadPixel(in, x, y)));
  }
}

__host__ __device__ inline void edgesOutputs(const EdgesBlock& b, ConstRgbaView in, RgbaView out,
                                             const EdgesParams& params, int t) {
  const int c = t % kTileCols, x = b.x0 + c;
  if (x >= out.width) return;
VP_UNROLL
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int r = t / kTileCols + i * (kThreads / kTileCols), y = b.y0 + r;
    if (y >= out.height) break;
    uint32_t n[3][3];
VP_UNROLL
    for (int dy = 0; dy < 3; ++dy)
VP_UNROLL
      for (int dx = 0; dx < 3; ++dx) n[dy][dx] = b.luma.at(r + dy, c + dx);
    tiles::storePixel(out, x, y, edgePixel(sobelAt(n), tiles::loadPixel(in, x, y), params));
  }
}

}  // namespace vp::edges
