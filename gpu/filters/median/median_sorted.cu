// The median's sorted-columns method (median_sorted.h): the kernel, which joins the per-lane
// stages with warp shuffles, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/median/median_kernels.h"
#include "gpu/filters/median/median_sorted.h"

namespace vp::median {
namespace {

// The channels held as HalfLanes (bit c: channel c; median_select.h), the others as IntLanes:
// G alone measured fastest (docs/design/median.md), the exchanges then shared between the
// ALU and the FMA pipes.
constexpr unsigned kSortedHalfChannels = 0b010u;

template <class L>
__device__ __forceinline__ uint32_t rowMedian(const Words<kSortedSide>& s) {
  Words<kSortedSide> e;
  VP_UNROLL
  for (int k = 0; k < kSortedSide; ++k) e[k] = __shfl_down_sync(kFullWarp, s[k], 1);
  const Words<2 * kSortedSide> own = pairMerge<L>(s, oddColumns(s, e));
  Words<2 * kSortedSide> left;
  VP_UNROLL
  for (int k = 0; k < 2 * kSortedSide; ++k) left[k] = __shfl_up_sync(kFullWarp, own[k], 1);
  return sortedMedian<L>(left, own, e);
}

__global__ void __launch_bounds__(kStripThreads)
    sortedMedianKernel(ConstRgbaView in, RgbaView out, BorderMode border) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  constexpr int R = kSortedRadius;
  const PairStripLane l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  PairSamples<R> s;
  pairSamples<R>(in, border, l, s);
  const bool owner = l.ownsColumns(in.width);
#pragma unroll
  for (int q = 0; q < kStripRows; q += 2) {
    uint32_t m[3][2];
    staticFor<3>([&](auto c) {
      constexpr int C = decltype(c)::value;
      using L = ChannelLanes<kSortedHalfChannels, C>;
      uint32_t w[kSortedSide + 1];
#pragma unroll
      for (int i = 0; i <= kSortedSide; ++i) w[i] = L::pack(s.p0[q + i], s.p1[q + i], C);
      Words<kSortedSide> s0, s1;
      sortedColumnPair<L>(w, s0, s1);
      m[C][0] = rowMedian<L>(s0);
      m[C][1] = rowMedian<L>(s1);
    });
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (owner && l.y0 + q + j < in.height)
        storePair(out, l.x, l.y0 + q + j, m[0][j], m[1][j], m[2][j], s.p0[q + j + R], s.p1[q + j + R]);
  }
}

}  // namespace

void launchSorted(ConstRgbaView in, RgbaView out, BorderMode border, cudaStream_t stream) {
  const dim3 grid(PairStripLane::blocksAcross(in.width), stripBlocksDown(in.height));
  launchKernel(sortedMedianKernel, grid, dim3(kStripThreads), 0, stream, pdlAvailable(), in, out, border);
}

}  // namespace vp::median
