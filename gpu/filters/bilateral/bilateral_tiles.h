// The bilateral filter's GPU work as plain per-thread functions: bilateral.cu wraps them
// in the kernel (a barrier between the two phases), and the tests run the same functions
// on the CPU for every block and thread, every shared- and global-memory access
// bounds-checked (common/tile_access.h). Contract: bilateral.h.
//
// A 256-thread block (32 x 8) owns a 32 x (8 K) output tile, K = output rows per thread.
// Phase 1 stages the border-extended input around the tile, (32 + 2r) x (8K + 2r) samples,
// each as four floats (R, G, B, R^2 + G^2 + B^2: exact integers), one 16-byte word a lane,
// so a warp's row reads are conflict-free. Phase 2: thread (tx, ty) computes the K outputs
// (x0 + tx, y0 + K ty + k), k < K. It walks tile rows j = 0 .. 2r + K - 1 (its window rows
// joined) and in each row the 2r + 1 columns; every sample loaded serves each output k
// whose window holds row j (0 <= j - k <= 2r). Rows j < K - 1 and j > 2r serve some
// outputs only: they are their own compile-time cases (a short loop over the columns);
// the rows between serve all K, the column loop unrolled, the column's spatial term a
// constant operand. Each output still sees its taps in raster order, as the CPU twin adds
// them.
#pragma once

#include "gpu/filters/bilateral/bilateral_math.h"
#include "gpu/filters/common/border.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <vector_functions.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define VP_BILATERAL_ROLLED _Pragma("unroll 1")
#else
#define VP_BILATERAL_ROLLED
#endif

namespace vp::bilateral {

using tiles::Tile;

constexpr int kTileCols = 32;    // output columns per block = threads per block row
constexpr int kThreadRows = 8;   // thread rows per block
constexpr int kThreads = kTileCols * kThreadRows;

__host__ __device__ constexpr int stageCols(int r) { return kTileCols + 2 * r; }
__host__ __device__ constexpr int stageRows(int r, int k) { return kThreadRows * k + 2 * r; }
// Dynamic shared memory of one block (bytes): 61,504 at r = 15, K = 4.
__host__ __device__ constexpr size_t stageBytes(int r, int k) {
  return size_t(stageCols(r)) * size_t(stageRows(r, k)) * sizeof(float4);
}

struct BilateralBlock {
  Tile<float4> samples;  // sample (x0 - r + c, y0 - r + row), border-extended
  int x0, y0;            // the output tile's first pixel
  __host__ __device__ BilateralBlock(float4* smem, int r, int k, int bx, int by)
      : x0(bx * kTileCols), y0(by * kThreadRows * k) {
    samples = {smem, stageRows(r, k), stageCols(r), stageCols(r)};
  }
};

// R, G, B and R^2 + G^2 + B^2 of an RGBA word, as floats (exact).
__host__ __device__ inline float4 sampleOf(uint32_t word) {
  const int r = int(word & 0xFFu), g = int((word >> 8) & 0xFFu), b = int((word >> 16) & 0xFFu);
  return make_float4(float(r), float(g), float(b), float(r * r + g * g + b * b));
}

// Phase 1: every sample of the block's tile (a zero-border sample is (0, 0, 0, 0)).
__host__ __device__ inline void bilateralStage(const BilateralBlock& b, ConstRgbaView in, BorderMode border,
                                               int r, int t) {
  const int rows = b.samples.rows, cols = b.samples.cols;
  for (int row = t / kTileCols; row < rows; row += kThreadRows) {
    const int sy = extendIndex(b.y0 - r + row, in.height, border);
    for (int c = t % kTileCols; c < cols; c += kTileCols) {
      const int sx = extendIndex(b.x0 - r + c, in.width, border);
      const uint32_t word = (sx >= 0 && sy >= 0) ? tiles::loadPixel(in, sx, sy) : 0u;
      b.samples.at(row, c) = sampleOf(word);
    }
  }
}

// What a tap needs of its output's centre pixel p: |p|^2 and -2 p.
struct Centre {
  float pp, mr, mg, mb;
};

__host__ __device__ inline Centre centreOf(float4 p) {
  return {p.w, mulRn(-2.f, p.x), mulRn(-2.f, p.y), mulRn(-2.f, p.z)};
}

// ||q - p||^2 = |p|^2 - 2 q.p + |q|^2: every partial sum an integer below 2^24 in
// magnitude, so each step is exact and the result is the integer the CPU twin computes.
__host__ __device__ inline float squaredDistance(float4 q, const Centre& c) {
  return addRn(fmaRn(q.z, c.mb, fmaRn(q.y, c.mg, fmaRn(q.x, c.mr, c.pp))), q.w);
}

// Sample q of tile row j, column offset index dx, into outputs KLo..KHi.
template <int K, int KLo, int KHi>
__host__ __device__ inline void tapSample(float4 q, float ax, const float (&ay)[K], float rangeScale,
                                          const Centre (&c)[K], Sums (&s)[K]) {
VP_UNROLL
  for (int k = KLo; k <= KHi; ++k)
    addTap(s[k], tapWeight(squaredDistance(q, c[k]), ax, ay[k], rangeScale), q.x, q.y, q.z);
}

// Tile row j (relative to the thread's first window row) into outputs KLo..KHi, whose
// window rows it is (offset index j - k). Unrolled: the column loop unrolled.
template <int R, int K, int KLo, int KHi, bool Unrolled>
__host__ __device__ inline void tapRow(const BilateralBlock& b, const Tables& tab, int row0, int tx, int j,
                                       const Centre (&c)[K], Sums (&s)[K]) {
  float ay[K] = {};
VP_UNROLL
  for (int k = KLo; k <= KHi; ++k) ay[k] = tab.spatial[j - k];
  if constexpr (Unrolled) {
VP_UNROLL
    for (int dx = 0; dx <= 2 * R; ++dx)
      tapSample<K, KLo, KHi>(b.samples.at(row0 + j, tx + dx), tab.spatial[dx], ay, tab.rangeScale, c, s);
  } else {
VP_BILATERAL_ROLLED
    for (int dx = 0; dx <= 2 * R; ++dx)
      tapSample<K, KLo, KHi>(b.samples.at(row0 + j, tx + dx), tab.spatial[dx], ay, tab.rangeScale, c, s);
  }
}

// Rows j = J .. K - 2, each into outputs 0..j (the first rows, before every window has begun).
template <int R, int K, int J>
__host__ __device__ inline void leadingRows(const BilateralBlock& b, const Tables& tab, int row0, int tx,
                                            const Centre (&c)[K], Sums (&s)[K]) {
  if constexpr (J <= K - 2) {
    tapRow<R, K, 0, J, false>(b, tab, row0, tx, J, c, s);
    leadingRows<R, K, J + 1>(b, tab, row0, tx, c, s);
  }
}

// Rows j = 2R + I .. 2R + K - 1, each into outputs j - 2R .. K - 1 (the windows' ends).
template <int R, int K, int I>
__host__ __device__ inline void trailingRows(const BilateralBlock& b, const Tables& tab, int row0, int tx,
                                             const Centre (&c)[K], Sums (&s)[K]) {
  if constexpr (I <= K - 1) {
    tapRow<R, K, I, K - 1, false>(b, tab, row0, tx, 2 * R + I, c, s);
    trailingRows<R, K, I + 1>(b, tab, row0, tx, c, s);
  }
}

// Phase 2: thread t's K outputs, written where they fall inside the image.
template <int R, int K>
__host__ __device__ inline void bilateralOutputs(const BilateralBlock& b, ConstRgbaView in, RgbaView out,
                                                 const Tables& tab, int t) {
  const int tx = t % kTileCols, row0 = (t / kTileCols) * K;
  Centre c[K];
  Sums s[K];
VP_UNROLL
  for (int k = 0; k < K; ++k) c[k] = centreOf(b.samples.at(row0 + k + R, tx + R));
  leadingRows<R, K, 0>(b, tab, row0, tx, c, s);
VP_BILATERAL_ROLLED
  for (int j = K - 1; j <= 2 * R; ++j) tapRow<R, K, 0, K - 1, true>(b, tab, row0, tx, j, c, s);
  trailingRows<R, K, 1>(b, tab, row0, tx, c, s);
  const int x = b.x0 + tx;
  if (x >= out.width) return;
VP_UNROLL
  for (int k = 0; k < K; ++k) {
    const int y = b.y0 + row0 + k;
    if (y < out.height) tiles::storePixel(out, x, y, outputPixel(s[k], tiles::loadPixel(in, x, y) >> 24));
  }
}

}  // namespace vp::bilateral
