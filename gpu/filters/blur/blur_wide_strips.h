// Box blur's wide strip pass for medium radii (blur_wide_strips.cu): both axes in one
// kernel, no shared memory, no barrier, no sums buffer. Plain per-lane stages: the kernel
// joins them with warp shuffles, the tests run them on the CPU for every block, warp, lane
// and row, reading the other lanes' results instead.
//
// A warp owns 32 - 2H lanes of K consecutive output columns each and kWideRows rows, H = r/K + 1
// halo lanes each side (H K > r columns). Stage 1, per lane: the vertical window sums of its K
// columns (R | B << 16 and G | A << 16, exact: a column window holds <= 257 samples), the first
// window summed, then slid a row at a time (+ the entering row, - the leaving one). Stage 2, per
// row: the warp's prefix P(n) of the column sums per channel, n counted from the warp's first
// (halo) column: a lane's own K prefixes (lanePrefix) plus the totals of the lanes before it
// (the kernel's shuffle scan). Column n's window is P(n + r + 1) - P(n - r): two values a
// channel from the lanes q or q + 1 away, q = r / K (wideSources). Divided by the CPU twin's
// multiply-shift, alpha from the centre pixel: the same integers, so the same bytes.
#pragma once

#include "gpu/filters/blur/box_blur_math.h"
#include "gpu/filters/common/border.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::blur {

constexpr int kWideWarps = 4;  // warps per block, strips side by side
constexpr int kWideThreads = 32 * kWideWarps;
constexpr int kWideRows = 16;             // output rows per warp
constexpr int kMaxWideStripRadius = 50;   // 16-bit column sums: (2r + 1) 255 < 2^16 up to r = 127

__host__ __device__ constexpr int wideHalo(int r, int k) { return r / k + 1; }                // halo lanes each side
__host__ __device__ constexpr int wideCols(int r, int k) { return (32 - 2 * wideHalo(r, k)) * k; }  // outputs a warp

// Where thread t of block (bx, by) works at radius r: its first column x (outside the image
// for some halo lanes and past the right edge), the strip's first output row.
template <int K, int Rows = kWideRows>
struct WideLane {
  static constexpr int kWarps = kWideWarps;
  int halo, lane, x, y0;
  __host__ __device__ WideLane(int bx, int by, int t, int r)
      : halo(wideHalo(r, K)),
        lane(t % 32),
        x((bx * kWideWarps + t / 32) * wideCols(r, K) + (t % 32 - halo) * K),
        y0(by * Rows) {}
  // The warp's first output column is inside the image (a warp-uniform test).
  __host__ __device__ bool warpHasWork(int width) const { return x - (lane - halo) * K < width; }
  __host__ __device__ bool owns() const { return lane >= halo && lane < 32 - halo; }
  static int blocksAcross(int width, int r) {
    return (width + kWideWarps * wideCols(r, K) - 1) / (kWideWarps * wideCols(r, K));
  }
  static int blocksDown(int height) { return (height + Rows - 1) / Rows; }
};

// Output j of a lane (column n = lane K + j of the warp) reads P(n + r + 1) from the lane
// `right` lanes on, its prefix rightIndex, and P(n - r) from the lane `left` lanes back, its
// prefix leftIndex; r = q K + m. The indices depend on j and m alone.
struct WideSources {
  int right, rightIndex, left, leftIndex;
};
__host__ __device__ constexpr WideSources wideSources(int j, int q, int m, int k) {
  const int jr = j + m + 1, jl = j - m;
  return {q + jr / k, jr % k, q + (jl >= 0 ? 0 : 1), jl >= 0 ? jl : jl + k};
}

// Stage 1's state: the vertical window sums of the lane's K columns.
template <int K>
struct WideColumns {
  uint32_t rb[K], ga[K];
  __host__ __device__ void clear() {
    VP_UNROLL
    for (int c = 0; c < K; ++c) rb[c] = ga[c] = 0u;
  }
  __host__ __device__ void add(const uint32_t (&px)[K]) {
    VP_UNROLL
    for (int c = 0; c < K; ++c) rb[c] += lanesRb(px[c]), ga[c] += lanesGa(px[c]);
  }
  // One row down: + the entering row, - the leaving one (mod 2^32 per word, exact per lane).
  __host__ __device__ void slide(const uint32_t (&enter)[K], const uint32_t (&leave)[K]) {
    VP_UNROLL
    for (int c = 0; c < K; ++c) {
      rb[c] += lanesRb(enter[c]) - lanesRb(leave[c]);
      ga[c] += lanesGa(enter[c]) - lanesGa(leave[c]);
    }
  }
};

// Stage 2 per lane: the exclusive prefix of its columns per channel and the lane's totals.
template <int K>
struct WidePrefix {
  uint32_t r[K], g[K], b[K];
  uint32_t tr, tg, tb;
  __host__ __device__ explicit WidePrefix(const WideColumns<K>& s) : tr(0u), tg(0u), tb(0u) {
    VP_UNROLL
    for (int c = 0; c < K; ++c) {
      r[c] = tr, g[c] = tg, b[c] = tb;
      tr += s.rb[c] & 0xFFFFu, tb += s.rb[c] >> 16, tg += s.ga[c] & 0xFFFFu;
    }
  }
  // Adds the totals of the lanes before this one: r[c] is then P(lane K + c).
  __host__ __device__ void offset(uint32_t er, uint32_t eg, uint32_t eb) {
    VP_UNROLL
    for (int c = 0; c < K; ++c) r[c] += er, g[c] += eg, b[c] += eb;
  }
};

// The output pixel from the window's channel sums and the centre pixel (its alpha).
__host__ __device__ inline uint32_t wideOutput(uint32_t sr, uint32_t sg, uint32_t sb, uint32_t centre,
                                               const Divider& dv) {
  return roundDiv(sr, dv) | roundDiv(sg, dv) << 8 | roundDiv(sb, dv) << 16 | (centre & 0xFF000000u);
}

// The row index through the border (-1: a zero row).
__host__ __device__ inline int wideRow(int y, int height, BorderMode border) {
  return y >= 0 && y < height ? y : extendIndex(y, height, border);
}

// The lane's K pixels of row y (already through the border) one by one: the kernel's path
// where its columns are not one aligned run inside the image, and the tests' on the CPU.
template <int K>
__host__ __device__ inline void wideRowPixels(ConstRgbaView in, int y, const int (&xs)[K], uint32_t (&px)[K]) {
  VP_UNROLL
  for (int c = 0; c < K; ++c) px[c] = y >= 0 && xs[c] >= 0 ? tiles::loadPixel(in, xs[c], y) : 0u;
}

}  // namespace vp::blur
