// The median's sorted-columns method (median_sorted.h): the kernel, which joins the per-lane
// stages with warp shuffles, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/median/median_kernels.h"
#include "gpu/filters/median/median_sorted.h"

namespace vp::median {
namespace {

// The channels held as HalfLanes (bit c: channel c; median_select.h), the others as IntLanes:
// G alone measured fastest (docs/design/median.md), the exchanges then shared between the
// ALU and the FMA pipes.
constexpr unsigned kSortedHalfChannels = 0b010u;

// Lane l's S of one output row to its window's median, the neighbours' pieces by shuffles.
template <class L, int R>
__device__ __forceinline__ uint32_t rowMedian(const Words<kSortedSide<R>>& s) {
  constexpr int N = kSortedSide<R>;
  Words<N> next, c;
  VP_UNROLL
  for (int k = 0; k < N; ++k) next[k] = __shfl_down_sync(kFullWarp, s[k], 1);
  const Words<N> odd = oddColumns(s, next);
  const Words<2 * N> own = pairMerge<L>(s, odd);
  Words<2 * N> left, right;
  VP_UNROLL
  for (int k = 0; k < 2 * N; ++k) left[k] = __shfl_up_sync(kFullWarp, own[k], 1);
  if constexpr (R == 2) {
    return sortedMedian<L>(left, own, next);
  } else {
    VP_UNROLL
    for (int k = 0; k < 2 * N; ++k) right[k] = __shfl_down_sync(kFullWarp, own[k], 1);
    VP_UNROLL
    for (int k = 0; k < N; ++k) c[k] = __shfl_up_sync(kFullWarp, odd[k], 2);
    return sortedMedian<L>(c, left, own, right);
  }
}

template <int R>
__global__ void __launch_bounds__(kStripThreads)
    sortedMedianKernel(ConstRgbaView in, RgbaView out, BorderMode border) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  const SortedLane<R> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  PairSamples<R> s;
  laneSamples<R, kStripRows>(in, border, l, s.p0, s.p1);
  const bool owner = l.ownsColumns(in.width);
#pragma unroll
  for (int q = 0; q < kStripRows; q += 2) {
    uint32_t m[3][2];
    staticFor<3>([&](auto c) {
      constexpr int C = decltype(c)::value;
      using L = ChannelLanes<kSortedHalfChannels, C>;
      uint32_t w[2 * R + 2];
#pragma unroll
      for (int i = 0; i < 2 * R + 2; ++i) w[i] = L::pack(s.p0[q + i], s.p1[q + i], C);
      Words<kSortedSide<R>> s0, s1;
      sortedColumnPair<L, R>(w, s0, s1);
      m[C][0] = rowMedian<L, R>(s0);
      m[C][1] = rowMedian<L, R>(s1);
    });
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (owner && l.y0 + q + j < in.height)
        storePair(out, l.x, l.y0 + q + j, m[0][j], m[1][j], m[2][j], s.p0[q + j + R], s.p1[q + j + R]);
  }
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, cudaStream_t stream) {
  const dim3 grid(SortedLane<R>::blocksAcross(in.width), stripBlocksDown(in.height));
  launchKernel(sortedMedianKernel<R>, grid, dim3(kStripThreads), 0, stream, pdlAvailable(), in, out, border);
}

}  // namespace

void launchSorted(ConstRgbaView in, RgbaView out, int r, BorderMode border, cudaStream_t stream) {
  withRadius<kMinSortedMedianRadius, kMaxSortedMedianRadius>(
      r, "median sorted columns", [&](auto R) { launchR<decltype(R)::value>(in, out, border, stream); });
}

}  // namespace vp::median
