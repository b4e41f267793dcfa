// Box blur on CUDA: two kernels per pass, O(1) work per pixel whatever the radius.
//
// Column pass (columnSumsKernel): a block owns `cw` whole columns (cw = 8 for heights up
// to ~1.3K, fewer for taller frames so the prefix fits shared memory), 1024 threads =
// cw columns x (1024/cw) row segments. Each thread sums its segment of R|G|B packed in
// one uint64 (box_blur_math.h), the segment totals are scanned per column, and the
// whole column prefix P(0..h) then sits in shared memory: a window sum is
// P(y+r+1) - P(y-r) (windowSum near the borders). Out: ushort4 (R, G, B sums, alpha)
// per pixel, 8 bytes, L2-resident at 1080p.
// Row pass (rowBlurKernel): a block per row, 256 threads; each lane scans 4 consecutive
// sums (two 16-byte loads), warps scan with shuffles, 8 warp ranges are joined in
// shared memory, then every output pixel reads two prefix values per channel and
// rounds with an exact multiply-shift division.
// Column pass first because its prefix (the one that needs a whole column in shared
// memory) then packs into 8 bytes per pixel; the row prefix of 24-bit sums needs 12.
// Kernels after the first are launched with programmatic dependent launch (sm_90): the
// next grid is scheduled while the previous drains and waits in griddepcontrol.wait.
#include "gpu/box_blur.h"
#include "gpu/box_blur_math.h"
#include "gpu/cuda_check.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace vp {

struct BoxBlurWorkspaceAccess {
  static const DevicePitchedBuffer& sums(const BoxBlurWorkspace& ws) { return ws.sums_; }
  static const DeviceImage& pingPong(const BoxBlurWorkspace& ws) { return ws.pingPong_; }
  static size_t sharedOptin(const BoxBlurWorkspace& ws) { return ws.sharedOptinBytes_; }
  static bool pdl(const BoxBlurWorkspace& ws) { return ws.pdl_; }
};

namespace {

constexpr int kColumnThreads = 1024;              // column-pass block: cw columns x segments
constexpr size_t kColumnSmemTarget = 100 << 10;   // bytes: two column blocks per SM (sm_90: 227 KB)
constexpr int kRowThreads = 256;                  // row-pass block: one image row
constexpr int kRowWarps = kRowThreads / 32;
constexpr int kRowItems = 4;                      // consecutive sums per lane in the row scan
constexpr int kRowChunk = 32 * kRowItems;         // sums per warp step

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

// A ushort4 from the two little-endian words it occupies in memory.
__device__ __forceinline__ ushort4 halves(uint32_t a, uint32_t b) {
  return make_ushort4(static_cast<unsigned short>(a), static_cast<unsigned short>(a >> 16),
                      static_cast<unsigned short>(b), static_cast<unsigned short>(b >> 16));
}

// Row pass: out(x, y) = round(sum over [x-r, x+r] of sums(., y) / (2r+1)^2), alpha kept.
__global__ void __launch_bounds__(kRowThreads)
    rowBlurKernel(ImageView<const ushort4> sums, RgbaView out, int radius, BorderMode border, blur::Divider div) {
  waitForPriorGrid();
  releaseNextGrid();
  extern __shared__ uint4 rowSmem[];
  __shared__ uint32_t warpTotal[3][kRowWarps];
  const int w = out.width, y = blockIdx.x;
  const int words = rowPrefixWords(w);
  uint32_t* const smem = reinterpret_cast<uint32_t*>(rowSmem);
  // P(k) at index k of each array; +3 puts P(4i+1 .. 4i+4) on a 16-byte boundary.
  uint32_t* const pr = smem + 3;
  uint32_t* const pg = smem + words + 3;
  uint32_t* const pb = smem + 2 * words + 3;
  unsigned char* const alpha = reinterpret_cast<unsigned char*>(smem + 3 * words);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int span = (w + kRowWarps * kRowChunk - 1) / (kRowWarps * kRowChunk) * kRowChunk;
  const int x0 = min(w, warp * span), x1 = min(w, x0 + span);
  const ushort4* src = sums.row(y);

  uint32_t carry[3] = {0, 0, 0};
  for (int base = x0; base < x1; base += kRowChunk) {
    const int x = base + lane * kRowItems;
    const bool full = x + kRowItems <= x1;
    ushort4 v[kRowItems];
    if (full) {
      const uint4 lo = reinterpret_cast<const uint4*>(src + x)[0], hi = reinterpret_cast<const uint4*>(src + x)[1];
      v[0] = halves(lo.x, lo.y);
      v[1] = halves(lo.z, lo.w);
      v[2] = halves(hi.x, hi.y);
      v[3] = halves(hi.z, hi.w);
    } else {
#pragma unroll
      for (int i = 0; i < kRowItems; ++i) v[i] = x + i < x1 ? src[x + i] : make_ushort4(0, 0, 0, 0);
    }
    uint32_t run[3][kRowItems];
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
    if (full) {
      *reinterpret_cast<uint4*>(pr + x + 1) = make_uint4(run[0][0], run[0][1], run[0][2], run[0][3]);
      *reinterpret_cast<uint4*>(pg + x + 1) = make_uint4(run[1][0], run[1][1], run[1][2], run[1][3]);
      *reinterpret_cast<uint4*>(pb + x + 1) = make_uint4(run[2][0], run[2][1], run[2][2], run[2][3]);
      *reinterpret_cast<uchar4*>(alpha + x) = make_uchar4(v[0].w, v[1].w, v[2].w, v[3].w);
    } else {
#pragma unroll
      for (int i = 0; i < kRowItems; ++i)
        if (x + i < x1) {
          pr[x + i + 1] = run[0][i];
          pg[x + i + 1] = run[1][i];
          pb[x + i + 1] = run[2][i];
          alpha[x + i] = static_cast<unsigned char>(v[i].w);
        }
    }
  }
  if (lane == 0) {
    warpTotal[0][warp] = carry[0];
    warpTotal[1][warp] = carry[1];
    warpTotal[2][warp] = carry[2];
  }
  if (threadIdx.x == 0) pr[0] = pg[0] = pb[0] = 0;
  __syncthreads();
  if (warp > 0) {
    uint32_t off[3] = {0, 0, 0};
    for (int i = 0; i < warp; ++i) {
      off[0] += warpTotal[0][i];
      off[1] += warpTotal[1][i];
      off[2] += warpTotal[2][i];
    }
    for (int x = x0 + lane; x < x1; x += 32) {
      pr[x + 1] += off[0];
      pg[x + 1] += off[1];
      pb[x + 1] += off[2];
    }
  }
  __syncthreads();

  auto at = [pr, pg, pb](int k) { return blur::Sum3{pr[k], pg[k], pb[k]}; };
  uchar4* dst = out.row(y);
  for (int x = threadIdx.x; x < w; x += kRowThreads) {
    const int a = x - radius, b = x + radius;
    const blur::Sum3 s = (a >= 0 && b < w) ? at(b + 1) - at(a) : blur::windowSum<blur::Sum3>(at, a, b, w, border);
    dst[x] = make_uchar4(static_cast<unsigned char>(blur::roundDiv(s.r, div)),
                         static_cast<unsigned char>(blur::roundDiv(s.g, div)),
                         static_cast<unsigned char>(blur::roundDiv(s.b, div)), alpha[x]);
  }
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

}  // namespace

BoxBlurWorkspace::BoxBlurWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxBlurDimension || maxHeight > kMaxBlurDimension)
    throw std::invalid_argument("BoxBlurWorkspace: size outside 1.." + std::to_string(kMaxBlurDimension));
  int device = 0, optin = 0, major = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
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
  VP_CUDA_CHECK(cudaFuncSetAttribute(rowBlurKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(rowMax)));
  sharedOptinBytes_ = columnMax;  // what columnsPerBlock may plan with
  sums_ = DevicePitchedBuffer(size_t(maxWidth) * sizeof(ushort4), size_t(maxHeight));
  pingPong_ = DeviceImage(maxWidth, maxHeight);
}

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
  const int cw = columnsPerBlock(h, tuning.verticalColumns, optin);
  const int segments = kColumnThreads / cw;
  const int segLen = (h + segments - 1) / segments;
  const dim3 columnGrid((w + cw - 1) / cw), columnBlock(cw, segments);
  const size_t columnSmem = columnSmemBytes(h, cw), rowSmem = rowSmemBytes(w);
  const blur::Divider div = blur::makeDivider(uint32_t(2 * r + 1) * uint32_t(2 * r + 1));
  const DevicePitchedBuffer& sumsBuf = BoxBlurWorkspaceAccess::sums(ws);
  const ImageView<ushort4> sums{static_cast<ushort4*>(sumsBuf.get()), sumsBuf.pitch(), w, h};
  const DeviceImage& pp = BoxBlurWorkspaceAccess::pingPong(ws);
  const RgbaView pingPong{pp.view().data, pp.pitch(), w, h};
  const bool pdl = tuning.pdl && BoxBlurWorkspaceAccess::pdl(ws);

  bool first = true;  // the first kernel waits for the stream the ordinary way
  ConstRgbaView src = in;
  for (int pass = 0; pass < params.passes; ++pass) {
    // The last pass writes `out`; earlier ones alternate so a pass never reads what it writes.
    const RgbaView dst = ((params.passes - 1 - pass) % 2 == 0) ? out : pingPong;
    if (tuning.stages & 1) {
      launch(columnSumsKernel, columnGrid, columnBlock, columnSmem, stream, pdl && !first, src, sums, r,
             params.border, segLen);
      first = false;
    }
    if (tuning.stages & 2) {
      launch(rowBlurKernel, dim3(h), dim3(kRowThreads), rowSmem, stream, pdl && !first,
             ImageView<const ushort4>(sums), dst, r, params.border, div);
      first = false;
    }
    src = dst;
  }
}

}  // namespace vp
