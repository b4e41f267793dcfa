// The median's strip method (median_strips.h): the kernel, the per-lane stages joined by
// warp shuffles, one instantiation per radius 1..kMaxStripMedianRadius, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/median/median_kernels.h"
#include "gpu/filters/median/median_strips.h"

namespace vp::median {
namespace {

template <int R>
__global__ void __launch_bounds__(kStripThreads)
    stripMedianKernel(ConstRgbaView in, RgbaView out, BorderMode border) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  constexpr int N = kMedianStripSamples<R>;
  const PairStripLane l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  PairSamples<R> s;
  pairSamples<R>(in, border, l, s);
  uint32_t m[3][kStripRows];
  // One channel at a time keeps the live words to one channel's.
#pragma unroll 1
  for (int c = 0; c < 3; ++c) {
    uint32_t left[N], own[N], right[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      own[i] = lanePair(s.p0[i], s.p1[i], c);
      left[i] = __shfl_up_sync(kFullWarp, own[i], 1);
      right[i] = __shfl_down_sync(kFullWarp, own[i], 1);
    }
#pragma unroll
    for (int q = 0; q < kStripRows; q += 2) {
      uint32_t m0, m1;
      pairQuad<R>(left, own, right, q, m0, m1);
      // c is the rolled loop's: select, so that m stays in registers.
#pragma unroll
      for (int k = 0; k < 3; ++k)
        if (k == c) m[k][q] = m0, m[k][q + 1] = m1;
    }
  }
  if (!l.ownsColumns(in.width)) return;
#pragma unroll
  for (int i = 0; i < kStripRows; ++i)
    if (l.y0 + i < in.height)
      storePair(out, l.x, l.y0 + i, m[0][i], m[1][i], m[2][i], s.p0[i + R], s.p1[i + R]);
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, cudaStream_t stream) {
  const dim3 grid(PairStripLane::blocksAcross(in.width), stripBlocksDown(in.height));
  launchKernel(stripMedianKernel<R>, grid, dim3(kStripThreads), 0, stream, pdlAvailable(), in, out, border);
}

}  // namespace

void launchStrips(ConstRgbaView in, RgbaView out, int r, BorderMode border, cudaStream_t stream) {
  withRadius<1, kMaxStripMedianRadius>(r, "median strips",
                                       [&](auto R) { launchR<decltype(R)::value>(in, out, border, stream); });
}

}  // namespace vp::median
