// Box blur's strip pass (blur_strips.h): the kernel, the per-lane stages joined by warp
// shuffles, one instantiation per radius 1..kMaxStripRadius, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/blur_strips.h"
#include "gpu/filters/common/radius_dispatch.h"

namespace vp::blur {
namespace {

// x of the lane `offset` to the right (left when negative); a constant offset after unrolling.
__device__ __forceinline__ uint32_t laneAt(uint32_t x, int offset) {
  if (offset > 0) return __shfl_down_sync(kFullWarp, x, unsigned(offset));
  if (offset < 0) return __shfl_up_sync(kFullWarp, x, unsigned(-offset));
  return x;
}

// Sum of v over lanes lane - R .. lane + R (valid on the owning lanes R .. 31 - R). From
// R = 3, by doubling: run[k] = the sum of the 2^k lanes from this one, then the window's
// 2R + 1 lanes as the runs of its binary digits, each read from the lane where it starts
// (r = 5: 6 shuffles and 5 adds against 10 and 10). Every run read lies inside the window,
// so the halo lanes' partial runs never reach an owner. Below R = 3 the direct sum, whose
// shuffles are independent, measured faster (docs/design/box_blur.md). 32-bit adds of two
// 16-bit lanes: exact, a window's lane sums being < 2^16.
template <int R>
__device__ __forceinline__ uint32_t laneWindow(uint32_t v) {
  constexpr int kWidth = 2 * R + 1;
  static_assert(kWidth < 16, "runs of up to 8 lanes");
  if constexpr (R < 3) {
    uint32_t s = v;
#pragma unroll
    for (int d = 1; d <= R; ++d) s += __shfl_up_sync(kFullWarp, v, d) + __shfl_down_sync(kFullWarp, v, d);
    return s;
  } else {
    constexpr int kTop = kWidth >= 8 ? 3 : 2;  // the highest binary digit of 7..15
    uint32_t run[kTop + 1];
    run[0] = v;
#pragma unroll
    for (int k = 1; k <= kTop; ++k)
      run[k] = run[k - 1] + __shfl_down_sync(kFullWarp, run[k - 1], 1u << (k - 1));
    uint32_t sum = laneAt(run[kTop], -R);
    int start = -R + (1 << kTop);
#pragma unroll
    for (int k = kTop - 1; k >= 0; --k)
      if (kWidth >> k & 1) {
        sum += laneAt(run[k], start);
        start += 1 << k;
      }
    return sum;
  }
}

template <int R>
__global__ void __launch_bounds__(kStripThreads)
    stripBlurKernel(ConstRgbaView in, RgbaView out, BorderMode border, Divider dv) {
  waitForPriorGrid();  // no-op unless launched with programmatic dependent launch
  releaseNextGrid();
  const StripLane<R> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  StripColumn c;
  stripColumn<R>(in, border, l, c);
  const bool owner = l.ownsColumn(in.width);
#pragma unroll
  for (int i = 0; i < kStripRows; ++i) {
    const uint32_t rb = laneWindow<R>(c.rb[i]), ga = laneWindow<R>(c.ga[i]);
    const int y = l.y0 + i;
    if (owner && y < in.height) tiles::storePixel(out, l.x, y, stripOutput(rb, ga, c.pixel[i], dv));
  }
}

// The window sums of columns x, x + 1 (s0, s1) from the lanes' column words v0 (column x)
// and v1 (x + 1), valid on the owning lanes. With P = v0 + v1 a lane pair's sum, lane l + k
// holding columns x + 2k, x + 2k + 1: R = 2m + 1: s0 = v1(l - m - 1) + S, s1 = S + v0(l + m + 1),
// S the sum of P over lanes l - m .. l + m; R = 2m: s0 = P(l - m) + S + v0(l + m),
// s1 = v1(l - m) + S + P(l + m), S over lanes l - m + 1 .. l + m - 1.
template <int R>
__device__ __forceinline__ void pairWindow(uint32_t v0, uint32_t v1, uint32_t& s0, uint32_t& s1) {
  constexpr int m = R / 2;
  const uint32_t pair = v0 + v1;
  if constexpr (R % 2 == 1) {
    const uint32_t sum = laneWindow<m>(pair);
    s0 = laneAt(v1, -m - 1) + sum;
    s1 = sum + laneAt(v0, m + 1);
  } else {
    const uint32_t sum = laneWindow<m - 1>(pair);
    s0 = laneAt(pair, -m) + sum + laneAt(v0, m);
    s1 = laneAt(v1, -m) + sum + laneAt(pair, m);
  }
}

template <int R>
__global__ void __launch_bounds__(kPairStripThreads)
    pairStripBlurKernel(ConstRgbaView in, RgbaView out, BorderMode border, Divider dv) {
  waitForPriorGrid();  // no-op unless launched with programmatic dependent launch
  releaseNextGrid();
  const BlurPairLane<R> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  StripColumn c0, c1;
  pairColumns<R>(in, border, l, c0, c1);
  const bool owner = l.ownsColumns(in.width);
#pragma unroll
  for (int i = 0; i < kStripRows; ++i) {
    uint32_t rb0, rb1, ga0, ga1;
    pairWindow<R>(c0.rb[i], c1.rb[i], rb0, rb1);
    pairWindow<R>(c0.ga[i], c1.ga[i], ga0, ga1);
    const int y = l.y0 + i;
    if (owner && y < in.height) {
      tiles::storePixel(out, l.x, y, stripOutput(rb0, ga0, c0.pixel[i], dv));
      if (l.x + 1 < in.width) tiles::storePixel(out, l.x + 1, y, stripOutput(rb1, ga1, c1.pixel[i], dv));
    }
  }
}

template <int R>
void launchStrips(ConstRgbaView in, RgbaView out, BorderMode border, bool pdl, cudaStream_t stream) {
  const Divider dv = makeDivider(uint32_t(2 * R + 1) * uint32_t(2 * R + 1));
  if constexpr (R >= kMinPairStripRadius) {
    const dim3 grid(BlurPairLane<R>::blocksAcross(in.width), stripBlocksDown(in.height));
    launchKernel(pairStripBlurKernel<R>, grid, dim3(kPairStripThreads), 0, stream, pdl, in, out, border, dv);
  } else {
    const dim3 grid(stripBlocksAcross<R>(in.width), stripBlocksDown(in.height));
    launchKernel(stripBlurKernel<R>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, dv);
  }
}

}  // namespace

void launchStripPass(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl,
                     cudaStream_t stream) {
  withRadius<1, kMaxStripRadius>(radius, "box blur strip pass", [&](auto R) {
    launchStrips<decltype(R)::value>(in, out, border, pdl, stream);
  });
}

}  // namespace vp::blur
