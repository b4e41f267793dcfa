// Box blur's row passes (blur_passes.h): a block per image row scans the row's column
// sums (blur_column.cu) into a prefix in shared memory; every output pixel then reads two
// prefix values per channel and rounds with an exact multiply-shift division.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // scanUpStep
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/box_blur_math.h"

#include <algorithm>

namespace vp::blur {
namespace {

constexpr int kRowThreads = 256;  // chunked row pass: one image row per block
constexpr int kRowWarps = kRowThreads / 32;

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
    const uint4 lo = reinterpret_cast<const uint4*>(src + x)[0],
                hi = reinterpret_cast<const uint4*>(src + x)[1];
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
__device__ __forceinline__ void scanChunk(const ushort4 (&v)[kRowItems], uint32_t (&carry)[3],
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
    for (int d = 1; d < 32; d <<= 1) inc = scanUpStep(inc, d);
    const uint32_t before = carry[ch] + inc - total;
#pragma unroll
    for (int i = 0; i < kRowItems; ++i) run[ch][i] += before;
    carry[ch] += __shfl_sync(0xffffffffu, inc, 31);
  }
}

// P(x+1 .. x+kRowItems) = run + offset, and the alphas, into shared memory (x < x1 only).
__device__ __forceinline__ void storeChunk(const RowShared& sh, int x, int x1,
                                           const uint32_t (&run)[3][kRowItems], const uint32_t (&off)[3],
                                           uint32_t alphas) {
  if (x + kRowItems <= x1) {
    *reinterpret_cast<uint4*>(sh.pr + x + 1) =
        make_uint4(run[0][0] + off[0], run[0][1] + off[0], run[0][2] + off[0], run[0][3] + off[0]);
    *reinterpret_cast<uint4*>(sh.pg + x + 1) =
        make_uint4(run[1][0] + off[1], run[1][1] + off[1], run[1][2] + off[1], run[1][3] + off[1]);
    *reinterpret_cast<uint4*>(sh.pb + x + 1) =
        make_uint4(run[2][0] + off[2], run[2][1] + off[2], run[2][2] + off[2], run[2][3] + off[2]);
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

// One output pixel of the row pass from its window sum: the rounding division per channel
// (div from makeHighDivider).
__device__ __forceinline__ uchar4 rowPixel(const blur::Sum3& s, unsigned char alpha,
                                           const blur::Divider& div) {
  return make_uchar4(static_cast<unsigned char>(blur::roundDivHigh(s.r, div)),
                     static_cast<unsigned char>(blur::roundDivHigh(s.g, div)),
                     static_cast<unsigned char>(blur::roundDivHigh(s.b, div)), alpha);
}

// Output pixel x of the row pass, any x: two prefix reads per channel, or the border
// extension's sum where the window crosses a row end.
__device__ __forceinline__ uchar4 rowOutput(const RowShared& sh, int x, int w, int radius, BorderMode border,
                                            const blur::Divider& div) {
  const uint32_t *pr = sh.pr, *pg = sh.pg, *pb = sh.pb;
  auto at = [pr, pg, pb](int k) { return blur::Sum3{pr[k], pg[k], pb[k]}; };
  const int a = x - radius, b = x + radius;
  const blur::Sum3 s =
      (a >= 0 && b < w) ? at(b + 1) - at(a) : blur::windowSum<blur::Sum3>(at, a, b, w, border);
  return rowPixel(s, sh.alpha[x], div);
}

// Output phase of the row pass, any block size and width.
__device__ __forceinline__ void rowOutputs(const RowShared& sh, uchar4* dst, int w, int radius,
                                           BorderMode border, const blur::Divider& div) {
  for (int x = threadIdx.x; x < w; x += blockDim.x) dst[x] = rowOutput(sh, x, w, radius, border, div);
}

// Output phase of the register-scan row pass: pixels x = threadIdx.x + i T,
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

// Row pass by chunks (rows wider than 4096 pixels): each warp scans its range chunk by
// chunk into shared memory, then adds the offset of the warps before it (a
// read-modify-write pass). Any width.
__global__ void __launch_bounds__(kRowThreads)
    rowBlurKernel(ImageView<const ushort4> sums, RgbaView out, int radius, BorderMode border,
                  blur::Divider div) {
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
    scanChunk(v, carry, run);
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

// Row pass in registers (rows up to 4096 pixels): kWarps warps each own kChunks chunks
// (w <= kWarps x kChunks x 128),
// load them all up front, scan them in registers, and write the final prefix once the
// offsets of the earlier warps are known (no read-modify-write pass, one fewer phase).
// The 4K shape (one chunk, 1024 threads) keeps to 32 registers, so two blocks fit on an SM.
template <int kChunks, int kWarps>
__global__ void __launch_bounds__(32 * kWarps, kWarps == 32 && kChunks == 1 ? 2 : 1)
    rowBlurKernel2(ImageView<const ushort4> sums, RgbaView out, int radius, BorderMode border,
                   blur::Divider div) {
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
    scanChunk(v[k], carry, run[k]);
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
  for (int k = 0; k < kChunks; ++k)
    storeChunk(sh, x0 + k * kRowChunk + lane * kRowItems, x1, run[k], off, alphas[k]);
  __syncthreads();
  rowOutputsUnrolled<32 * kWarps, kChunks * kRowItems>(sh, out.row(y), w, radius, border, div);
}

using RowKernel = void (*)(ImageView<const ushort4>, RgbaView, int, BorderMode, blur::Divider);
// Every row kernel instance, for the workspace's shared-memory attribute.
const RowKernel kRowKernels[] = {rowBlurKernel, rowBlurKernel2<1, 8>, rowBlurKernel2<2, 8>,
                                 rowBlurKernel2<1, 32>};

}  // namespace

size_t prepareRowPasses(size_t sharedOptin) {
  size_t usable = sharedOptin;
  for (RowKernel k : kRowKernels) {
    cudaFuncAttributes attr{};
    VP_CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
    usable = std::min(usable, sharedOptin - attr.sharedSizeBytes);
  }
  for (RowKernel k : kRowKernels)
    VP_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(usable)));
  return usable;
}

void launchRowPass(BlurRowPass row, ImageView<const ushort4> sums, RgbaView out, int radius,
                   BorderMode border, bool pdl, cudaStream_t stream) {
  const int w = out.width, h = out.height;
  const blur::Divider div = blur::makeHighDivider(uint32_t(2 * radius + 1) * uint32_t(2 * radius + 1));
  RowKernel kernel = rowBlurKernel;
  int threads = kRowThreads;
  if (row == BlurRowPass::Warps8) {  // 1 or 2 chunks of 128 pixels per warp
    kernel = w <= 8 * kRowChunk ? rowBlurKernel2<1, 8> : rowBlurKernel2<2, 8>;
    threads = 8 * 32;
  } else if (row == BlurRowPass::Warps32) {
    kernel = rowBlurKernel2<1, 32>;
    threads = 32 * 32;
  }
  launchKernel(kernel, dim3(h), dim3(threads), rowSmemBytes(w), stream, pdl, sums, out, radius, border, div);
}

}  // namespace vp::blur
