// The Gaussian blur's strip path (gauss_strips.h): the kernel, the per-lane stages joined by
// warp shuffles, one instantiation per radius 1..kMaxStripGaussRadius, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/gauss/gauss_strips.h"

namespace vp::gauss {
namespace {

template <int R>
__global__ void __launch_bounds__(kStripThreads)
    stripKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ GaussTaps rowTaps,
                const __grid_constant__ GaussTaps columnTaps) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  const GaussStripLane<R> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  uint32_t px[kGaussStripSamples<R>];
  stripSamples(in, border, l, px);
  const bool owner = l.ownsColumn(in.width);
  RowSums h[kGaussStripSamples<R>];
  // Output row i needs H of sample rows i .. i + 2R: each is written as soon as its last
  // row sum is known, so few row sums are live at once.
#pragma unroll
  for (int s = 0; s < kGaussStripSamples<R>; ++s) {
    uint32_t p[2 * R + 1];
    p[R] = px[s];
#pragma unroll
    for (int d = 1; d <= R; ++d) {
      p[R - d] = __shfl_up_sync(kFullWarp, px[s], d);
      p[R + d] = __shfl_down_sync(kFullWarp, px[s], d);
    }
    h[s] = stripRowSums<R>(p, rowTaps);
    const int i = s - 2 * R, y = l.y0 + i;
    if (i >= 0 && owner && y < in.height)
      tiles::storePixel(out, l.x, y, stripOutput<R>(h, i + R, px[i + R], columnTaps));
  }
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
             const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  const dim3 grid(stripBlocksAcross<R>(in.width), stripBlocksDown(in.height, kGaussStripRows));
  launchKernel(stripKernel<R>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, rowTaps,
               columnTaps);
}

}  // namespace

void launchStrips(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
                  const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  withRadius<1, kMaxStripGaussRadius>(rowTaps.radius, "gauss strip path", [&](auto R) {
    launchR<decltype(R)::value>(in, out, border, rowTaps, columnTaps, pdl, stream);
  });
}

}  // namespace vp::gauss
