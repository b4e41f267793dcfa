// Box blur's fused pass (blur_passes.h): both axes in one kernel per pass, the vertical
// window sums slid down the rows in registers, the horizontal prefix per row in shared
// memory; no sums buffer and one launch per pass.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // warpSum, scanUpStep
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/box_blur_math.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace vp::blur {
namespace {

constexpr int kFusedThreads = 256;  // fused-pass block
constexpr int kFusedWarps = kFusedThreads / 32;
constexpr int kFusedItems = 4;                           //   span columns per thread (consecutive)
constexpr int kFusedSpan = kFusedThreads * kFusedItems;  // tile + 2r halo columns, at most
constexpr int kFusedBatch = 4;        //   first-window rows whose loads are issued together
constexpr int kFusedBlocksPerSm = 4;  //   register cap (64) and the grid's target
static_assert(kFusedItems == 4, "the fused pass stores a thread's prefix and alphas as one uint4 / uint32");

// The fused pass's shared memory: the prefix P(k) of the span's vertical window sums per
// channel at index k + 3 (so a thread's P(4t+1 .. 4t+4) is one 16-byte store), the warps'
// totals and the alpha bytes of the row's span columns. 13.2 KB: static, no opt-in.
struct FusedShared {
  alignas(16) uint32_t prefix[3][kFusedSpan + 4];
  uint4 warpTotal[kFusedWarps];
  alignas(4) unsigned char alpha[kFusedSpan];
};

// A thread's kFusedItems span columns c0 .. c0+3 (c0 a multiple of 4: the span starts on one):
// one 16-byte load where all four lie in the image and its rows are 16-byte aligned
// (`vector`), four where they lie in the image (`contiguous`), else each through the
// horizontal border fold, col < 0 a zero sample (Zero mode outside the image, or past the
// block's span).
struct FusedColumns {
  int c0;
  bool contiguous, vector;
  int col[kFusedItems];
  // `left`: span columns from c0 to the end of the block's span; `aligned`: the view's
  // address and pitch are multiples of 16 bytes.
  __device__ FusedColumns(int first, int left, int w, BorderMode border, bool aligned) : c0(first) {
    contiguous = left >= kFusedItems && first >= 0 && first + kFusedItems <= w;
    vector = contiguous && aligned;
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) col[k] = k < left ? extendIndex(first + k, w, border) : -1;
  }
  // An image row's samples at these columns.
  __device__ __forceinline__ void load(const char* row, uint32_t (&v)[kFusedItems]) const {
    const uint32_t* p = reinterpret_cast<const uint32_t*>(row);
    if (vector) {
      const uint4 q = __ldg(reinterpret_cast<const uint4*>(p + c0));
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else if (contiguous) {
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) v[k] = __ldg(p + c0 + k);
    } else {
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) v[k] = col[k] >= 0 ? __ldg(p + col[k]) : 0u;
    }
  }
  // The same for a row through the vertical fold; row == nullptr: a zero row.
  __device__ __forceinline__ void loadFolded(const char* row, uint32_t (&v)[kFusedItems]) const {
    if (row) {
      load(row, v);
    } else {
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) v[k] = 0;
    }
  }
};

__device__ __forceinline__ const char* imageRow(ConstRgbaView in, int y) {
  return reinterpret_cast<const char*>(in.data) + size_t(y) * in.pitch;
}
// Row y through the vertical border fold; nullptr: a zero row.
__device__ __forceinline__ const char* foldedRow(ConstRgbaView in, int y, BorderMode border) {
  const int sy = extendIndex(y, in.height, border);
  return sy < 0 ? nullptr : imageRow(in, sy);
}

// Vertical window sums (R|B, G|A lanes) of the thread's columns over rows [top, top+count):
// kFusedBatch rows of loads issued together; where every row lies in the image (a
// block-uniform test) without the fold, each batch's lanes summed in one chain of
// three-input adds.
template <class Keep>
__device__ __forceinline__ void fusedFirstWindow(ConstRgbaView in, const FusedColumns& cols, int top,
                                                 int count, BorderMode border, uint32_t (&rb)[kFusedItems],
                                                 uint32_t (&ga)[kFusedItems], const Keep& keep) {
  if (top >= 0 && top + count <= in.height) {
    const char* row = imageRow(in, top);
    int i = 0;
    for (; i + kFusedBatch <= count; i += kFusedBatch, row += kFusedBatch * in.pitch) {
      uint32_t p[kFusedBatch][kFusedItems];
#pragma unroll
      for (int j = 0; j < kFusedBatch; ++j) cols.load(row + j * in.pitch, p[j]);
#pragma unroll
      for (int j = 0; j < kFusedBatch; ++j) keep(i + j, p[j]);
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) {
        static_assert(kFusedBatch == 4, "the batch's sum below takes four rows");
        rb[k] +=
            blur::lanesRb(p[0][k]) + blur::lanesRb(p[1][k]) + blur::lanesRb(p[2][k]) + blur::lanesRb(p[3][k]);
        ga[k] +=
            blur::lanesGa(p[0][k]) + blur::lanesGa(p[1][k]) + blur::lanesGa(p[2][k]) + blur::lanesGa(p[3][k]);
      }
    }
    for (; i < count; ++i, row += in.pitch) {
      uint32_t p[kFusedItems];
      cols.load(row, p);
      keep(i, p);
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) rb[k] += blur::lanesRb(p[k]), ga[k] += blur::lanesGa(p[k]);
    }
    return;
  }
  for (int i = 0; i < count; i += kFusedBatch) {
    uint32_t p[kFusedBatch][kFusedItems];
#pragma unroll
    for (int j = 0; j < kFusedBatch; ++j)
      cols.loadFolded(i + j < count ? foldedRow(in, top + i + j, border) : nullptr, p[j]);
#pragma unroll
    for (int j = 0; j < kFusedBatch; ++j)
      if (i + j < count) keep(i + j, p[j]);
#pragma unroll
    for (int j = 0; j < kFusedBatch; ++j)
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) rb[k] += blur::lanesRb(p[j][k]), ga[k] += blur::lanesGa(p[j][k]);
  }
}

// The thread's index in its group of kFusedThreads (a block holds kGroups groups, each its
// own segment of rows and its own FusedShared).
__device__ __forceinline__ int groupThread() { return threadIdx.x % kFusedThreads; }
// The barrier of the thread's group: the whole block when it is one group, else named barrier 1 + group.
template <int kGroups>
__device__ __forceinline__ void groupBarrier() {
  if constexpr (kGroups == 1)
    __syncthreads();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(1 + int(threadIdx.x / kFusedThreads)), "r"(kFusedThreads) : "memory");
}

// Byte 3 of each of four pixels, in order.
__device__ __forceinline__ uint32_t alphaBytes(const uint32_t (&v)[kFusedItems]) {
  return __byte_perm(__byte_perm(v[0], v[1], 0x0073), __byte_perm(v[2], v[3], 0x0073), 0x5410);
}

// The block's exclusive prefix of the span's vertical sums (R, G, B) and the alpha bytes
// into shared memory. Two barriers: after the warp totals are written, and after the
// prefix is; the next row's writes come after its first barrier, which every thread
// reaches only when done reading this row's prefix, so one buffer serves every row.
template <bool kStage, int kGroups>
__device__ __forceinline__ void fusedScanRow(FusedShared& sh, const uint32_t (&rb)[kFusedItems],
                                             const uint32_t (&ga)[kFusedItems],
                                             const uint32_t (&centre)[kFusedItems]) {
  const int lane = threadIdx.x & 31, warp = groupThread() >> 5;
  uint32_t run[3][kFusedItems];  // inclusive prefix over the thread's columns
#pragma unroll
  for (int k = 0; k < kFusedItems; ++k) {
    run[0][k] = (k ? run[0][k - 1] : 0) + (rb[k] & 0xFFFFu);
    run[1][k] = (k ? run[1][k - 1] : 0) + (ga[k] & 0xFFFFu);
    run[2][k] = (k ? run[2][k - 1] : 0) + (rb[k] >> 16);
  }
  uint32_t inc[3];  // inclusive prefix of the thread totals over the warp
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    inc[ch] = run[ch][kFusedItems - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) inc[ch] = scanUpStep(inc[ch], d);
  }
  if (lane == 31) sh.warpTotal[warp] = make_uint4(inc[0], inc[1], inc[2], 0);
  groupBarrier<kGroups>();
  const uint4 t = lane < warp ? sh.warpTotal[lane] : make_uint4(0, 0, 0, 0);
  const uint32_t earlier[3] = {warpSum(t.x), warpSum(t.y), warpSum(t.z)};
  const int base = kFusedItems * groupThread() + 4;  // P(4t + 1) at index 4t + 1 + 3
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    const uint32_t off = earlier[ch] + inc[ch] - run[ch][kFusedItems - 1];
    *reinterpret_cast<uint4*>(&sh.prefix[ch][base]) =
        make_uint4(run[ch][0] + off, run[ch][1] + off, run[ch][2] + off, run[ch][3] + off);
  }
  // Byte 3 of each centre pixel, in column order.
  if constexpr (kStage)
    *reinterpret_cast<uint32_t*>(&sh.alpha[kFusedItems * groupThread()]) = alphaBytes(centre);
  groupBarrier<kGroups>();
}

// Output row: pixel x of the tile = span columns [x + off, x + off + 2r] (off: the tile's
// first window column past the span's aligned start), one prefix difference per channel, the
// rounding division (div from makeHighDivider), alpha of the centre (span column x + off + r).
template <int kAlpha>
__device__ __forceinline__ void fusedOutputRow(const FusedShared& sh, const unsigned char* ringRow,
                                               const uint32_t (&own)[kFusedItems], uchar4* dst, int tileW,
                                               int radius, int off, const blur::Divider& div) {
  const int window = 2 * radius + 1, k = groupThread() + off + 3;
#pragma unroll
  for (int i = 0; i < kFusedItems; ++i) {
    const int x = groupThread() + i * kFusedThreads;
    if (x < tileW) {
      const int a = k + i * kFusedThreads;
      const uint32_t s0 = sh.prefix[0][a + window] - sh.prefix[0][a];
      const uint32_t s1 = sh.prefix[1][a + window] - sh.prefix[1][a];
      const uint32_t s2 = sh.prefix[2][a + window] - sh.prefix[2][a];
      const unsigned char alpha = kAlpha == 0   ? sh.alpha[a - 3 + radius]
                                  : kAlpha == 1 ? ringRow[a - 3 + radius]
                                                : static_cast<unsigned char>(own[i] >> 24);
      dst[x] = make_uchar4(static_cast<unsigned char>(blur::roundDivHigh(s0, div)),
                           static_cast<unsigned char>(blur::roundDivHigh(s1, div)),
                           static_cast<unsigned char>(blur::roundDivHigh(s2, div)), alpha);
    }
  }
}

// Fused pass (both axes, one kernel): a block owns `tile` output columns from x0 and
// `segLen` output rows; its span is the tile plus r halo columns each side, started on the
// multiple of 4 at or before x0 - r (<= 1024 columns), kFusedItems columns per thread, so a
// thread's columns are one 16-byte load in aligned views. Each thread slides the vertical
// window sums of its columns down the rows as columnSlideKernel does (R|B and G|A lanes),
// then per row the block scans the span's sums into a shared prefix and each output pixel
// takes one prefix difference per channel: no sums buffer, one launch. The loads for the
// slide after row y (and the next centre row) are issued before row y's scan, so their
// latency hides behind its barriers and outputs. Requires 1 <= radius and
// tile + 2r + 3 <= 1024.
template <int kAlpha, int kGroups>
__global__ void __launch_bounds__(kFusedThreads * kGroups, kFusedBlocksPerSm / kGroups)
    fusedBlurKernel(ConstRgbaView in, RgbaView out, int radius, BorderMode border, blur::Divider div,
                    int tile, int segLen) {
  static_assert(kGroups == 1 || kAlpha != 1, "the alpha ring serves one group");
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint4 dyn[];
  __shared__ FusedShared sh1[1];  // kGroups == 1 (unused, so not allocated, otherwise)
  // kGroups > 1: [kGroups] FusedShared, then [kGroups][kFusedThreads] window words (2 uint4 each).
  const int group = threadIdx.x / kFusedThreads, t = groupThread();
  FusedShared& sh = kGroups == 1 ? sh1[0] : reinterpret_cast<FusedShared*>(dyn)[group];
  unsigned char* ring = reinterpret_cast<unsigned char*>(dyn);  // kAlpha 1: alpha of rows y .. y+r+1
  const int w = in.width, h = in.height;
  const int x0 = blockIdx.x * tile, tileW = min(tile, w - x0);
  const int yb = blockIdx.y * segLen * kGroups;  // the block's first row; group g's segment from yb + g segLen
  const int y0 = yb + group * segLen, y1 = min(h, y0 + segLen);
  if (tileW <= 0 || yb >= h) return;  // whole block; fusedGrid makes none such
  const int spanX = (x0 - radius) & ~(kFusedItems - 1), off = x0 - radius - spanX;
  const int s0 = kFusedItems * t;  // the thread's first span column
  const bool aligned = ((reinterpret_cast<uintptr_t>(in.data) | in.pitch) & 15u) == 0;
  const FusedColumns cols(spanX + s0, tileW + 2 * radius + off - s0, w, border, aligned);
  const int slots = radius + 2;
  uint32_t rb[kFusedItems] = {}, ga[kFusedItems] = {};
  const auto keep = [&](int i, const uint32_t (&p)[kFusedItems]) {
    if constexpr (kAlpha == 1)
      if (i >= radius && y0 + i - radius < y1)
        *reinterpret_cast<uint32_t*>(ring + (i - radius) * kFusedSpan + s0) = alphaBytes(p);
  };
  if constexpr (kGroups == 1) {
    fusedFirstWindow(in, cols, y0 - radius, 2 * radius + 1, border, rb, ga, keep);
  } else {
    // Group 0 sums its whole first window; group g > 0 only the difference between its window and
    // group g - 1's (segLen rows entering, segLen leaving) when that is shorter; then each group
    // adds the earlier groups' words: the windows of the block's segments from one full window.
    const bool chained = 2 * segLen < 2 * radius + 1;
    if (group == 0 || !chained) {
      fusedFirstWindow(in, cols, y0 - radius, 2 * radius + 1, border, rb, ga, keep);
    } else {
      const int prev = y0 - segLen;
#pragma unroll 4
      for (int j = 0; j < segLen; ++j) {
        uint32_t add[kFusedItems], sub[kFusedItems];
        cols.loadFolded(foldedRow(in, prev + radius + 1 + j, border), add);
        cols.loadFolded(foldedRow(in, prev - radius + j, border), sub);
#pragma unroll
        for (int k = 0; k < kFusedItems; ++k) {
          rb[k] += blur::lanesRb(add[k]) - blur::lanesRb(sub[k]);
          ga[k] += blur::lanesGa(add[k]) - blur::lanesGa(sub[k]);
        }
      }
    }
    if (chained) {
      uint4* words = reinterpret_cast<uint4*>(reinterpret_cast<FusedShared*>(dyn) + kGroups);
      words[2 * (group * kFusedThreads + t)] = make_uint4(rb[0], rb[1], rb[2], rb[3]);
      words[2 * (group * kFusedThreads + t) + 1] = make_uint4(ga[0], ga[1], ga[2], ga[3]);
      __syncthreads();
      for (int g = 0; g < group; ++g) {
        const uint4 r4 = words[2 * (g * kFusedThreads + t)], g4 = words[2 * (g * kFusedThreads + t) + 1];
        rb[0] += r4.x, rb[1] += r4.y, rb[2] += r4.z, rb[3] += r4.w;
        ga[0] += g4.x, ga[1] += g4.y, ga[2] += g4.z, ga[3] += g4.w;
      }
    }
    if (y0 >= y1) return;  // a group past the frame's last row: nothing more to wait for
  }
  if (t == 0) sh.prefix[0][3] = sh.prefix[1][3] = sh.prefix[2][3] = 0;  // P(0), never overwritten
  uint32_t centre[kFusedItems] = {};
  if constexpr (kAlpha == 0) cols.load(imageRow(in, y0), centre);
  int readSlot = 0, writeSlot = radius + 1;
  for (int y = y0; y < y1; ++y) {
    // Interior rows (the whole window inside the image) need no fold; the test is block-uniform.
    uint32_t add[kFusedItems], sub[kFusedItems], next[kFusedItems] = {}, own[kFusedItems] = {};
    if (y >= radius && y + radius + 1 < h) {
      cols.load(imageRow(in, y + radius + 1), add);
      cols.load(imageRow(in, y - radius), sub);
    } else {
      cols.loadFolded(foldedRow(in, y + radius + 1, border), add);
      cols.loadFolded(foldedRow(in, y - radius, border), sub);
    }
    if constexpr (kAlpha == 0) cols.load(imageRow(in, min(y + 1, y1 - 1)), next);  // past the segment: a harmless repeat
    if constexpr (kAlpha == 2) {
      const uint32_t* row = reinterpret_cast<const uint32_t*>(imageRow(in, y)) + x0;
#pragma unroll
      for (int i = 0; i < kFusedItems; ++i) {
        const int x = t + i * kFusedThreads;
        own[i] = x < tileW ? __ldg(row + x) : 0u;
      }
    }
    fusedScanRow<kAlpha == 0, kGroups>(sh, rb, ga, centre);
    fusedOutputRow<kAlpha>(sh, ring + readSlot * kFusedSpan, own, out.row(y) + x0, tileW, radius, off, div);
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) {
      rb[k] += blur::lanesRb(add[k]) - blur::lanesRb(sub[k]);
      ga[k] += blur::lanesGa(add[k]) - blur::lanesGa(sub[k]);
      centre[k] = next[k];
    }
    if constexpr (kAlpha == 1) {
      if (y + radius + 1 < y1) *reinterpret_cast<uint32_t*>(ring + writeSlot * kFusedSpan + s0) = alphaBytes(add);
      readSlot = readSlot + 1 == slots ? 0 : readSlot + 1;
      writeSlot = writeSlot + 1 == slots ? 0 : writeSlot + 1;
    }
  }
}

// The fused pass's grid: `tiles` tiles of `tile` output columns (balanced, so the last is
// not a sliver) by `segments` segments of `rows` output rows. Rows: about kFusedBlocksPerSm
// blocks per SM (fewer blocks leave the per-row barriers' latency exposed), but at least
// r/4, so the first window stays below a segment's work: a window row costs a thread ~30
// instructions (4 loads and lane sums), an output row ~400 (three rows of loads, scan, 4
// outputs), so 2r+1 window rows ~ r/7 output rows.
struct FusedGrid {
  int tile, tiles, rows, segments;
};
FusedGrid fusedGrid(int w, int h, int r, int smCount, int groups) {
  FusedGrid g{};
  const char* bpsEnv = std::getenv("VP_EXP_FUSED_BPS");
  const int bps = bpsEnv ? std::atoi(bpsEnv) : kFusedBlocksPerSm;
  const int widest = kFusedSpan - 2 * r - (kFusedItems - 1);  // a tile's span starts up to 3 columns early
  g.tiles = (w + widest - 1) / widest;
  g.tile = (w + g.tiles - 1) / g.tiles;
  const int segments = std::max(1, bps * smCount / g.tiles);
  g.rows = std::min(std::max((h + segments - 1) / segments, (r + 3) / 4), h);
  g.segments = (h + g.rows * groups - 1) / (g.rows * groups);  // blocks down the frame
  return g;
}

template <int kAlpha, int kGroups>
void launchFused(ConstRgbaView in, RgbaView out, int radius, BorderMode border, int smCount, bool pdl,
                 cudaStream_t stream) {
  const FusedGrid g = fusedGrid(in.width, in.height, radius, smCount, kGroups);
  const blur::Divider div = blur::makeHighDivider(uint32_t(2 * radius + 1) * uint32_t(2 * radius + 1));
  const int bytes = kAlpha == 1 ? (radius + 2) * kFusedSpan
                    : kGroups > 1 ? kGroups * int(sizeof(FusedShared) + kFusedThreads * 2 * sizeof(uint4))
                                  : 0;
  if (bytes > 0)
    VP_CUDA_CHECK(cudaFuncSetAttribute(fusedBlurKernel<kAlpha, kGroups>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  launchKernel(fusedBlurKernel<kAlpha, kGroups>, dim3(g.tiles, g.segments), dim3(kFusedThreads * kGroups), bytes,
               stream, pdl, in, out, radius, border, div, g.tile, g.rows);
}

}  // namespace

void launchFusedPass(ConstRgbaView in, RgbaView out, int radius, BorderMode border, int smCount, bool pdl,
                     cudaStream_t stream) {
  const char* alphaEnv = std::getenv("VP_EXP_FUSED_ALPHA");
  const char* groupEnv = std::getenv("VP_EXP_FUSED_GROUPS");
  const int alpha = alphaEnv ? std::atoi(alphaEnv) : 0, groups = groupEnv ? std::atoi(groupEnv) : 1;
  if (groups == 2)
    launchFused<0, 2>(in, out, radius, border, smCount, pdl, stream);
  else if (groups == 4)
    launchFused<0, 4>(in, out, radius, border, smCount, pdl, stream);
  else if (alpha == 1)
    launchFused<1, 1>(in, out, radius, border, smCount, pdl, stream);
  else if (alpha == 2)
    launchFused<2, 1>(in, out, radius, border, smCount, pdl, stream);
  else
    launchFused<0, 1>(in, out, radius, border, smCount, pdl, stream);
}

}  // namespace vp::blur
