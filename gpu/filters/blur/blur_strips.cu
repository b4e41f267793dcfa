// Box blur's strip pass (blur_strips.h): the kernel, the per-lane stages joined by warp
// shuffles, one instantiation per radius 1..kMaxStripRadius, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/blur_strips.h"
#include "gpu/filters/common/radius_dispatch.h"

namespace vp::blur {
namespace {

// Sum of v over lanes lane - R .. lane + R (valid on the owning lanes R .. 31 - R).
template <int R>
__device__ __forceinline__ uint32_t laneWindow(uint32_t v) {
  uint32_t s = v;
#pragma unroll
  for (int d = 1; d <= R; ++d) s += __shfl_up_sync(kFullWarp, v, d) + __shfl_down_sync(kFullWarp, v, d);
  return s;
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

template <int R>
void launchStrips(ConstRgbaView in, RgbaView out, BorderMode border, bool pdl, cudaStream_t stream) {
  const dim3 grid(stripBlocksAcross<R>(in.width), stripBlocksDown(in.height));
  launchKernel(stripBlurKernel<R>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border,
               makeDivider(uint32_t(2 * R + 1) * uint32_t(2 * R + 1)));
}

}  // namespace

void launchStripPass(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl,
                     cudaStream_t stream) {
  withRadius<1, kMaxStripRadius>(radius, "box blur strip pass", [&](auto R) {
    launchStrips<decltype(R)::value>(in, out, border, pdl, stream);
  });
}

}  // namespace vp::blur
