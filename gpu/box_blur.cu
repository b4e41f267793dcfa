// Box blur on CUDA: two kernels per pass, O(1) work per pixel whatever the radius.
//
// Column pass first, by frame height and radius (boxBlurGpuTuned): columnSlideKernel
// (version 3) slides a running window sum down a column segment per thread, R|B and G|A
// packed two 16-bit lanes per word, its first window loaded 16 rows at a time past r = 32;
// columnSumsKernel (version 1) gives a block whole columns and keeps the column prefix in
// shared memory (window sums are one prefix difference, flat in r); columnBandKernel
// (version 2, no longer a default) prefix-sums 32 columns over a band of rows plus r halo
// rows. Out: ushort4 (R, G, B sums, alpha) per pixel, 8 bytes, L2-resident at 1080p.
// Row pass (rowBlurKernel2, the default): a block per row; each lane loads 4 consecutive
// sums (two 16-byte loads), warps scan with shuffles in registers, the warp offsets are
// added when the prefix is written to shared memory; every output pixel then reads two
// prefix values per channel and rounds with an exact multiply-shift division.
// (rowBlurKernel, version 1: scans chunk by chunk, then a read-modify-write pass.)
// Column pass first because its prefix then packs into 8 bytes per pixel; the row
// prefix of 24-bit sums needs 12.
// Kernels after the first are launched with programmatic dependent launch (sm_90): the
// next grid is scheduled while the previous drains and waits in griddepcontrol.wait.
// Fused pass (fusedBlurKernel, BoxBlurTuning::fused; the default for r <= 5, and up to r = 50 on
// tall frames such as 4K): both axes in one kernel per pass, vertical sums slid in registers,
// the horizontal prefix per row in shared memory; no sums buffer and one launch per pass.
#include "gpu/box_blur.h"
#include "gpu/box_blur_math.h"
#include "gpu/cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace vp {

struct BoxBlurWorkspaceAccess {
  static const DevicePitchedBuffer& sums(const BoxBlurWorkspace& ws) { return ws.sums_; }
  static const DeviceImage& pingPong(const BoxBlurWorkspace& ws) { return ws.pingPong_; }
  static size_t sharedOptin(const BoxBlurWorkspace& ws) { return ws.sharedOptinBytes_; }
  static bool pdl(const BoxBlurWorkspace& ws) { return ws.pdl_; }
  static int smCount(const BoxBlurWorkspace& ws) { return ws.smCount_; }
};

namespace {

constexpr int kColumnThreads = 1024;              // column-pass block: cw columns x segments
constexpr size_t kColumnSmemTarget = 100 << 10;   // bytes: two column blocks per SM (sm_90: 227 KB)
constexpr int kBandColumns = 32;                  // column-pass v2 block: 32 columns (one warp wide)
constexpr int kBandGroups = 16;                   //   x 16 row groups
constexpr int kBandThreads = kBandColumns * kBandGroups;
constexpr size_t kBandSmemTarget = 110 << 10;     // bytes: two band blocks per SM at the largest radii
constexpr int kSlideThreads = 128;                // column-pass v3 block: 128 columns
constexpr int kSlideTargetThreads = 128 << 10;    //   threads per frame the segment length aims for
constexpr int kRowThreads = 256;                  // row-pass block: one image row
constexpr int kRowWarps = kRowThreads / 32;
constexpr int kRowItems = 4;                      // consecutive sums per lane in the row scan
constexpr int kRowChunk = 32 * kRowItems;         // sums per warp step
constexpr int kFusedThreads = 256;                // fused-pass block
constexpr int kFusedWarps = kFusedThreads / 32;
constexpr int kFusedItems = 4;                    //   span columns per thread (consecutive)
constexpr int kFusedSpan = kFusedThreads * kFusedItems;  // tile + 2r halo columns, at most
constexpr int kFusedBatch = 4;                    //   first-window rows whose loads are issued together
constexpr int kFusedBlocksPerSm = 4;              //   register cap (64) and the grid's target
static_assert(kFusedItems == 4, "the fused pass stores a thread's prefix and alphas as one uint4 / uint32");

__device__ __forceinline__ void waitForPriorGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");  // no-op without a programmatic dependency
#endif
}
__device__ __forceinline__ void releaseNextGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");  // the next grid may be scheduled now
#endif
}

size_t columnSmemBytes(int h, int cw) {
  const int segments = kColumnThreads / cw;
  return (size_t(h) + 1) * cw * sizeof(uint64_t) + size_t(segments) * cw * sizeof(uint64_t) + size_t(h) * cw;
}
size_t bandSmemBytes(int band, int r) {
  return (size_t(band) + 2 * r + 1) * kBandColumns * sizeof(uint2) + size_t(kBandGroups) * kBandColumns * sizeof(uint2) +
         size_t(band) * kBandColumns;
}
// 3 pad words + w+1 entries per channel, rounded to a 16-byte multiple.
__host__ __device__ inline int rowPrefixWords(int w) { return (w + 4 + 3) & ~3; }
size_t rowSmemBytes(int w) { return size_t(3) * rowPrefixWords(w) * sizeof(uint32_t) + size_t(w); }

// Column pass: sums(x, y) = packed R, G, B sums over rows [y-r, y+r] of column x, alpha.
__global__ void __launch_bounds__(kColumnThreads)
    columnSumsKernel(ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border, int segLen) {
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint64_t columnSmem[];
  const int cw = blockDim.x, segments = blockDim.y, c = threadIdx.x, s = threadIdx.y;
  const int h = in.height;
  uint64_t* prefix = columnSmem;                          // [(h+1) * cw]: P(k) of column c at k*cw+c
  uint64_t* segTotal = prefix + size_t(h + 1) * cw;       // [segments * cw]
  unsigned char* alpha = reinterpret_cast<unsigned char*>(segTotal + segments * cw);  // [h * cw]
  const int x = blockIdx.x * cw + c;
  const bool valid = x < in.width;
  const int y0 = min(h, s * segLen), y1 = min(h, y0 + segLen);

  uint64_t acc = 0;
#pragma unroll 4
  for (int y = y0; y < y1; ++y) {
    const uchar4 v = valid ? in.at(x, y) : make_uchar4(0, 0, 0, 0);
    acc += blur::packRgb(v);
    prefix[(y + 1) * cw + c] = acc;
    alpha[y * cw + c] = v.w;
  }
  segTotal[s * cw + c] = acc;
  if (s == 0) prefix[c] = 0;
  __syncthreads();

  // Exclusive scan of the segment totals, warp `col` for column `col`.
  const int tid = s * cw + c, warp = tid >> 5, lane = tid & 31;
  if (warp < cw) {
    uint64_t carry = 0;
    for (int base = 0; base < segments; base += 32) {
      const int k = base + lane;
      const uint64_t v = k < segments ? segTotal[k * cw + warp] : 0;
      uint64_t inc = v;
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const uint64_t t = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc += t;
      }
      if (k < segments) segTotal[k * cw + warp] = carry + inc - v;
      carry += __shfl_sync(0xffffffffu, inc, 31);
    }
  }
  __syncthreads();
  const uint64_t offset = segTotal[s * cw + c];
  for (int y = y0; y < y1; ++y) prefix[(y + 1) * cw + c] += offset;
  __syncthreads();
  if (!valid) return;

  auto at = [prefix, cw, c](int k) { return prefix[k * cw + c]; };
  for (int y = y0; y < y1; ++y) {
    const int a = y - radius, b = y + radius;
    const uint64_t sum = (a >= 0 && b < h) ? at(b + 1) - at(a) : blur::windowSum<uint64_t>(at, a, b, h, border);
    sums.at(x, y) = blur::unpackSums(sum, alpha[y * cw + c]);
  }
}

// Column pass, version 2 (bands): a block owns 32 columns (a warp reads whole 128-byte
// row segments) x `band` output rows, and builds the prefix of its columns over the
// extended rows [y0 - r, y0 + band + r) in shared memory, each sample fetched through
// extendIndex, so a window sum is one difference whatever the border mode. 16 row groups
// of 32 threads; the reads overlap the next band's by 2r rows (band >= 2r where shared
// memory allows keeps that <= 2x). No dependency between blocks: ~1000 blocks at 1080p.
__global__ void __launch_bounds__(kBandThreads)
    columnBandKernel(ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border, int band) {
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint2 bandSmem[];
  const int c = threadIdx.x, g = threadIdx.y, h = in.height;
  const int x = blockIdx.x * kBandColumns + c;
  const bool valid = x < in.width;
  const int y0 = blockIdx.y * band, rows = min(band, h - y0);  // output rows of this block
  const int extent = rows + 2 * radius;                         // extended input rows
  uint2* prefix = bandSmem;                                      // [(extent + 1) * 32]: (rb, ga) prefix
  uint2* groupTotal = prefix + (extent + 1) * kBandColumns;      // [kBandGroups * 32]
  unsigned char* alpha = reinterpret_cast<unsigned char*>(groupTotal + kBandGroups * kBandColumns);  // [rows * 32]
  const int per = (extent + kBandGroups - 1) / kBandGroups;
  const int i0 = min(extent, g * per), i1 = min(extent, i0 + per);
  const int top = y0 - radius;  // image row of extended row 0
  const uchar4* column = in.data + x;

  uint32_t rb = 0, ga = 0;
#pragma unroll 8
  for (int i = i0; i < i1; ++i) {
    const int sy = blur::extendIndex(top + i, h, border);
    uint32_t px = 0;
    if (valid && sy >= 0)
      px = *reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(column) + size_t(sy) * in.pitch);
    rb += blur::lanesRb(px);
    ga += blur::lanesGa(px);
    prefix[(i + 1) * kBandColumns + c] = make_uint2(rb, ga);
    const int j = i - radius;  // output row, when inside the band
    if (j >= 0 && j < rows) alpha[j * kBandColumns + c] = static_cast<unsigned char>(px >> 24);
  }
  groupTotal[g * kBandColumns + c] = make_uint2(rb, ga);
  if (g == 0) prefix[c] = make_uint2(0, 0);
  __syncthreads();
  uint32_t offRb = 0, offGa = 0;
  for (int t = 0; t < g; ++t) {
    const uint2 v = groupTotal[t * kBandColumns + c];
    offRb += v.x;
    offGa += v.y;
  }
  if (g > 0)
    for (int i = i0; i < i1; ++i) {
      uint2 p = prefix[(i + 1) * kBandColumns + c];
      prefix[(i + 1) * kBandColumns + c] = make_uint2(p.x + offRb, p.y + offGa);
    }
  __syncthreads();
  if (!valid) return;
  for (int j = g; j < rows; j += kBandGroups) {  // a warp writes one row: 256 contiguous bytes
    const uint2 hi = prefix[(j + 2 * radius + 1) * kBandColumns + c], lo = prefix[j * kBandColumns + c];
    const uint32_t sRb = hi.x - lo.x, sGa = hi.y - lo.y;
    // ushort4 (R, G, B, alpha) = words (R | G << 16, B | alpha << 16)
    const uint2 packed = make_uint2(__byte_perm(sRb, sGa, 0x5410),
                                    __byte_perm(sRb, uint32_t(alpha[j * kBandColumns + c]), 0x5432));
    *reinterpret_cast<uint2*>(sums.row(y0 + j) + x) = packed;
  }
}

// Column pass, version 3 (sliding window): a thread owns one column and `segLen` output
// rows. It sums the 2r+1 samples around its first row, then slides: each row adds the
// sample entering at y+r+1 and subtracts the one leaving at y-r. R|B and G|A ride in
// two 16-bit lanes per word, exact mod 2^32 because every window sum is at most
// (2*128+1)*255 = 65535. Per output: three 4-byte loads (entering, leaving, the centre's
// alpha), one 8-byte store and ~20 instructions; no shared memory and no barrier. A
// thread's loads do not depend on its sums, so every loop issues kBatch rows of loads
// before using them: one row at a time, each row would wait a full memory latency.
// Rows whose window reaches past an edge fetch through extendIndex. kFirstBatch > kBatch:
// the first window issues that many rows of loads at a time, and reads plain rows when it
// lies inside the image (at r = 100 its 201 rows were 25 round trips of 8, each row folded).
template <int kBatch, int kFirstBatch>
__global__ void __launch_bounds__(kSlideThreads)
    columnSlideKernel(ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border, int segLen) {
  waitForPriorGrid();
  releaseNextGrid();
  const int x = blockIdx.x * kSlideThreads + threadIdx.x, h = in.height;
  if (x >= in.width) return;
  const int y0 = blockIdx.y * segLen, y1 = min(h, y0 + segLen);
  const char* column = reinterpret_cast<const char*>(in.data + x);
  const size_t pitch = in.pitch;
  auto at = [column, pitch](int y) { return __ldg(reinterpret_cast<const uint32_t*>(column + size_t(y) * pitch)); };
  auto sample = [&](int y) {  // through the border extension
    const int sy = blur::extendIndex(y, h, border);
    return sy < 0 ? 0u : at(sy);
  };
  uint32_t rb = 0, ga = 0;
  // The first window, rows [y0 - r, y0 + r].
  const int first = y0 - radius, count = 2 * radius + 1;
  if constexpr (kFirstBatch > kBatch) {
    // Whole batches unguarded, then one guarded batch for the rest; `fetch` is `at` when
    // every row of the window is inside the image, else `sample`.
    auto window = [&](auto fetch) {
      int i = 0;
      for (; i + kFirstBatch <= count; i += kFirstBatch) {
        uint32_t p[kFirstBatch];
#pragma unroll
        for (int j = 0; j < kFirstBatch; ++j) p[j] = fetch(first + i + j);
#pragma unroll
        for (int j = 0; j < kFirstBatch; ++j) rb += blur::lanesRb(p[j]), ga += blur::lanesGa(p[j]);
      }
      if (i < count) {
        uint32_t p[kFirstBatch];
#pragma unroll
        for (int j = 0; j < kFirstBatch; ++j) p[j] = i + j < count ? fetch(first + i + j) : 0u;
#pragma unroll
        for (int j = 0; j < kFirstBatch; ++j) rb += blur::lanesRb(p[j]), ga += blur::lanesGa(p[j]);
      }
    };
    if (first >= 0 && first + count <= h)
      window(at);
    else
      window(sample);
  } else {
    int i = 0;
    for (; i + kBatch <= count; i += kBatch) {
      uint32_t p[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) p[j] = sample(first + i + j);
#pragma unroll
      for (int j = 0; j < kBatch; ++j) rb += blur::lanesRb(p[j]), ga += blur::lanesGa(p[j]);
    }
    for (; i < count; ++i) {
      const uint32_t p = sample(first + i);
      rb += blur::lanesRb(p), ga += blur::lanesGa(p);
    }
  }
  // Emits row y's sums, then slides the window down by one row.
  auto step = [&](int y, uint32_t centre, uint32_t add, uint32_t sub) {
    // ushort4 (R, G, B, alpha) = words (R | G << 16, B | alpha << 16)
    *reinterpret_cast<uint2*>(sums.row(y) + x) =
        make_uint2(__byte_perm(rb, ga, 0x5410), __byte_perm(rb, centre >> 8, 0x7632));
    rb += blur::lanesRb(add) - blur::lanesRb(sub);
    ga += blur::lanesGa(add) - blur::lanesGa(sub);
  };
  // Rows whose window reaches past an edge, [ya, yb): batched, samples through extendIndex.
  auto edgeRows = [&](int ya, int yb) {
    for (int y = ya; y < yb; y += kBatch) {
      uint32_t centre[kBatch], add[kBatch], sub[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int yy = y + j < yb ? y + j : y;  // past yb: a harmless repeat of row y
        centre[j] = at(yy);
        add[j] = sample(yy + radius + 1);
        sub[j] = sample(yy - radius);
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        if (y + j < yb) step(y + j, centre[j], add[j], sub[j]);
    }
  };
  // Interior rows (y - r >= 0 and y + r + 1 < h) need no border mapping; whole batches
  // run unguarded, the few rows left go the edge way.
  const int fastBegin = min(y1, max(y0, radius)), fastEnd = max(fastBegin, min(y1, h - radius - 1));
  edgeRows(y0, fastBegin);
  int y = fastBegin;
  for (; y + kBatch <= fastEnd; y += kBatch) {
    uint32_t centre[kBatch], add[kBatch], sub[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      centre[j] = at(y + j);
      add[j] = at(y + j + radius + 1);
      sub[j] = at(y + j - radius);
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) step(y + j, centre[j], add[j], sub[j]);
  }
  edgeRows(y, y1);
}

// A ushort4 from the two little-endian words it occupies in memory.
__device__ __forceinline__ ushort4 halves(uint32_t a, uint32_t b) {
  return make_ushort4(static_cast<unsigned short>(a), static_cast<unsigned short>(a >> 16),
                      static_cast<unsigned short>(b), static_cast<unsigned short>(b >> 16));
}

// The row pass's shared memory: P(k) of each channel at index k (+3 puts P(4i+1 .. 4i+4)
// on a 16-byte boundary), then the alpha bytes.
struct RowShared {
  uint32_t* pr;
  uint32_t* pg;
  uint32_t* pb;
  unsigned char* alpha;
  __device__ RowShared(uint4* smem, int w) {
    const int words = rowPrefixWords(w);
    uint32_t* base = reinterpret_cast<uint32_t*>(smem);
    pr = base + 3;
    pg = base + words + 3;
    pb = base + 2 * words + 3;
    alpha = reinterpret_cast<unsigned char*>(base + 3 * words);
  }
};

// One lane's kRowItems consecutive sums from x (zeros past x1): two 16-byte loads when whole.
__device__ __forceinline__ void loadChunk(const ushort4* src, int x, int x1, ushort4 (&v)[kRowItems]) {
  if (x + kRowItems <= x1) {
    const uint4 lo = reinterpret_cast<const uint4*>(src + x)[0], hi = reinterpret_cast<const uint4*>(src + x)[1];
    v[0] = halves(lo.x, lo.y);
    v[1] = halves(lo.z, lo.w);
    v[2] = halves(hi.x, hi.y);
    v[3] = halves(hi.z, hi.w);
  } else {
#pragma unroll
    for (int i = 0; i < kRowItems; ++i) v[i] = x + i < x1 ? src[x + i] : make_ushort4(0, 0, 0, 0);
  }
}

// Inclusive prefix of a warp's 32 x kRowItems sums per channel, plus `carry` (the sums of
// the warp's earlier chunks), which then advances by this chunk's total.
__device__ __forceinline__ void scanChunk(const ushort4 (&v)[kRowItems], int lane, uint32_t (&carry)[3],
                                          uint32_t (&run)[3][kRowItems]) {
#pragma unroll
  for (int i = 0; i < kRowItems; ++i) {
    run[0][i] = (i ? run[0][i - 1] : 0) + v[i].x;
    run[1][i] = (i ? run[1][i - 1] : 0) + v[i].y;
    run[2][i] = (i ? run[2][i - 1] : 0) + v[i].z;
  }
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    const uint32_t total = run[ch][kRowItems - 1];
    uint32_t inc = total;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t t = __shfl_up_sync(0xffffffffu, inc, d);
      if (lane >= d) inc += t;
    }
    const uint32_t before = carry[ch] + inc - total;
#pragma unroll
    for (int i = 0; i < kRowItems; ++i) run[ch][i] += before;
    carry[ch] += __shfl_sync(0xffffffffu, inc, 31);
  }
}

// P(x+1 .. x+kRowItems) = run + offset, and the alphas, into shared memory (x < x1 only).
__device__ __forceinline__ void storeChunk(const RowShared& sh, int x, int x1, const uint32_t (&run)[3][kRowItems],
                                           const uint32_t (&off)[3], uint32_t alphas) {
  if (x + kRowItems <= x1) {
    *reinterpret_cast<uint4*>(sh.pr + x + 1) = make_uint4(run[0][0] + off[0], run[0][1] + off[0], run[0][2] + off[0], run[0][3] + off[0]);
    *reinterpret_cast<uint4*>(sh.pg + x + 1) = make_uint4(run[1][0] + off[1], run[1][1] + off[1], run[1][2] + off[1], run[1][3] + off[1]);
    *reinterpret_cast<uint4*>(sh.pb + x + 1) = make_uint4(run[2][0] + off[2], run[2][1] + off[2], run[2][2] + off[2], run[2][3] + off[2]);
    *reinterpret_cast<uint32_t*>(sh.alpha + x) = alphas;
  } else {
#pragma unroll
    for (int i = 0; i < kRowItems; ++i)
      if (x + i < x1) {
        sh.pr[x + i + 1] = run[0][i] + off[0];
        sh.pg[x + i + 1] = run[1][i] + off[1];
        sh.pb[x + i + 1] = run[2][i] + off[2];
        sh.alpha[x + i] = static_cast<unsigned char>(alphas >> (8 * i));
      }
  }
}

__device__ __forceinline__ uint32_t packAlphas(const ushort4 (&v)[kRowItems]) {
  return uint32_t(v[0].w & 0xFF) | uint32_t(v[1].w & 0xFF) << 8 | uint32_t(v[2].w & 0xFF) << 16 |
         uint32_t(v[3].w & 0xFF) << 24;
}

// One output pixel of the row pass from its window sum: the rounding division per channel.
__device__ __forceinline__ uchar4 rowPixel(const blur::Sum3& s, unsigned char alpha, const blur::Divider& div) {
  return make_uchar4(static_cast<unsigned char>(blur::roundDiv(s.r, div)),
                     static_cast<unsigned char>(blur::roundDiv(s.g, div)),
                     static_cast<unsigned char>(blur::roundDiv(s.b, div)), alpha);
}

// Output pixel x of the row pass, any x: two prefix reads per channel, or the border
// extension's sum where the window crosses a row end.
__device__ __forceinline__ uchar4 rowOutput(const RowShared& sh, int x, int w, int radius, BorderMode border,
                                            const blur::Divider& div) {
  const uint32_t *pr = sh.pr, *pg = sh.pg, *pb = sh.pb;
  auto at = [pr, pg, pb](int k) { return blur::Sum3{pr[k], pg[k], pb[k]}; };
  const int a = x - radius, b = x + radius;
  const blur::Sum3 s = (a >= 0 && b < w) ? at(b + 1) - at(a) : blur::windowSum<blur::Sum3>(at, a, b, w, border);
  return rowPixel(s, sh.alpha[x], div);
}

// Output phase of the row pass, any block size and width.
__device__ __forceinline__ void rowOutputs(const RowShared& sh, uchar4* dst, int w, int radius, BorderMode border,
                                           const blur::Divider& div) {
  for (int x = threadIdx.x; x < w; x += blockDim.x) dst[x] = rowOutput(sh, x, w, radius, border, div);
}

// Output phase of row version 2 (BoxBlurTuning::rowUnrolled): pixels x = threadIdx.x + i T,
// i < kMax (w <= kMax T), unrolled with compile-time strides, so an interior pixel costs its
// six prefix loads and its alpha at immediate offsets, three divisions and a store, without
// the strided loop's per-pixel index, bounds and address work. Pixels whose window crosses
// a row end are noted and written afterwards through rowOutput.
template <int T, int kMax>
__device__ __forceinline__ void rowOutputsUnrolled(const RowShared& sh, uchar4* dst, int w, int radius,
                                                   BorderMode border, const blur::Divider& div) {
  const int x0 = threadIdx.x, lo = x0 - radius, hi = x0 + radius + 1;
  uchar4* const out = dst + x0;
  uint32_t edge = 0;  // bit i: pixel x0 + i T needs the border path
#pragma unroll
  for (int i = 0; i < kMax; ++i) {
    const int x = x0 + i * T;
    if (x >= w) break;
    if (lo + i * T >= 0 && hi + i * T <= w) {
      const blur::Sum3 s{sh.pr[hi + i * T] - sh.pr[lo + i * T], sh.pg[hi + i * T] - sh.pg[lo + i * T],
                         sh.pb[hi + i * T] - sh.pb[lo + i * T]};
      out[i * T] = rowPixel(s, sh.alpha[x], div);
    } else {
      edge |= 1u << i;
    }
  }
  for (; edge != 0; edge &= edge - 1) {
    const int x = x0 + (__ffs(edge) - 1) * T;
    dst[x] = rowOutput(sh, x, w, radius, border, div);
  }
}

// Row pass, version 1: each warp scans its range chunk by chunk into shared memory, then
// adds the offset of the warps before it (a read-modify-write pass). Any width.
__global__ void __launch_bounds__(kRowThreads)
    rowBlurKernel(ImageView<const ushort4> sums, RgbaView out, int radius, BorderMode border, blur::Divider div) {
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint4 rowSmem[];
  __shared__ uint32_t warpTotal[3][kRowWarps];
  const int w = out.width, y = blockIdx.x;
  const RowShared sh(rowSmem, w);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int span = (w + kRowWarps * kRowChunk - 1) / (kRowWarps * kRowChunk) * kRowChunk;
  const int x0 = min(w, warp * span), x1 = min(w, x0 + span);
  const ushort4* src = sums.row(y);
  const uint32_t zero[3] = {0, 0, 0};

  uint32_t carry[3] = {0, 0, 0};
  for (int base = x0; base < x1; base += kRowChunk) {
    const int x = base + lane * kRowItems;
    ushort4 v[kRowItems];
    loadChunk(src, x, x1, v);
    uint32_t run[3][kRowItems];
    scanChunk(v, lane, carry, run);
    storeChunk(sh, x, x1, run, zero, packAlphas(v));
  }
  if (lane == 0)
    for (int ch = 0; ch < 3; ++ch) warpTotal[ch][warp] = carry[ch];
  if (threadIdx.x == 0) sh.pr[0] = sh.pg[0] = sh.pb[0] = 0;
  __syncthreads();
  if (warp > 0) {
    uint32_t off[3] = {0, 0, 0};
    for (int i = 0; i < warp; ++i)
      for (int ch = 0; ch < 3; ++ch) off[ch] += warpTotal[ch][i];
    for (int x = x0 + lane; x < x1; x += 32) {
      sh.pr[x + 1] += off[0];
      sh.pg[x + 1] += off[1];
      sh.pb[x + 1] += off[2];
    }
  }
  __syncthreads();
  rowOutputs(sh, out.row(y), w, radius, border, div);
}

// Row pass, version 2: kWarps warps each own kChunks chunks (w <= kWarps x kChunks x 128),
// load them all up front, scan them in registers, and write the final prefix once the
// offsets of the earlier warps are known (no read-modify-write pass, one fewer phase).
// The 4K shape (one chunk, 1024 threads) keeps to 32 registers, so two blocks fit on an SM.
template <int kChunks, int kWarps, bool kUnrolled>
__global__ void __launch_bounds__(32 * kWarps, kWarps == 32 && kChunks == 1 ? 2 : 1)
    rowBlurKernel2(ImageView<const ushort4> sums, RgbaView out, int radius, BorderMode border, blur::Divider div) {
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint4 rowSmem[];
  __shared__ uint32_t warpTotal[3][kWarps];
  const int w = out.width, y = blockIdx.x;
  const RowShared sh(rowSmem, w);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int x0 = min(w, warp * kChunks * kRowChunk), x1 = min(w, x0 + kChunks * kRowChunk);
  const ushort4* src = sums.row(y);

  ushort4 v[kChunks][kRowItems];
#pragma unroll
  for (int k = 0; k < kChunks; ++k) loadChunk(src, x0 + k * kRowChunk + lane * kRowItems, x1, v[k]);
  uint32_t run[kChunks][3][kRowItems];
  uint32_t alphas[kChunks];
  uint32_t carry[3] = {0, 0, 0};
#pragma unroll
  for (int k = 0; k < kChunks; ++k) {
    scanChunk(v[k], lane, carry, run[k]);
    alphas[k] = packAlphas(v[k]);
  }
  if (lane == 0)
    for (int ch = 0; ch < 3; ++ch) warpTotal[ch][warp] = carry[ch];
  if (threadIdx.x == 0) sh.pr[0] = sh.pg[0] = sh.pb[0] = 0;
  __syncthreads();
  uint32_t off[3];
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {  // sum of the earlier warps' totals, lane-parallel
    uint32_t t = lane < warp ? warpTotal[ch][lane] : 0;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) t += __shfl_xor_sync(0xffffffffu, t, d);
    off[ch] = t;
  }
#pragma unroll
  for (int k = 0; k < kChunks; ++k) storeChunk(sh, x0 + k * kRowChunk + lane * kRowItems, x1, run[k], off, alphas[k]);
  __syncthreads();
  if constexpr (kUnrolled)
    rowOutputsUnrolled<32 * kWarps, kChunks * kRowItems>(sh, out.row(y), w, radius, border, div);
  else
    rowOutputs(sh, out.row(y), w, radius, border, div);
}

// Sum over the warp's 32 lanes (one REDUX on sm_80+).
__device__ __forceinline__ uint32_t warpSum(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
#endif
}

// The fused pass's shared memory: the prefix P(k) of the span's vertical window sums per
// channel at index k + 3 (so a thread's P(4t+1 .. 4t+4) is one 16-byte store), the warps'
// totals and the alpha bytes of the row's span columns. 13.2 KB: static, no opt-in.
struct FusedShared {
  alignas(16) uint32_t prefix[3][kFusedSpan + 4];
  uint4 warpTotal[kFusedWarps];
  alignas(4) unsigned char alpha[kFusedSpan];
};

// A thread's kFusedItems span columns: image columns c0 .. c0+3 when `contiguous` (one
// address, immediate offsets), else each through the horizontal border fold, col < 0 a
// zero sample (Zero mode outside the image, or past the block's span).
struct FusedColumns {
  int c0;
  bool contiguous;
  int col[kFusedItems];
  // `left`: span columns from c0 to the end of the block's span.
  __device__ FusedColumns(int first, int left, int w, BorderMode border) : c0(first) {
    contiguous = left >= kFusedItems && first >= 0 && first + kFusedItems <= w;
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) col[k] = k < left ? blur::extendIndex(first + k, w, border) : -1;
  }
  // The row's samples at these columns; row == nullptr: a zero row.
  __device__ __forceinline__ void load(const char* row, uint32_t (&v)[kFusedItems]) const {
    const uint32_t* p = reinterpret_cast<const uint32_t*>(row);
    if (!row) {
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) v[k] = 0;
    } else if (contiguous) {
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) v[k] = __ldg(p + c0 + k);
    } else {
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) v[k] = col[k] >= 0 ? __ldg(p + col[k]) : 0u;
    }
  }
};

__device__ __forceinline__ const char* imageRow(ConstRgbaView in, int y) {
  return reinterpret_cast<const char*>(in.data) + size_t(y) * in.pitch;
}
// Row y through the vertical border fold; nullptr: a zero row.
__device__ __forceinline__ const char* foldedRow(ConstRgbaView in, int y, BorderMode border) {
  const int sy = blur::extendIndex(y, in.height, border);
  return sy < 0 ? nullptr : imageRow(in, sy);
}

// Vertical window sums (R|B, G|A lanes) of the thread's columns over rows [top, top+count):
// kFusedBatch rows of loads issued together, each row through the fold.
__device__ __forceinline__ void fusedFirstWindow(ConstRgbaView in, const FusedColumns& cols, int top, int count,
                                                 BorderMode border, uint32_t (&rb)[kFusedItems],
                                                 uint32_t (&ga)[kFusedItems]) {
  for (int i = 0; i < count; i += kFusedBatch) {
    uint32_t p[kFusedBatch][kFusedItems];
#pragma unroll
    for (int j = 0; j < kFusedBatch; ++j)
      cols.load(i + j < count ? foldedRow(in, top + i + j, border) : nullptr, p[j]);
#pragma unroll
    for (int j = 0; j < kFusedBatch; ++j)
#pragma unroll
      for (int k = 0; k < kFusedItems; ++k) rb[k] += blur::lanesRb(p[j][k]), ga[k] += blur::lanesGa(p[j][k]);
  }
}

// The block's exclusive prefix of the span's vertical sums (R, G, B) and the alpha bytes
// into shared memory. Two barriers: after the warp totals are written, and after the
// prefix is; the next row's writes come after its first barrier, which every thread
// reaches only when done reading this row's prefix, so one buffer serves every row.
__device__ __forceinline__ void fusedScanRow(FusedShared& sh, const uint32_t (&rb)[kFusedItems],
                                             const uint32_t (&ga)[kFusedItems],
                                             const uint32_t (&centre)[kFusedItems]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
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
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t t = __shfl_up_sync(0xffffffffu, inc[ch], d);
      if (lane >= d) inc[ch] += t;
    }
  }
  if (lane == 31) sh.warpTotal[warp] = make_uint4(inc[0], inc[1], inc[2], 0);
  __syncthreads();
  const uint4 t = lane < warp ? sh.warpTotal[lane] : make_uint4(0, 0, 0, 0);
  const uint32_t earlier[3] = {warpSum(t.x), warpSum(t.y), warpSum(t.z)};
  const int base = kFusedItems * threadIdx.x + 4;  // P(4t + 1) at index 4t + 1 + 3
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) {
    const uint32_t off = earlier[ch] + inc[ch] - run[ch][kFusedItems - 1];
    *reinterpret_cast<uint4*>(&sh.prefix[ch][base]) =
        make_uint4(run[ch][0] + off, run[ch][1] + off, run[ch][2] + off, run[ch][3] + off);
  }
  // Byte 3 of each centre pixel, in column order.
  *reinterpret_cast<uint32_t*>(&sh.alpha[kFusedItems * threadIdx.x]) =
      __byte_perm(__byte_perm(centre[0], centre[1], 0x0073), __byte_perm(centre[2], centre[3], 0x0073), 0x5410);
  __syncthreads();
}

// Output row: pixel x of the tile = span columns [x, x + 2r], one prefix difference per
// channel, the rounding division, alpha of the centre (span column x + r).
__device__ __forceinline__ void fusedOutputRow(const FusedShared& sh, uchar4* dst, int tileW, int radius,
                                               const blur::Divider& div) {
  const int window = 2 * radius + 1;
#pragma unroll
  for (int i = 0; i < kFusedItems; ++i) {
    const int x = threadIdx.x + i * kFusedThreads;
    if (x < tileW) {
      const uint32_t s0 = sh.prefix[0][x + window + 3] - sh.prefix[0][x + 3];
      const uint32_t s1 = sh.prefix[1][x + window + 3] - sh.prefix[1][x + 3];
      const uint32_t s2 = sh.prefix[2][x + window + 3] - sh.prefix[2][x + 3];
      dst[x] = make_uchar4(static_cast<unsigned char>(blur::roundDiv(s0, div)),
                           static_cast<unsigned char>(blur::roundDiv(s1, div)),
                           static_cast<unsigned char>(blur::roundDiv(s2, div)), sh.alpha[x + radius]);
    }
  }
}

// Fused pass (both axes, one kernel): a block owns `tile` output columns from x0 and
// `segLen` output rows; its span is the tile plus r halo columns each side (<= 1024),
// kFusedItems columns per thread. Each thread slides the vertical window sums of its
// columns down the rows as columnSlideKernel does (R|B and G|A lanes), then per row the
// block scans the span's sums into a shared prefix and each output pixel takes one
// prefix difference per channel: no sums buffer, one launch. The loads for the slide
// after row y (and the next centre row) are issued before row y's scan, so their latency
// hides behind its barriers and outputs. Requires 1 <= radius and tile + 2r <= 1024.
__global__ void __launch_bounds__(kFusedThreads, kFusedBlocksPerSm)
    fusedBlurKernel(ConstRgbaView in, RgbaView out, int radius, BorderMode border, blur::Divider div, int tile,
                    int segLen) {
  waitForPriorGrid();
  releaseNextGrid();
  __shared__ FusedShared sh;
  const int w = in.width, h = in.height;
  const int x0 = blockIdx.x * tile, tileW = min(tile, w - x0);
  const int y0 = blockIdx.y * segLen, y1 = min(h, y0 + segLen);
  if (tileW <= 0 || y0 >= h) return;  // whole block; fusedGrid makes none such
  const int s0 = kFusedItems * threadIdx.x;  // the thread's first span column
  const FusedColumns cols(x0 - radius + s0, tileW + 2 * radius - s0, w, border);
  uint32_t rb[kFusedItems] = {}, ga[kFusedItems] = {};
  fusedFirstWindow(in, cols, y0 - radius, 2 * radius + 1, border, rb, ga);
  if (threadIdx.x == 0) sh.prefix[0][3] = sh.prefix[1][3] = sh.prefix[2][3] = 0;  // P(0), never overwritten
  uint32_t centre[kFusedItems];
  cols.load(imageRow(in, y0), centre);
  for (int y = y0; y < y1; ++y) {
    // Interior rows (the whole window inside the image) need no fold; the test is block-uniform.
    uint32_t add[kFusedItems], sub[kFusedItems], next[kFusedItems];
    if (y >= radius && y + radius + 1 < h) {
      cols.load(imageRow(in, y + radius + 1), add);
      cols.load(imageRow(in, y - radius), sub);
    } else {
      cols.load(foldedRow(in, y + radius + 1, border), add);
      cols.load(foldedRow(in, y - radius, border), sub);
    }
    cols.load(imageRow(in, min(y + 1, y1 - 1)), next);  // past the segment: a harmless repeat
    fusedScanRow(sh, rb, ga, centre);
    fusedOutputRow(sh, out.row(y) + x0, tileW, radius, div);
#pragma unroll
    for (int k = 0; k < kFusedItems; ++k) {
      rb[k] += blur::lanesRb(add[k]) - blur::lanesRb(sub[k]);
      ga[k] += blur::lanesGa(add[k]) - blur::lanesGa(sub[k]);
      centre[k] = next[k];
    }
  }
}

using SlideKernel = void (*)(ConstRgbaView, ImageView<ushort4>, int, BorderMode, int);
// The sliding column pass for (slide batch, first-window batch); nullptr: no such instance.
SlideKernel columnSlideKernelFor(int batch, int firstBatch) {
  switch (batch * 100 + firstBatch) {
    case 404: return columnSlideKernel<4, 4>;
    case 416: return columnSlideKernel<4, 16>;
    case 432: return columnSlideKernel<4, 32>;
    case 808: return columnSlideKernel<8, 8>;
    case 816: return columnSlideKernel<8, 16>;
    case 832: return columnSlideKernel<8, 32>;
  }
  return nullptr;
}

using RowKernel = void (*)(ImageView<const ushort4>, RgbaView, int, BorderMode, blur::Divider);
struct RowConfig {
  RowKernel kernel;
  int threads;
};
// Version 2 instances: (chunks per warp, warps); a row of up to warps x chunks x 128 pixels.
constexpr int kRowConfigs[][2] = {{1, 8}, {2, 8}, {4, 8}, {1, 16}, {2, 16}, {1, 32}, {2, 32}};
template <bool kUnrolled>
RowKernel rowKernel2(int chunks, int warps) {
  switch (warps * 10 + chunks) {
    case 81: return rowBlurKernel2<1, 8, kUnrolled>;
    case 82: return rowBlurKernel2<2, 8, kUnrolled>;
    case 84: return rowBlurKernel2<4, 8, kUnrolled>;
    case 161: return rowBlurKernel2<1, 16, kUnrolled>;
    case 162: return rowBlurKernel2<2, 16, kUnrolled>;
    case 321: return rowBlurKernel2<1, 32, kUnrolled>;
    case 322: return rowBlurKernel2<2, 32, kUnrolled>;
  }
  return nullptr;
}
RowKernel rowKernel2(int chunks, int warps, bool unrolled) {
  return unrolled ? rowKernel2<true>(chunks, warps) : rowKernel2<false>(chunks, warps);
}
// Version 0 (auto): version 2 up to 4096 pixels (measured faster than version 1 at 1080p
// and 4K), version 1 beyond. Version 2's block: 8 warps up to 2048 pixels (1-2 chunks;
// measured 1.3 us better at 1080p than 16 warps x 1 chunk), else 32 warps x 1 chunk
// (3 us better at 4K than 16 x 2). `threads` forces the block size.
RowConfig rowConfig(int w, int version, int threads, bool unrolled) {
  if (version == 1 || (version == 0 && w > 32 * kRowChunk)) return {rowBlurKernel, kRowThreads};
  int warps = threads / 32;
  if (!threads) warps = w <= 16 * kRowChunk ? 8 : 32;
  const int chunks = (w + warps * kRowChunk - 1) / (warps * kRowChunk);
  const RowKernel k = rowKernel2(chunks == 3 ? 4 : chunks, warps, unrolled);
  if (!k) throw std::invalid_argument("boxBlurGpu: no row kernel for width " + std::to_string(w) + " with " +
                                      std::to_string(threads) + " threads");
  return {k, 32 * warps};
}

// cudaLaunchKernelEx, with the programmatic-serialization attribute when `pdl`.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream, bool pdl,
            Args&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl ? 1 : 0;
  VP_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
  VP_CUDA_CHECK_LAUNCH();
}

// Columns per column-pass block: as many as keep the prefix within the target (two
// blocks per SM), or the requested count.
int columnsPerBlock(int h, int requested, size_t optin) {
  if (requested) {
    if ((requested != 1 && requested != 2 && requested != 4 && requested != 8) ||
        columnSmemBytes(h, requested) > optin)
      throw std::invalid_argument("boxBlurGpu: " + std::to_string(requested) + " columns per block unsupported");
    return requested;
  }
  const size_t budget = optin < kColumnSmemTarget ? optin : kColumnSmemTarget;
  for (int cw = 8; cw > 1; cw /= 2)
    if (columnSmemBytes(h, cw) <= budget) return cw;
  return 1;  // the workspace checked that one column fits
}

// Output rows per band-kernel block: 2r or more (so the 2r halo rows at most double the
// reads), 64 at least, as shared memory allows; 0 when not even one row fits.
int bandRows(int h, int r, int requested, size_t optin) {
  if (requested) {
    const int band = requested < h ? requested : h;
    if (band < 1 || bandSmemBytes(band, r) > optin)
      throw std::invalid_argument("boxBlurGpu: " + std::to_string(requested) + " band rows unsupported");
    return band;
  }
  const size_t budget = optin < kBandSmemTarget ? optin : kBandSmemTarget;
  const size_t fixed = bandSmemBytes(0, r);
  if (fixed >= budget) return 0;
  const int fit = int((budget - fixed) / (kBandColumns * (sizeof(uint2) + 1)));
  int band = 2 * r > 64 ? 2 * r : 64;
  band = band < fit ? band : fit;
  return band < h ? band : h;
}

// Output rows per thread of the sliding column pass: enough segments for about
// kSlideTargetThreads threads, but at least (2r+1)/2 rows, so the window sum that starts
// a segment at most doubles the loads; or the requested count.
int slideRows(int w, int h, int r, int requested) {
  if (requested < 0) throw std::invalid_argument("boxBlurGpu: " + std::to_string(requested) + " slide rows unsupported");
  if (requested) return requested < h ? requested : h;
  const int64_t columns = int64_t(w + kSlideThreads - 1) / kSlideThreads * kSlideThreads;
  int rows = int(columns * h / kSlideTargetThreads);
  const int minRows = (2 * r + 1) / 2 > 16 ? (2 * r + 1) / 2 : 16;
  rows = rows > minRows ? rows : minRows;
  return rows < h ? rows : h;
}

// The fused pass's grid: `tiles` tiles of `tile` output columns (balanced, so the last is
// not a sliver) by `segments` segments of `rows` output rows.
struct FusedGrid {
  int tile, tiles, rows, segments;
};
// Rows: about kFusedBlocksPerSm blocks per SM (fewer blocks leave the per-row barriers'
// latency exposed), but at least r/4, so the first window stays below a segment's work: a
// window row costs a thread ~30 instructions (4 loads and lane sums), an output row ~400
// (three rows of loads, scan, 4 outputs), so 2r+1 window rows ~ r/7 output rows (from the
// PTX, not measured; BM_BoxBlurGpuFused sweeps the rows). Or the requested count.
FusedGrid fusedGrid(int w, int h, int r, int requestedRows, int smCount) {
  if (requestedRows < 0)
    throw std::invalid_argument("boxBlurGpu: " + std::to_string(requestedRows) + " fused rows unsupported");
  FusedGrid g{};
  g.tiles = (w + kFusedSpan - 2 * r - 1) / (kFusedSpan - 2 * r);
  g.tile = (w + g.tiles - 1) / g.tiles;
  if (requestedRows) {
    g.rows = requestedRows;
  } else {
    const int segments = std::max(1, kFusedBlocksPerSm * smCount / g.tiles);
    g.rows = std::max((h + segments - 1) / segments, (r + 3) / 4);
  }
  g.rows = std::min(g.rows, h);
  g.segments = (h + g.rows - 1) / g.rows;
  return g;
}

}  // namespace

BoxBlurWorkspace::BoxBlurWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxBlurDimension || maxHeight > kMaxBlurDimension)
    throw std::invalid_argument("BoxBlurWorkspace: size outside 1.." + std::to_string(kMaxBlurDimension));
  int device = 0, optin = 0, major = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&smCount_, cudaDevAttrMultiProcessorCount, device));
  sharedOptinBytes_ = size_t(optin);
  pdl_ = major >= 9;
  // Dynamic shared memory may use what the static part leaves of the opt-in limit.
  cudaFuncAttributes columnAttr{}, rowAttr{};
  VP_CUDA_CHECK(cudaFuncGetAttributes(&columnAttr, columnSumsKernel));
  VP_CUDA_CHECK(cudaFuncGetAttributes(&rowAttr, rowBlurKernel));
  const size_t columnMax = sharedOptinBytes_ - columnAttr.sharedSizeBytes;
  const size_t rowMax = sharedOptinBytes_ - rowAttr.sharedSizeBytes;
  if (columnSmemBytes(maxHeight, 1) > columnMax || rowSmemBytes(maxWidth) > rowMax)
    throw std::invalid_argument("BoxBlurWorkspace: " + std::to_string(maxWidth) + "x" + std::to_string(maxHeight) +
                                " needs more shared memory than this device has");
  VP_CUDA_CHECK(cudaFuncSetAttribute(columnSumsKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(columnMax)));
  VP_CUDA_CHECK(cudaFuncSetAttribute(columnBandKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(columnMax)));
  VP_CUDA_CHECK(cudaFuncSetAttribute(rowBlurKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(rowMax)));
  for (const auto& c : kRowConfigs)  // static shared memory: 12 bytes per warp at most
    for (bool unrolled : {false, true})
      VP_CUDA_CHECK(cudaFuncSetAttribute(rowKernel2(c[0], c[1], unrolled), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(rowMax - 12 * 32)));
  sharedOptinBytes_ = columnMax;  // what columnsPerBlock may plan with
  sums_ = DevicePitchedBuffer(size_t(maxWidth) * sizeof(ushort4), size_t(maxHeight));
  pingPong_ = DeviceImage(maxWidth, maxHeight);
}

namespace {
// boxBlurGpuTuned with tuning.fused (checked arguments, radius >= 1): one fused kernel per pass.
void fusedBlur(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
               const detail::BoxBlurTuning& tuning, cudaStream_t stream) {
  const int w = in.width, h = in.height, r = params.radius;
  const FusedGrid g = fusedGrid(w, h, r, tuning.fusedRows, BoxBlurWorkspaceAccess::smCount(ws));
  const blur::Divider div = blur::makeDivider(uint32_t(2 * r + 1) * uint32_t(2 * r + 1));
  const DeviceImage& pp = BoxBlurWorkspaceAccess::pingPong(ws);
  const RgbaView pingPong{pp.view().data, pp.pitch(), w, h};
  const bool pdl = tuning.pdl && BoxBlurWorkspaceAccess::pdl(ws);
  ConstRgbaView src = in;
  for (int pass = 0; pass < params.passes; ++pass) {
    // The last pass writes `out`; earlier ones alternate so a pass never reads what it writes.
    const RgbaView dst = ((params.passes - 1 - pass) % 2 == 0) ? out : pingPong;
    launch(fusedBlurKernel, dim3(g.tiles, g.segments), dim3(kFusedThreads), 0, stream, pdl && pass > 0, src, dst,
           r, params.border, div, g.tile, g.rows);
    src = dst;
  }
}
}  // namespace

void boxBlurGpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
                cudaStream_t stream) {
  detail::boxBlurGpuTuned(in, out, params, ws, detail::BoxBlurTuning{}, stream);
}

void detail::boxBlurGpuTuned(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
                             const BoxBlurTuning& tuning, cudaStream_t stream) {
  if (!blur::checkBlurArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "boxBlurGpu")) return;
  const int w = in.width, h = in.height, r = params.radius;
  if (r == 0) {  // identity, whatever the passes
    VP_CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch, in.data, in.pitch, size_t(w) * sizeof(uchar4), size_t(h),
                                    cudaMemcpyDefault, stream));
    return;
  }
  const size_t optin = BoxBlurWorkspaceAccess::sharedOptin(ws);
  const bool narrowColumns = columnsPerBlock(h, 0, optin) < 8;
  // Fused by default (H200, replicate, one pass; BM_BoxBlurGpuFused against BM_BoxBlurGpu,
  // notes/box_blur.md) where it measured faster: r <= 5 everywhere (1080p r = 1 / 5: 20.3 / 23.1 us
  // against 24.3 / 24.8; r = 15: 29.7 against 27.7), and up to r = 50 on tall frames (4K r = 1 / 15 / 50:
  // 49.8 / 64.6 / 92.8 us against 78.0 / 86.7 / 94.5; r = 100: 139 against 102, the first windows of
  // its short segments dominate).
  const bool chosen = tuning.columnVersion != 0 || tuning.rowVersion != 0 || tuning.stages != 3;
  if (tuning.fused > 0 || (tuning.fused < 0 && !chosen && (r <= 5 || (narrowColumns && r <= 50)))) {
    fusedBlur(in, out, params, ws, tuning, stream);
    return;
  }
  if (tuning.slideBatch != 0 && tuning.slideBatch != 4 && tuning.slideBatch != 8)
    throw std::invalid_argument("boxBlurGpu: slide batch " + std::to_string(tuning.slideBatch) + " unsupported");
  // Batch 8 past r = 32: longer first windows and edge runs keep more loads in flight
  // (4K with the row pass, r = 50 / 100: 96.7 / 103 us against 101 / 110 with batch 4);
  // at small r 4 is as fast, with 40 registers instead of 56.
  const int slideBatch = tuning.slideBatch ? tuning.slideBatch : r > 32 ? 8 : 4;
  // Wide first window past r = 32 (201 rows at r = 100: 13 round trips of loads instead of 25,
  // same 56 registers with batch 8). Measured at 4K with the row pass, r = 50 / 64 / 100 / 128:
  // 92.8 / 94.8 / 100 / 107 us with 16 rows, 94.9 / 95.4 / 102 / 110 with 8, 103 / 101 / 112 /
  // 116 with 32 (notes/box_blur.md).
  const int firstBatch = tuning.slideFirstBatch ? tuning.slideFirstBatch : r > 32 ? 16 : slideBatch;
  const SlideKernel slideKernel = columnSlideKernelFor(slideBatch, firstBatch);
  if (!slideKernel)
    throw std::invalid_argument("boxBlurGpu: slide first batch " + std::to_string(tuning.slideFirstBatch) +
                                " unsupported");
  // Default column pass (H200, with the v2 row pass, BM_BoxBlurGpuSlide against
  // BM_BoxBlurGpuVariant col 1; notes/box_blur.md): where whole-column blocks must be
  // narrower than 8 columns (tall frames such as 4K: 16-byte row segments per warp), the
  // sliding window up to r = 100 (4K r = 1 / 15 / 50 / 100: 77 / 87 / 96 / 103 us against
  // 107 / 109 / 111 / 109-110 for whole columns), whole columns above (r = 128: sliding 112;
  // its first window and far-apart rows grow with r). With 8-column blocks (1080p), the
  // sliding window up to r = 15 (23 / 27 us at r = 1 / 15 against 28 / 30; r = 50: 36 against 28).
  const bool useSlide =
      tuning.columnVersion == 3 || (tuning.columnVersion == 0 && r <= (narrowColumns ? 100 : 15));
  const int slide = useSlide ? slideRows(w, h, r, tuning.slideRows) : 0;
  const bool useBands = tuning.columnVersion == 2;
  const int band = useBands ? bandRows(h, r, tuning.bandRows, optin) : 0;
  const int cw = band || slide ? 0 : columnsPerBlock(h, tuning.verticalColumns, optin);
  const RowConfig row = rowConfig(w, tuning.rowVersion, tuning.rowThreads, tuning.rowUnrolled);
  const blur::Divider div = blur::makeDivider(uint32_t(2 * r + 1) * uint32_t(2 * r + 1));
  const DevicePitchedBuffer& sumsBuf = BoxBlurWorkspaceAccess::sums(ws);
  const ImageView<ushort4> sums{static_cast<ushort4*>(sumsBuf.get()), sumsBuf.pitch(), w, h};
  const DeviceImage& pp = BoxBlurWorkspaceAccess::pingPong(ws);
  const RgbaView pingPong{pp.view().data, pp.pitch(), w, h};
  const bool pdl = tuning.pdl && BoxBlurWorkspaceAccess::pdl(ws);

  bool first = true;  // the first kernel waits for the stream the ordinary way
  auto columnPass = [&](ConstRgbaView src) {
    if (slide) {
      launch(slideKernel,
             dim3((w + kSlideThreads - 1) / kSlideThreads, (h + slide - 1) / slide),
             dim3(kSlideThreads), 0, stream, pdl && !first, src, sums, r, params.border, slide);
    } else if (band) {
      launch(columnBandKernel, dim3((w + kBandColumns - 1) / kBandColumns, (h + band - 1) / band),
             dim3(kBandColumns, kBandGroups), bandSmemBytes(band, r), stream, pdl && !first, src, sums, r,
             params.border, band);
    } else {
      const int segments = kColumnThreads / cw;
      launch(columnSumsKernel, dim3((w + cw - 1) / cw), dim3(cw, segments), columnSmemBytes(h, cw), stream,
             pdl && !first, src, sums, r, params.border, (h + segments - 1) / segments);
    }
    first = false;
  };
  auto rowPass = [&](RgbaView dst) {
    launch(row.kernel, dim3(h), dim3(row.threads), rowSmemBytes(w), stream, pdl && !first,
           ImageView<const ushort4>(sums), dst, r, params.border, div);
    first = false;
  };
  ConstRgbaView src = in;
  for (int pass = 0; pass < params.passes; ++pass) {
    // The last pass writes `out`; earlier ones alternate so a pass never reads what it writes.
    const RgbaView dst = ((params.passes - 1 - pass) % 2 == 0) ? out : pingPong;
    if (tuning.stages & 1) columnPass(src);
    if (tuning.stages & 2) rowPass(dst);
    src = dst;
  }
}

}  // namespace vp
