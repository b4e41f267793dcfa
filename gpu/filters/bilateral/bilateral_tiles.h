// The bilateral filter's GPU work as plain per-thread functions: bilateral.cu wraps them
// in the kernel (a barrier between the two phases), and the tests run the same functions
// on the CPU for every block and thread, every shared- and global-memory access
// bounds-checked (common/tile_access.h). Contract: bilateral.h; design:
// docs/design/bilateral.md.
//
// A 256-thread block (8 x 32) owns an 8K x 32 output tile, K = output columns per thread.
// Phase 1 stages the border-extended input around the tile, (8K + 2r) x (32 + 2r) samples,
// each as four floats (R, G, B, and the RGB word with alpha zero as the fourth float's
// bits), and builds the high weight table (bilateral_math.h) from the kernel parameters.
// A staged row is K planes, column c in plane c % K at position c / K, the planes packed
// back to back: the 8 threads of a block row, which read columns K tx + c, read 8
// consecutive 16-byte words (one shared-memory wavefront a quarter warp). Phase 2: thread
// (tx, ty) computes the K outputs (x0 + K tx + k, y0 + ty). For each window row j (rolled)
// it builds the row's lowSpatial entries in registers (LowRow) and loads the 2r + K
// samples of its tile row once each, adding each to every output k whose window holds it
// (column offset c - k in 0..2r): the row is unrolled, so every row has the same shape.
// Each output sees its taps in raster order, as the CPU twin adds them.
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

constexpr int kThreadCols = 8;   // threads per block row
constexpr int kThreadRows = 32;  // thread rows per block (a warp: 8 x 4 threads)
constexpr int kThreads = kThreadCols * kThreadRows;

// The layout of one block's shared memory at radius R, K columns per thread.
template <int R, int K>
struct BilateralLayout {
  static constexpr int kTileCols = kThreadCols * K;     // output columns per block
  static constexpr int kStageCols = kTileCols + 2 * R;  // staged columns = slots of a staged row
  static constexpr int kStageRows = kThreadRows + 2 * R;
  static constexpr int kSampleSlots = kStageRows * kStageCols;
  // Plane p (columns p, p + K, ...) holds q + (p < m) columns, kStageCols = q K + m, so it
  // starts at slot p q + min(p, m) (closed form: in the unrolled loops a constant).
  __host__ __device__ static constexpr int planeStart(int p) {
    return p * (kStageCols / K) + (p < kStageCols % K ? p : kStageCols % K);
  }
  // The staging threads: each owns one slot of a row and loads it in kStageRowsPerPass-row
  // strides, kStagePasses times.
  static constexpr int kStageRowsPerPass = kThreads / kStageCols;
  static constexpr int kStagePasses = (kStageRows + kStageRowsPerPass - 1) / kStageRowsPerPass;
  // Samples, then high: 74,116 bytes at r = 5, K = 8.
  static constexpr size_t kBytes =
      size_t(kSampleSlots) * sizeof(float4) + size_t(kHighEntries) * sizeof(float);
  static_assert(kStageRowsPerPass >= 1, "a staged row fits the block's threads");
};

template <int R, int K>
struct BilateralBlock {
  using Layout = BilateralLayout<R, K>;
  Tile<float4> samples;  // [row][slot]: sample (x0 - R + c, y0 - R + row), border-extended
  Tile<float> high;      // 1 x kHighEntries
  int x0, y0;            // the output tile's first pixel
  __host__ __device__ BilateralBlock(float4* smem, int bx, int by)
      : x0(bx * Layout::kTileCols), y0(by * kThreadRows) {
    samples = {smem, Layout::kStageRows, Layout::kStageCols, Layout::kStageCols};
    high = {reinterpret_cast<float*>(smem + Layout::kSampleSlots), 1, kHighEntries, kHighEntries};
  }
  // Staged column K tx + c of `row` (c a constant in the kernel's unrolled loops, so the
  // slot is the thread's base plus an immediate).
  __host__ __device__ float4& sample(int row, int tx, int c) const {
    VP_TILE_CHECK(tx >= 0 && c >= 0 && K * tx + c < Layout::kStageCols);
    return samples.at(row, Layout::planeStart(c % K) + tx + c / K);
  }
};

// R, G, B as floats (exact) and the word with alpha zero as the fourth float's bits.
__host__ __device__ inline float4 sampleOf(uint32_t word) {
  const uint32_t rgb = word & 0xFFFFFFu;
  return make_float4(float(rgb & 0xFFu), float((rgb >> 8) & 0xFFu), float(rgb >> 16), floatOf(rgb));
}

// Phase 1: every sample of the block's tile (a zero-border sample is (0, 0, 0, 0)) and
// the high table. Thread t owns slot t % kStageCols of rows t / kStageCols + i
// kStageRowsPerPass, so its column and that column's border extension are computed once;
// its pixels are all loaded before any is stored, so their global-memory latencies
// overlap instead of adding up.
template <int R, int K>
__host__ __device__ inline void bilateralStage(const BilateralBlock<R, K>& b, ConstRgbaView in,
                                               BorderMode border, const Tables& tab, int t) {
  using Layout = BilateralLayout<R, K>;
  const int slot = t % Layout::kStageCols, row0 = t / Layout::kStageCols;
  if (row0 < Layout::kStageRowsPerPass) {
    int plane = 0;
    VP_UNROLL
    for (int p = 1; p < K; ++p) plane += slot >= Layout::planeStart(p) ? 1 : 0;
    const int col = plane + K * (slot - Layout::planeStart(plane));
    const int sx = extendIndex(b.x0 - R + col, in.width, border);
    uint32_t words[Layout::kStagePasses];
    VP_UNROLL
    for (int i = 0; i < Layout::kStagePasses; ++i) {
      const int row = row0 + i * Layout::kStageRowsPerPass;
      const int sy = row < Layout::kStageRows ? extendIndex(b.y0 - R + row, in.height, border) : -1;
      words[i] = (sx >= 0 && sy >= 0) ? tiles::loadPixel(in, sx, sy) : 0u;
    }
    VP_UNROLL
    for (int i = 0; i < Layout::kStagePasses; ++i) {
      const int row = row0 + i * Layout::kStageRowsPerPass;
      if (row < Layout::kStageRows) b.samples.at(row, slot) = sampleOf(words[i]);
    }
  }
  for (int e = t; e < kHighEntries; e += kThreads) b.high.at(0, e) = highEntry(e, tab.rangeScale);
}

// A window row's lowSpatial entries (|dy| = ay), one run of 32 per |dx|. On the device lane
// l holds entry l of each run in a register, built from its low[l] (computed once) with the
// twin's two multiplications, and a tap reads its entry with a shuffle from lane d2 (the
// shuffle takes the lane index modulo 32, which is lowIndex(d2)): no table in shared
// memory, no index arithmetic, no shared-memory wavefront per tap. On the host (the tests'
// emulation, one thread at a time) the same entry computed for the tap.
template <int R>
struct LowRow {
#ifdef __CUDA_ARCH__
  float v[R + 1];
  __device__ LowRow(const Tables& tab, float low, int ay) {
    VP_UNROLL
    for (int ax = 0; ax <= R; ++ax) v[ax] = lowSpatialOf(ay, ax, low, tab);
  }
  __device__ float operator()(int ax, uint32_t d2) const { return __shfl_sync(0xFFFFFFFFu, v[ax], int(d2)); }
#else
  LowRow(const Tables& t, float /* the device's low[lane] */, int a) : tab(t), ay(a) {}
  const Tables& tab;
  int ay;
  float operator()(int ax, uint32_t d2) const {
    return lowSpatialOf(ay, ax, lowEntry(int(lowIndex(d2)), tab.rangeScale), tab);
  }
#endif
};

// Sample q (its word qw) at column offset index i (0..2R) into sums s.
template <int R, int K>
__host__ __device__ inline void addSample(const BilateralBlock<R, K>& b, const LowRow<R>& low, float4 q,
                                          uint32_t qw, uint32_t centre, int i, Sums& s) {
  const uint32_t d2 = squaredDistance(qw, centre);
  const float w = mulRn(b.high.at(0, int(highIndex(d2))), low(axisOffset(i, R), d2));
  addTap(s, w, q.x, q.y, q.z);
}

// Phase 2: thread t's K outputs, written where they fall inside the image.
template <int R, int K>
__host__ __device__ inline void bilateralOutputs(const BilateralBlock<R, K>& b, ConstRgbaView in,
                                                 RgbaView out, const Tables& tab, int t) {
  const int tx = t % kThreadCols, ty = t / kThreadCols;
  const float low = lowEntry(t % 32, tab.rangeScale);  // the lane's low[lane]
  uint32_t centre[K];
  Sums s[K];
  VP_UNROLL
  for (int k = 0; k < K; ++k) centre[k] = bitsOf(b.sample(ty + R, tx, k + R).w);
  VP_BILATERAL_ROLLED
  for (int j = 0; j <= 2 * R; ++j) {
    const LowRow<R> lowRow{tab, low, axisOffset(j, R)};
    VP_UNROLL
    for (int c = 0; c < 2 * R + K; ++c) {
      const float4 q = b.sample(ty + j, tx, c);
      const uint32_t qw = bitsOf(q.w);
      VP_UNROLL
      for (int k = 0; k < K; ++k)
        if (c - k >= 0 && c - k <= 2 * R) addSample(b, lowRow, q, qw, centre[k], c - k, s[k]);
    }
  }
  const int y = b.y0 + ty;
  if (y >= out.height) return;
  VP_UNROLL
  for (int k = 0; k < K; ++k) {
    const int x = b.x0 + K * tx + k;
    if (x < out.width) tiles::storePixel(out, x, y, outputPixel(s[k], tiles::loadPixel(in, x, y) >> 24));
  }
}

}  // namespace vp::bilateral
