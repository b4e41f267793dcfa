// Box blur's wide strip pass (blur_wide_strips.h): the kernel, the per-lane stages joined by
// warp shuffles, one instantiation per lane width K and r mod K, and its launcher.
#include "gpu/filters/blur/blur_wide_strips.h"

#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/blur/blur_passes.h"

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace vp::blur {
namespace {

// The lane's K pixels of row y (through the border): one or two 16-byte loads where its
// columns are an aligned run inside the image.
template <int K>
__device__ __forceinline__ void loadRow(ConstRgbaView in, int y, const int (&xs)[K], bool vec, int x,
                                        uint32_t (&px)[K]) {
  if (vec && y >= 0) {
    const uint32_t* row = reinterpret_cast<const uint32_t*>(in.row(y)) + x;
#pragma unroll
    for (int c = 0; c < K; c += 4) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(row + c));
      px[c] = v.x, px[c + 1] = v.y, px[c + 2] = v.z, px[c + 3] = v.w;
    }
  } else {
    wideRowPixels<K>(in, y, xs, px);
  }
}

template <int K, int M, int Rows>
__global__ void __launch_bounds__(kWideThreads, K == 8 ? 4 : 8)
    wideStripBlurKernel(ConstRgbaView in, RgbaView out, BorderMode border, int q, Divider dv, bool vecIn,
                        bool vecOut) {
  waitForPriorGrid();  // no-op unless launched with programmatic dependent launch
  releaseNextGrid();
  const int r = q * K + M, w = in.width, h = in.height;
  const WideLane<K, Rows> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), r);
  if (!l.warpHasWork(w)) return;  // the whole warp: its shuffles need no absent lane
  const int x = l.x, y0 = l.y0;
  int xs[K];
#pragma unroll
  for (int c = 0; c < K; ++c) xs[c] = extendIndex(x + c, w, border);
  const bool vec = vecIn && x >= 0 && x + K <= w;

  WideColumns<K> sums;
  sums.clear();
#pragma unroll 4
  for (int i = -r; i <= r; ++i) {
    uint32_t px[K];
    loadRow<K>(in, wideRow(y0 + i, h, border), xs, vec, x, px);
    sums.add(px);
  }
  const bool owner = l.owns();
  const int rows = min(Rows, h - y0);
  uint32_t centre[K];
  loadRow<K>(in, y0, xs, vec, x, centre);
  for (int i = 0; i < rows; ++i) {
    const int y = y0 + i;
    const bool more = i + 1 < rows;
    uint32_t enter[K], leave[K], nextCentre[K];
    if (more) {  // issued before this row's horizontal work, used after it
      loadRow<K>(in, wideRow(y + r + 1, h, border), xs, vec, x, enter);
      loadRow<K>(in, wideRow(y - r, h, border), xs, vec, x, leave);
      loadRow<K>(in, y + 1, xs, vec, x, nextCentre);
    }
    WidePrefix<K> p(sums);
    uint32_t er = p.tr, eg = p.tg, eb = p.tb;  // inclusive scan of the lane totals
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const uint32_t nr = __shfl_up_sync(kFullWarp, er, d), ng = __shfl_up_sync(kFullWarp, eg, d),
                     nb = __shfl_up_sync(kFullWarp, eb, d);
      if (l.lane >= d) er += nr, eg += ng, eb += nb;
    }
    p.offset(er - p.tr, eg - p.tg, eb - p.tb);
    uint32_t result[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const WideSources s = wideSources(j, q, M, K);
      const unsigned dr = unsigned(s.right), dl = unsigned(s.left);
      const uint32_t sr = __shfl_down_sync(kFullWarp, p.r[s.rightIndex], dr) -
                          __shfl_up_sync(kFullWarp, p.r[s.leftIndex], dl);
      const uint32_t sg = __shfl_down_sync(kFullWarp, p.g[s.rightIndex], dr) -
                          __shfl_up_sync(kFullWarp, p.g[s.leftIndex], dl);
      const uint32_t sb = __shfl_down_sync(kFullWarp, p.b[s.rightIndex], dr) -
                          __shfl_up_sync(kFullWarp, p.b[s.leftIndex], dl);
      result[j] = wideOutput(sr, sg, sb, centre[j], dv);
    }
    if (owner) {
      uint32_t* dst = reinterpret_cast<uint32_t*>(out.row(y));
      if (vecOut && x + K <= w) {
#pragma unroll
        for (int c = 0; c < K; c += 4)
          *reinterpret_cast<uint4*>(dst + x + c) = make_uint4(result[c], result[c + 1], result[c + 2], result[c + 3]);
      } else {
#pragma unroll
        for (int c = 0; c < K; ++c)
          if (x + c < w) dst[x + c] = result[c];
      }
    }
    if (more) {
      sums.slide(enter, leave);
#pragma unroll
      for (int c = 0; c < K; ++c) centre[c] = nextCentre[c];
    }
  }
}

template <int K, int M, int Rows>
void launchWideRows(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl, cudaStream_t stream) {
  using Lane = WideLane<K, Rows>;
  const dim3 grid(unsigned(Lane::blocksAcross(in.width, radius)), unsigned(Lane::blocksDown(in.height)));
  const bool vecIn = reinterpret_cast<uintptr_t>(in.data) % 16 == 0 && in.pitch % 16 == 0;
  const bool vecOut = reinterpret_cast<uintptr_t>(out.data) % 16 == 0 && out.pitch % 16 == 0;
  const Divider dv = makeDivider(uint32_t(2 * radius + 1) * uint32_t(2 * radius + 1));
  launchKernel(wideStripBlurKernel<K, M, Rows>, grid, dim3(kWideThreads), 0, stream, pdl, in, out, border, radius / K,
               dv, vecIn, vecOut);
}

template <int K, int M>
void launchWide(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl, cudaStream_t stream) {
  static const int rows = std::getenv("VP_EXP_WIDE_ROWS") ? std::atoi(std::getenv("VP_EXP_WIDE_ROWS")) : 16;  // EXPERIMENT
  if (rows == 8)
    launchWideRows<K, M, 8>(in, out, radius, border, pdl, stream);
  else if (rows == 32)
    launchWideRows<K, M, 32>(in, out, radius, border, pdl, stream);
  else
    launchWideRows<K, M, 16>(in, out, radius, border, pdl, stream);
}

template <int K, int... M>
void launchWideM(std::integer_sequence<int, M...>, ConstRgbaView in, RgbaView out, int radius, BorderMode border,
                 bool pdl, cudaStream_t stream) {
  ((radius % K == M ? launchWide<K, M>(in, out, radius, border, pdl, stream) : void()), ...);
}

}  // namespace

int wideStripColumnsPerLane(int radius) {
  if (const char* k = std::getenv("VP_EXP_WIDE_K")) return std::atoi(k) == 8 ? 8 : 4;  // EXPERIMENT
  return radius <= 15 ? 4 : 8;
}

void launchWideStripPass(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl,
                         cudaStream_t stream) {
  if (radius < 1 || radius > kMaxWideStripRadius)
    throw std::invalid_argument("box blur wide strip pass: radius " + std::to_string(radius) + " outside 1.." +
                                std::to_string(kMaxWideStripRadius));
  if (wideStripColumnsPerLane(radius) == 4)
    launchWideM<4>(std::make_integer_sequence<int, 4>{}, in, out, radius, border, pdl, stream);
  else
    launchWideM<8>(std::make_integer_sequence<int, 8>{}, in, out, radius, border, pdl, stream);
}

}  // namespace vp::blur
