// The bilateral filter's GPU work as plain per-thread functions: bilateral.cu wraps them
// in the kernel (a barrier between the two phases), and the tests run the same functions
// on the CPU for every block and thread, every shared- and global-memory access
// bounds-checked (common/tile_access.h). Contract: bilateral.h; design:
// docs/design/bilateral.md.
//
// A 256-thread block (8 x 32) owns an 8K x 32 output tile, K = output columns per thread.
// Phase 1 stages the border-extended input around the tile, (8K + 2r) x (32 + 2r) samples,
// each as four floats (R, G, B, and the RGB word with alpha zero as the fourth float's
// bits), and builds the weight tables (bilateral_math.h: high, and lowSpatial with the
// spatial factors folded in) from the kernel parameters. A staged row is K planes:
// column c at plane c % K, position c / K, so that the 8 threads of a block row, which
// read columns K tx + c, read 8 consecutive 16-byte words (one shared-memory wavefront a
// quarter warp). Phase 2: thread (tx, ty) computes the K outputs (x0 + K tx + k, y0 + ty).
// For each window row j (rolled) it loads the 2r + K samples of its tile row once each and
// adds each to every output k whose window holds it (column offset c - k in 0..2r): the
// row is unrolled, so every row has the same shape and each tap's low-table offset is a
// constant. Each output sees its taps in raster order, as the CPU twin adds them.
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
  static constexpr int kTileCols = kThreadCols * K;             // output columns per block
  static constexpr int kStageCols = kTileCols + 2 * R;          // staged columns
  static constexpr int kStageRows = kThreadRows + 2 * R;        // staged rows
  static constexpr int kPlaneWidth = (kStageCols + K - 1) / K;  // positions per plane
  static constexpr int kRowSlots = K * kPlaneWidth;             // float4 slots per staged row
  static constexpr int kSampleSlots = kStageRows * kRowSlots;
  static constexpr int kLowSpatialEntries = lowSpatialEntries(R);
  // Samples, then high, then lowSpatial: 82,756 bytes at r = 5, K = 8.
  static constexpr size_t kBytes =
      size_t(kSampleSlots) * sizeof(float4) + size_t(kHighEntries + kLowSpatialEntries) * sizeof(float);
};

template <int R, int K>
struct BilateralBlock {
  using Layout = BilateralLayout<R, K>;
  Tile<float4> samples;    // [row][plane][position]: sample (x0 - R + c, y0 - R + row), border-extended
  Tile<float> high;        // 1 x kHighEntries
  Tile<float> lowSpatial;  // 1 x lowSpatialEntries(R)
  int x0, y0;              // the output tile's first pixel
  __host__ __device__ BilateralBlock(float4* smem, int bx, int by)
      : x0(bx * Layout::kTileCols), y0(by * kThreadRows) {
    float* tables = reinterpret_cast<float*>(smem + Layout::kSampleSlots);
    samples = {smem, Layout::kStageRows, Layout::kRowSlots, Layout::kRowSlots};
    high = {tables, 1, kHighEntries, kHighEntries};
    lowSpatial = {tables + kHighEntries, 1, Layout::kLowSpatialEntries, Layout::kLowSpatialEntries};
  }
  // Staged column K tx + c of `row`: plane c % K, position tx + c / K (c a constant in the
  // kernel's unrolled loops, so the slot is the thread's base plus an immediate).
  __host__ __device__ float4& sample(int row, int tx, int c) const {
    VP_TILE_CHECK(tx >= 0 && c >= 0 && K * tx + c < Layout::kStageCols);
    return samples.at(row, (c % K) * Layout::kPlaneWidth + tx + c / K);
  }
};

// R, G, B as floats (exact) and the word with alpha zero as the fourth float's bits.
__host__ __device__ inline float4 sampleOf(uint32_t word) {
  const uint32_t rgb = word & 0xFFFFFFu;
  return make_float4(float(rgb & 0xFFu), float((rgb >> 8) & 0xFFu), float(rgb >> 16), floatOf(rgb));
}

// Phase 1: every sample of the block's tile (a zero-border sample is (0, 0, 0, 0)), in
// slot order (consecutive threads write consecutive words), and the two weight tables.
// A thread's pixels are all loaded before any is stored, so their global-memory
// latencies overlap instead of adding up (one load in flight at a time stalled the block
// for ~12% of its time, bilateral.md).
template <int R, int K>
__host__ __device__ inline void bilateralStage(const BilateralBlock<R, K>& b, ConstRgbaView in,
                                               BorderMode border, const Tables& tab, int t) {
  using Layout = BilateralLayout<R, K>;
  constexpr int kPerThread = (Layout::kSampleSlots + kThreads - 1) / kThreads;
  // Slot s's staged column, or -1 where s is a plane's padding (never read) or past the end.
  auto columnOf = [](int s) {
    const int slot = s % Layout::kRowSlots;
    const int col = (slot % Layout::kPlaneWidth) * K + slot / Layout::kPlaneWidth;
    return s < Layout::kSampleSlots && col < Layout::kStageCols ? col : -1;
  };
  uint32_t words[kPerThread];
  VP_UNROLL
  for (int i = 0; i < kPerThread; ++i) {
    const int s = t + i * kThreads, col = columnOf(s);
    const int sx = col < 0 ? -1 : extendIndex(b.x0 - R + col, in.width, border),
              sy = col < 0 ? -1 : extendIndex(b.y0 - R + s / Layout::kRowSlots, in.height, border);
    words[i] = (sx >= 0 && sy >= 0) ? tiles::loadPixel(in, sx, sy) : 0u;
  }
  VP_UNROLL
  for (int i = 0; i < kPerThread; ++i) {
    const int s = t + i * kThreads;
    if (columnOf(s) >= 0) b.samples.at(s / Layout::kRowSlots, s % Layout::kRowSlots) = sampleOf(words[i]);
  }
  for (int e = t; e < kHighEntries; e += kThreads) b.high.at(0, e) = highEntry(e, tab.rangeScale);
  for (int e = t; e < Layout::kLowSpatialEntries; e += kThreads)
    b.lowSpatial.at(0, e) = lowSpatialEntry(e, R, tab);
}

// A window row's lowSpatial entries, one run of 32 per |dx|. On the device lane l holds
// entry l of each run in a register and a tap reads its entry with a shuffle from lane
// d2 (the shuffle takes the lane index modulo 32, which is lowIndex(d2)): no index
// arithmetic and no shared-memory wavefront per tap. On the host (the tests' emulation,
// one thread at a time) the same entries straight from the table.
template <int R>
struct LowRow {
#ifdef __CUDA_ARCH__
  float v[R + 1];
  __device__ LowRow(const Tile<float>& low, int lowRow) {
    VP_UNROLL
    for (int ax = 0; ax <= R; ++ax) v[ax] = low.at(0, lowRow + lowSpatialBase(R, 0, ax) + int(threadIdx.x % 32));
  }
  __device__ float operator()(int ax, uint32_t d2) const { return __shfl_sync(0xFFFFFFFFu, v[ax], int(d2)); }
#else
  const Tile<float>& low;
  int lowRow;
  float operator()(int ax, uint32_t d2) const {
    return low.at(0, lowRow + lowSpatialBase(R, 0, ax) + int(lowIndex(d2)));
  }
#endif
};

// Sample q (its word qw) at column offset index i (0..2R) into sums s.
template <int R, int K>
__host__ __device__ inline void addSample(const BilateralBlock<R, K>& b, const LowRow<R>& low, float4 q,
                                          uint32_t qw, uint32_t centre, int i, Sums& s) {
  const uint32_t d2 = squaredDistance(qw, centre);
  const float w = mulRn(b.high.at(0, int(highIndex(d2))), low(i < R ? R - i : i - R, d2));
  addTap(s, w, q.x, q.y, q.z);
}

// Phase 2: thread t's K outputs, written where they fall inside the image.
template <int R, int K>
__host__ __device__ inline void bilateralOutputs(const BilateralBlock<R, K>& b, ConstRgbaView in,
                                                 RgbaView out, int t) {
  const int tx = t % kThreadCols, ty = t / kThreadCols;
  uint32_t centre[K];
  Sums s[K];
  VP_UNROLL
  for (int k = 0; k < K; ++k) centre[k] = bitsOf(b.sample(ty + R, tx, k + R).w);
  VP_BILATERAL_ROLLED
  for (int j = 0; j <= 2 * R; ++j) {
    const LowRow<R> low{b.lowSpatial, lowSpatialBase(R, j < R ? R - j : j - R, 0)};
    VP_UNROLL
    for (int c = 0; c < 2 * R + K; ++c) {
      const float4 q = b.sample(ty + j, tx, c);
      const uint32_t qw = bitsOf(q.w);
      VP_UNROLL
      for (int k = 0; k < K; ++k)
        if (c - k >= 0 && c - k <= 2 * R) addSample(b, low, q, qw, centre[k], c - k, s[k]);
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
