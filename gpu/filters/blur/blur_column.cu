// Box blur's column passes (blur_passes.h): the vertical window sums of every pixel,
// ushort4 (R, G, B sums, alpha) per pixel, 8 bytes, L2-resident at 1080p. The column pass
// runs first because its prefix then packs into 8 bytes per pixel; the row prefix of
// 24-bit sums would need 12.
#include "gpu/cuda/launch.cuh"
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/box_blur_math.h"

#include <algorithm>

namespace vp::blur {
namespace {

constexpr int kSlideThreads = 128;              // sliding column pass: 128 columns per block
constexpr int kSlideTargetThreads = 128 << 10;  //   threads per frame the segment length aims for

// Whole columns: sums(x, y) = packed R, G, B sums over rows [y-r, y+r] of column x, alpha.
__global__ void __launch_bounds__(kColumnThreads)
    columnSumsKernel(ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border, int segLen) {
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint64_t columnSmem[];
  const int cw = blockDim.x, segments = blockDim.y, c = threadIdx.x, s = threadIdx.y;
  const int h = in.height;
  uint64_t* prefix = columnSmem;                     // [(h+1) * cw]: P(k) of column c at k*cw+c
  uint64_t* segTotal = prefix + size_t(h + 1) * cw;  // [segments * cw]
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
    const uint64_t sum =
        (a >= 0 && b < h) ? at(b + 1) - at(a) : blur::windowSum<uint64_t>(at, a, b, h, border);
    sums.at(x, y) = blur::unpackSums(sum, alpha[y * cw + c]);
  }
}

// Sliding window: a thread owns one column and `segLen` output
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
  auto at = [column, pitch](int y) {
    return __ldg(reinterpret_cast<const uint32_t*>(column + size_t(y) * pitch));
  };
  auto sample = [&](int y) {  // through the border extension
    const int sy = extendIndex(y, h, border);
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

// Output rows per thread of the sliding column pass: enough segments for about
// kSlideTargetThreads threads, but at least (2r+1)/2 rows (16 at least), so the window sum
// that starts a segment at most doubles the loads.
int slideRows(int w, int h, int r) {
  const int64_t columns = int64_t(w + kSlideThreads - 1) / kSlideThreads * kSlideThreads;
  const int rows = std::max(int(columns * h / kSlideTargetThreads), std::max((2 * r + 1) / 2, 16));
  return std::min(rows, h);
}

}  // namespace

size_t prepareColumnPasses(size_t sharedOptin) {
  cudaFuncAttributes attr{};
  VP_CUDA_CHECK(cudaFuncGetAttributes(&attr, columnSumsKernel));
  const size_t dynamic = sharedOptin - attr.sharedSizeBytes;
  VP_CUDA_CHECK(
      cudaFuncSetAttribute(columnSumsKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic)));
  return dynamic;
}

void launchSlideColumns(bool wide, ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border,
                        bool pdl, cudaStream_t stream) {
  const int w = in.width, h = in.height, rows = slideRows(w, h, radius);
  const dim3 grid((w + kSlideThreads - 1) / kSlideThreads, (h + rows - 1) / rows);
  launchKernel(wide ? columnSlideKernel<8, 16> : columnSlideKernel<4, 4>, grid, dim3(kSlideThreads), 0, stream, pdl,
         in, sums, radius, border, rows);
}

void launchWholeColumns(ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border,
                        size_t optin, bool pdl, cudaStream_t stream) {
  const int w = in.width, h = in.height, cw = columnsPerBlock(h, optin), segments = kColumnThreads / cw;
  launchKernel(columnSumsKernel, dim3((w + cw - 1) / cw), dim3(cw, segments), columnSmemBytes(h, cw), stream, pdl,
         in, sums, radius, border, (h + segments - 1) / segments);
}

}  // namespace vp::blur
