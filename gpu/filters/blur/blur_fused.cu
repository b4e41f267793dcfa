// Box blur's fused pass (blur_passes.h): both axes in one kernel per pass, the vertical
// window sums slid down the rows in registers, the horizontal prefix per row in shared
// memory; no sums buffer and one launch per pass. The stacked form runs kStackedGroups such
// row segments in one block, one above the other.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // warpSum, scanUpStep
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/blur_stacked.h"  // kStackedGroups, chainedWindows, windowChunks
#include "gpu/filters/blur/box_blur_math.h"

#include <algorithm>
#include <cstdint>

namespace vp::blur {
namespace {

constexpr int kFusedThreads = 256;  // fused-pass block
constexpr int kFusedWarps = kFusedThreads / 32;
constexpr int kFusedItems = 4;                           //   span columns per thread (consecutive)
constexpr int kFusedSpan = kFusedThreads * kFusedItems;  // tile + 2r halo columns, at most
constexpr int kFusedBatch = 4;        //   first-window rows whose loads are issued together
constexpr int kFusedBlocksPerSm = 4;  //   register cap (64) and the grid's target (groups, when stacked)
constexpr int kNarrowThreads = 192;   // stacked groups of 6 warps (768 span columns) where tiles fit them
static_assert(kFusedItems == 4, "the fused pass stores a thread's prefix and alphas as one uint4 / uint32");

// The fused pass's shared memory: the prefix P(k) of the span's vertical window sums per
// channel at index k + 3 (so a thread's P(4t+1 .. 4t+4) is one 16-byte store), the warps'
// totals and the alpha bytes of the row's span columns. 13.2 KB: static, no opt-in, for one
// segment a block; the stacked form's four are dynamic (kStackedSharedBytes).
struct FusedShared {
  alignas(16) uint32_t prefix[3][kFusedSpan + 4];
  uint4 warpTotal[kFusedWarps];
  alignas(4) unsigned char alpha[kFusedSpan];
};

// A stacked block's dynamic shared memory: a FusedShared per group; before the row loops the
// same bytes carry the groups' first-window words (fusedStackedWindow: R|B and G|A words of
// each thread's part of the first group's window, and of the later groups' differences). With
// alpha rows, the alpha bytes of every span column of the block's rows follow (kFusedSpan
// bytes a row).
constexpr size_t kStackedWindowBytes = (2 * kStackedGroups - 1) * kFusedThreads * 2 * sizeof(uint4);
constexpr size_t kStackedSharedBytes = std::max(kStackedGroups * sizeof(FusedShared), kStackedWindowBytes);
constexpr size_t stackedSharedBytes(bool alphaRows, int segLen) {
  return kStackedSharedBytes + (alphaRows ? size_t(kStackedGroups) * size_t(segLen) * kFusedSpan : 0);
}

// The thread's group and its index in that group of kThreads, and the group's barrier
// (the block's when it is one group, else named barrier 1 + group).
template <int kGroups, int kThreads = kFusedThreads>
__device__ __forceinline__ int groupIndex() {
  return kGroups == 1 ? 0 : int(threadIdx.x / kThreads);
}
template <int kGroups, int kThreads = kFusedThreads>
__device__ __forceinline__ int groupThread() {
  return kGroups == 1 ? int(threadIdx.x) : int(threadIdx.x % kThreads);
}
template <int kGroups, int kThreads = kFusedThreads>
__device__ __forceinline__ void groupBarrier() {
  if constexpr (kGroups == 1)
    __syncthreads();
  else
    asm volatile("bar.sync %0, %1;" ::"r"(1 + groupIndex<kGroups, kThreads>()), "r"(kThreads) : "memory");
}

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
// three-input adds. keep(i, samples) sees window row i's samples once (the stacked form keeps
// some rows' alpha).
struct NoKeep {
  __device__ void operator()(int, const uint32_t (&)[kFusedItems]) const {}
};
template <class Keep = NoKeep>
__device__ __forceinline__ void fusedFirstWindow(ConstRgbaView in, const FusedColumns& cols, int top,
                                                 int count, BorderMode border, uint32_t (&rb)[kFusedItems],
                                                 uint32_t (&ga)[kFusedItems], const Keep& keep = {}) {
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

// Byte 3 of each of four pixels, in order.
__device__ __forceinline__ uint32_t alphaBytes(const uint32_t (&v)[kFusedItems]) {
  return __byte_perm(__byte_perm(v[0], v[1], 0x0073), __byte_perm(v[2], v[3], 0x0073), 0x5410);
}

// The stacked form's alpha rows: the alpha of a thread's span columns (from s0) in the block's
// row `row` (counted from its first).
__device__ __forceinline__ void keepAlpha(unsigned char* alphaRows, int row, int s0,
                                          const uint32_t (&v)[kFusedItems]) {
  *reinterpret_cast<uint32_t*>(alphaRows + row * kFusedSpan + s0) = alphaBytes(v);
}

// A thread's window sums (R | B and G | A lanes of its four columns) as the two 16-byte words
// the stacked pass's groups exchange through shared memory, and back.
__device__ __forceinline__ void storeSums(uint4* w, const uint32_t (&rb)[kFusedItems],
                                          const uint32_t (&ga)[kFusedItems]) {
  w[0] = make_uint4(rb[0], rb[1], rb[2], rb[3]);
  w[1] = make_uint4(ga[0], ga[1], ga[2], ga[3]);
}
__device__ __forceinline__ void addSums(const uint4* w, uint32_t (&rb)[kFusedItems],
                                        uint32_t (&ga)[kFusedItems]) {
  const uint4 r4 = w[0], g4 = w[1];
  rb[0] += r4.x, rb[1] += r4.y, rb[2] += r4.z, rb[3] += r4.w;
  ga[0] += g4.x, ga[1] += g4.y, ga[2] += g4.z, ga[3] += g4.w;
}

// The block's exclusive prefix of the span's vertical sums (R, G, B) and the alpha bytes
// into shared memory. Two barriers: after the warp totals are written, and after the
// prefix is; the next row's writes come after its first barrier, which every thread
// reaches only when done reading this row's prefix, so one buffer serves every row.
template <int kGroups, bool kStage = true, int kThreads = kFusedThreads>
__device__ __forceinline__ void fusedScanRow(FusedShared& sh, const uint32_t (&rb)[kFusedItems],
                                             const uint32_t (&ga)[kFusedItems],
                                             const uint32_t (&centre)[kFusedItems]) {
  const int t = groupThread<kGroups, kThreads>(), lane = t & 31, warp = t >> 5;
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
  groupBarrier<kGroups, kThreads>();
  const uint4 before = lane < warp ? sh.warpTotal[lane] : make_uint4(0, 0, 0, 0);
  const uint32_t earlier[3] = {warpSum(before.x), warpSum(before.y), warpSum(before.z)};
  const int base = kFusedItems * t + 4;  // P(4t + 1) at index 4t + 1 + 3
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    const uint32_t off = earlier[ch] + inc[ch] - run[ch][kFusedItems - 1];
    *reinterpret_cast<uint4*>(&sh.prefix[ch][base]) =
        make_uint4(run[ch][0] + off, run[ch][1] + off, run[ch][2] + off, run[ch][3] + off);
  }
  // Byte 3 of each centre pixel, in column order.
  if constexpr (kStage) *reinterpret_cast<uint32_t*>(&sh.alpha[kFusedItems * t]) = alphaBytes(centre);
  groupBarrier<kGroups, kThreads>();
}

// Output row: pixel x of the tile = span columns [x + off, x + off + 2r] (off: the tile's
// first window column past the span's aligned start), one prefix difference per channel, the
// rounding division (div from makeHighDivider), alpha of the centre (span column x + off + r).
template <int kGroups, int kThreads = kFusedThreads>
__device__ __forceinline__ void fusedOutputRow(const FusedShared& sh, const unsigned char* alphaRow,
                                               uchar4* dst, int tileW, int radius, int off,
                                               const blur::Divider& div) {
  const int t = groupThread<kGroups, kThreads>(), window = 2 * radius + 1, k = t + off + 3;
#pragma unroll
  for (int i = 0; i < kFusedItems; ++i) {
    const int x = t + i * kThreads;
    if (x < tileW) {
      const int a = k + i * kThreads;
      const uint32_t s0 = sh.prefix[0][a + window] - sh.prefix[0][a];
      const uint32_t s1 = sh.prefix[1][a + window] - sh.prefix[1][a];
      const uint32_t s2 = sh.prefix[2][a + window] - sh.prefix[2][a];
      dst[x] = make_uchar4(static_cast<unsigned char>(blur::roundDivHigh(s0, div)),
                           static_cast<unsigned char>(blur::roundDivHigh(s1, div)),
                           static_cast<unsigned char>(blur::roundDivHigh(s2, div)), alphaRow[a - 3 + radius]);
    }
  }
}

// A stacked block's first windows: group g's segment starts segLen rows below group g - 1's.
// When two segments' windows overlap by more than segLen rows (2 segLen < 2r + 1), group g's
// window is the first group's, W, plus the differences D_1 .. D_g, D_j the segLen rows
// entering less the segLen leaving between group j - 1's first row and group j's. Group g > 0
// sums D_g, and the 2r + 1 rows of W are split among the four groups so that each loads about
// a quarter of the block's 2r + 1 + 6 segLen rows (four windows were 8r + 4): the first
// group's window, alone, was the block's longest chain of loads. The words pass through shared
// memory between two block barriers (it is free again after the second). Where the windows
// span four segments or more (2r + 1 >= 4 segLen) and the block keeps its alpha rows, the
// union of the four windows (2r + 1 + 3 segLen rows) is loaded once instead, in chunks of
// segLen rows, and the groups pass two partial sums each (6 slots) between the same barriers.
// Else each group sums its own window.
template <bool kRows, int kThreads = kFusedThreads>
__device__ __forceinline__ void fusedStackedWindow(ConstRgbaView in, const FusedColumns& cols, int yb, int y0,
                                                   int y1, int segLen, int radius, BorderMode border,
                                                   FusedShared* groups, unsigned char* alphaRows, int rowsEnd,
                                                   uint32_t (&rb)[kFusedItems], uint32_t (&ga)[kFusedItems]) {
  const int group = groupIndex<kStackedGroups, kThreads>(), t = groupThread<kStackedGroups, kThreads>();
  const int s0 = kFusedItems * t;
  const int n = 2 * radius + 1, m = 2 * segLen;  // loads of W, of a difference
  // kRows: the alpha of the block's rows [yb, rowsEnd), each written once by the group that
  // loads it as a window row (W's rows from yb, or each group's own first rows) or an entering one.
  const auto keepRow = [&](int y, const uint32_t(&p)[kFusedItems]) {
    if constexpr (kRows)
      if (y >= yb && y < rowsEnd) keepAlpha(alphaRows, y - yb, s0, p);
  };
  if (!chainedWindows(segLen, radius)) {
    fusedFirstWindow(in, cols, y0 - radius, n, border, rb, ga, [&](int i, const uint32_t(&p)[kFusedItems]) {
      if (i >= radius && y0 + i - radius < y1) keepRow(y0 + i - radius, p);
    });
    return;
  }
  const int q = n / segLen, e = n % segLen;  // group g's window: chunks g .. g+q-1, e rows of g+q
  if (kRows && q >= kStackedGroups) {
    // The block's window rows (the union of its windows, 2r+1 + 3 segLen rows from yb - r)
    // each loaded once, in chunks of segLen rows: group g's window is c_g + M + the chunks
    // q..q+g-1 + the first e rows of chunk q+g (c_j chunk j, M chunks 4..q-1). Group g loads
    // chunk g, chunk q+g (its first e rows apart, P_g) and a share of M (M_g), and writes
    // X_g = c_g + M_g (for the groups above it) and Y_g = M_g + c_{q+g} (for those below).
    const WindowChunks c = windowChunks(segLen, radius, group);
    const int top = yb - radius;  // union row 0
    const auto sum = [&](int from, int count, uint32_t(&r)[kFusedItems], uint32_t(&g)[kFusedItems]) {
      fusedFirstWindow(in, cols, top + from, count, border, r, g,
                       [&](int i, const uint32_t(&p)[kFusedItems]) { keepRow(top + from + i, p); });
    };
    const auto put = [&](int slot, const uint32_t(&r)[kFusedItems], const uint32_t(&g)[kFusedItems]) {
      storeSums(reinterpret_cast<uint4*>(groups) + 2 * (slot * kThreads + t), r, g);
    };
    // Two accumulators live at a time (a third, M_g, waits in the thread's own Y slot).
    sum(c.mFrom, c.mTo - c.mFrom, rb, ga);
    if (group < 3) put(3 + group, rb, ga);  // M_g, for Y_g
    sum(group * segLen, segLen, rb, ga);
    if (group > 0) put(group - 1, rb, ga);  // X_g: slots 0..2
    uint32_t pr[kFusedItems] = {}, pg[kFusedItems] = {};
    sum((q + group) * segLen, e, pr, pg);  // P_g
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) rb[k] += pr[k], ga[k] += pg[k];
    if (group < 3) {
      sum((q + group) * segLen + e, segLen - e, pr, pg);  // c_{q+g}
      uint4* y = reinterpret_cast<uint4*>(groups) + 2 * ((3 + group) * kThreads + t);
      addSums(y, pr, pg);    // + M_g
      storeSums(y, pr, pg);  // Y_g: slots 3..5
    }
    __syncthreads();
    const uint4* words = reinterpret_cast<const uint4*>(groups) + 2 * t;
#pragma unroll
    for (int g = 1; g < kStackedGroups; ++g)
      if (g > group) addSums(words + 2 * (g - 1) * kThreads, rb, ga);
#pragma unroll
    for (int g = 0; g < kStackedGroups - 1; ++g)
      if (g < group) addSums(words + 2 * (3 + g) * kThreads, rb, ga);
    __syncthreads();
    return;
  }
  uint4* words = reinterpret_cast<uint4*>(groups);  // [group][thread]: W's part, then [group - 1][thread]: D
  uint4* diffs = words + 2 * kStackedGroups * kThreads;
  if (group > 0) {
    const int prev = y0 - segLen;  // group g - 1's first row
#pragma unroll 4
    for (int j = 0; j < segLen; ++j) {
      uint32_t add[kFusedItems], sub[kFusedItems];
      cols.loadFolded(foldedRow(in, prev + radius + 1 + j, border), add);
      cols.loadFolded(foldedRow(in, prev - radius + j, border), sub);
      keepRow(prev + radius + 1 + j, add);
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) {
        rb[k] += blur::lanesRb(add[k]) - blur::lanesRb(sub[k]);
        ga[k] += blur::lanesGa(add[k]) - blur::lanesGa(sub[k]);
      }
    }
    storeSums(diffs + 2 * ((group - 1) * kThreads + t), rb, ga);
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) rb[k] = ga[k] = 0;
  }
  // W's rows [first, last): group 0 `share` of them, each later group share - m beside its D.
  const int share = (n + 3 * m + kStackedGroups - 1) / kStackedGroups;
  const int first = group == 0 ? 0 : min(n, share + (group - 1) * (share - m));
  const int last = min(n, share + group * (share - m));
  fusedFirstWindow(in, cols, yb - radius + first, last - first, border, rb, ga,
                   [&](int i, const uint32_t(&p)[kFusedItems]) { keepRow(yb - radius + first + i, p); });
  storeSums(words + 2 * threadIdx.x, rb, ga);
  __syncthreads();
#pragma unroll
  for (int g = 0; g < kStackedGroups; ++g)
    if (g != group) addSums(words + 2 * (g * kThreads + t), rb, ga);
#pragma unroll
  for (int g = 1; g < kStackedGroups; ++g)
    if (g <= group) addSums(diffs + 2 * ((g - 1) * kThreads + t), rb, ga);
  __syncthreads();
}

// Fused pass (both axes, one kernel): a block owns `tile` output columns from x0 and
// `segLen` output rows (kGroups == 1; stacked: kGroups groups of kThreads, group g the
// segLen rows after group g - 1's, each with its own shared memory and barrier); its span is
// the tile plus r halo columns each side, started on the multiple of 4 at or before
// x0 - r (<= 4 kThreads columns), kFusedItems columns per thread, so a
// thread's columns are one 16-byte load in aligned views. Each thread slides the vertical
// window sums of its columns down the rows as columnSlideKernel does (R|B and G|A lanes),
// then per row the block scans the span's sums into a shared prefix and each output pixel
// takes one prefix difference per channel: no sums buffer, one launch. The loads for the
// slide after row y (and the next centre row) are issued before row y's scan, so their
// latency hides behind its barriers and outputs. Requires 1 <= radius and
// tile + 2r + 3 <= 4 kThreads. kRows (stacked): the alpha of every row of the block kept in shared
// memory after kStackedSharedBytes, each row written once from a load the sums need anyway,
// so no centre row is loaded (a third of the row loop's loads).
template <int kGroups, bool kRows = false, int kThreads = kFusedThreads>
__global__ void __launch_bounds__(kGroups* kThreads, kFusedBlocksPerSm / kGroups)
    fusedBlurKernel(ConstRgbaView in, RgbaView out, int radius, BorderMode border, blur::Divider div,
                    int tile, int segLen) {
  static_assert(kGroups > 1 || !kRows, "alpha rows: the stacked form");
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ FusedShared stacked[];  // kGroups > 1: stackedSharedBytes(kRows, segLen)
  const int group = groupIndex<kGroups, kThreads>(), t = groupThread<kGroups, kThreads>();
  FusedShared* shared = stacked + group;
  if constexpr (kGroups == 1) {
    __shared__ FusedShared single;  // 13.2 KB: static, no opt-in
    shared = &single;
  }
  FusedShared& sh = *shared;
  unsigned char* const alphaRows = reinterpret_cast<unsigned char*>(stacked) + kStackedSharedBytes;
  const int w = in.width, h = in.height;
  const int x0 = blockIdx.x * tile, tileW = min(tile, w - x0);
  const int yb = blockIdx.y * kGroups * segLen;  // the block's first row
  const int y0 = yb + group * segLen, y1 = min(h, y0 + segLen);
  if (tileW <= 0 || yb >= h) return;  // whole block; fusedGrid makes none such
  const int spanX = (x0 - radius) & ~(kFusedItems - 1), off = x0 - radius - spanX;
  const int s0 = kFusedItems * t;  // the thread's first span column
  const bool aligned = ((reinterpret_cast<uintptr_t>(in.data) | in.pitch) & 15u) == 0;
  const FusedColumns cols(spanX + s0, tileW + 2 * radius + off - s0, w, border, aligned);
  // kRows: rows up to here were kept by the window phase; later ones by the loop's `add` rows.
  const int lastKept = chainedWindows(segLen, radius) ? yb + (kGroups - 1) * segLen + radius : y0 + radius;
  uint32_t rb[kFusedItems] = {}, ga[kFusedItems] = {};
  if constexpr (kGroups == 1) {
    fusedFirstWindow(in, cols, y0 - radius, 2 * radius + 1, border, rb, ga);
  } else {
    fusedStackedWindow<kRows, kThreads>(in, cols, yb, y0, y1, segLen, radius, border, stacked, alphaRows,
                                        min(h, yb + kGroups * segLen), rb, ga);
    if (y0 >= y1) return;  // a group below the frame (the last block's): past its last block barrier
  }
  if (t == 0) sh.prefix[0][3] = sh.prefix[1][3] = sh.prefix[2][3] = 0;  // P(0), never overwritten
  uint32_t centre[kFusedItems] = {};
  if constexpr (!kRows) cols.load(imageRow(in, y0), centre);
  for (int y = y0; y < y1; ++y) {
    // Interior rows (the whole window inside the image) need no fold; the test is block-uniform.
    uint32_t add[kFusedItems], sub[kFusedItems], next[kFusedItems] = {};
    if (y >= radius && y + radius + 1 < h) {
      cols.load(imageRow(in, y + radius + 1), add);
      cols.load(imageRow(in, y - radius), sub);
    } else {
      cols.loadFolded(foldedRow(in, y + radius + 1, border), add);
      cols.loadFolded(foldedRow(in, y - radius, border), sub);
    }
    if constexpr (!kRows)
      cols.load(imageRow(in, min(y + 1, y1 - 1)), next);  // past the segment: a harmless repeat
    fusedScanRow<kGroups, !kRows, kThreads>(sh, rb, ga, centre);
    fusedOutputRow<kGroups, kThreads>(sh, kRows ? alphaRows + (y - yb) * kFusedSpan : sh.alpha,
                                      out.row(y) + x0, tileW, radius, off, div);
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) {
      rb[k] += blur::lanesRb(add[k]) - blur::lanesRb(sub[k]);
      ga[k] += blur::lanesGa(add[k]) - blur::lanesGa(sub[k]);
      centre[k] = next[k];
    }
    if constexpr (kRows) {
      const int a = y + radius + 1;
      if (a < y1 && a > lastKept) keepAlpha(alphaRows, a - yb, s0, add);
    }
  }
}

// The fused pass's grid: `tiles` tiles of `tile` output columns (balanced, so the last is
// not a sliver) by `segments` blocks down the frame, each `groups` segments of `rows` output
// rows. Rows: about kFusedBlocksPerSm segments per SM (fewer leave the per-row barriers'
// latency exposed), but a block at least r/4, so the first windows stay below its work: a
// window row costs a thread ~30 instructions (4 loads and lane sums), an output row ~400
// (three rows of loads, scan, 4 outputs), so 2r+1 window rows ~ r/7 output rows. A stacked
// block's chained windows (2r+1 + 6 rows window rows in all) serve its four segments, so
// each segment needs only r/16. The blocks down a tile column are counted first, so a stacked
// grid (a block fills an SM) never exceeds one wave: blocks derived from rounded rows can
// exceed the SMs by one (7 tiles: 133 on 132), and that block runs alone (2x the time).
// `span`: the span columns of a group (kFusedThreads or kNarrowThreads, 4 columns a thread).
struct FusedGrid {
  int tile, tiles, rows, segments;
};
FusedGrid fusedGrid(int w, int h, int r, int smCount, int groups, int span = kFusedSpan) {
  FusedGrid g{};
  const int widest = span - 2 * r - (kFusedItems - 1);  // a tile's span starts up to 3 columns early
  g.tiles = (w + widest - 1) / widest;
  g.tile = (w + g.tiles - 1) / g.tiles;
  const int blocks = std::max(1, kFusedBlocksPerSm * smCount / (g.tiles * groups));  // down a tile column
  const int least = (r + 4 * groups - 1) / (4 * groups);
  g.rows = std::min(std::max((h + groups * blocks - 1) / (groups * blocks), least), h);
  g.segments = (h + groups * g.rows - 1) / (groups * g.rows);
  return g;
}

template <int kGroups, bool kRows = false, int kThreads = kFusedThreads>
void launchFused(const FusedGrid& g, ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl,
                 cudaStream_t stream) {
  const blur::Divider div = blur::makeHighDivider(uint32_t(2 * radius + 1) * uint32_t(2 * radius + 1));
  launchKernel(fusedBlurKernel<kGroups, kRows, kThreads>, dim3(g.tiles, g.segments), dim3(kGroups * kThreads),
               kGroups == 1 ? 0 : stackedSharedBytes(kRows, g.rows), stream, pdl, in, out, radius, border,
               div, g.tile, g.rows);
}

}  // namespace

size_t prepareFusedPasses(size_t sharedOptin) {
  VP_CUDA_CHECK(cudaFuncSetAttribute(fusedBlurKernel<kStackedGroups>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStackedSharedBytes)));
  VP_CUDA_CHECK(cudaFuncSetAttribute(fusedBlurKernel<kStackedGroups, true>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(sharedOptin)));
  VP_CUDA_CHECK(cudaFuncSetAttribute(fusedBlurKernel<kStackedGroups, true, kNarrowThreads>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, int(sharedOptin)));
  return sharedOptin;
}

void launchFusedPass(bool stacked, ConstRgbaView in, RgbaView out, int radius, BorderMode border,
                     const FusedLimits& limits, bool pdl, cudaStream_t stream) {
  if (!stacked) {
    launchFused<1>(fusedGrid(in.width, in.height, radius, limits.smCount, 1), in, out, radius, border, pdl,
                   stream);
    return;
  }
  const FusedGrid g = fusedGrid(in.width, in.height, radius, limits.smCount, kStackedGroups);
  // Groups of 6 warps where their tiles need fewer threads in all: a 1,920-column frame past
  // r = 30 takes three 640-column tiles, which use ~710 of a 256-thread group's 1,024 span
  // columns, and a 1,280-column frame two (docs/design/box_blur.md, "Group width").
  const FusedGrid n =
      fusedGrid(in.width, in.height, radius, limits.smCount, kStackedGroups, kNarrowThreads * kFusedItems);
  if (n.tiles * kNarrowThreads < g.tiles * kFusedThreads &&
      stackedSharedBytes(true, n.rows) <= limits.stackedShared) {
    launchFused<kStackedGroups, true, kNarrowThreads>(n, in, out, radius, border, pdl, stream);
    return;
  }
  // Alpha rows where they fit (a tall, very wide frame's segments may not).
  if (stackedSharedBytes(true, g.rows) <= limits.stackedShared)
    launchFused<kStackedGroups, true>(g, in, out, radius, border, pdl, stream);
  else
    launchFused<kStackedGroups>(g, in, out, radius, border, pdl, stream);
}

}  // namespace vp::blur
