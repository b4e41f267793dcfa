// The Gaussian blur's strip path (gauss_strips.h): the kernels (one column a lane, two from
// kMinWideStripGaussRadius), the per-lane stages joined by warp shuffles, one instantiation
// per radius 1..kMaxStripGaussRadius, and the launcher.
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

// 3 blocks an SM caps it at 80 registers. A lane loads each sample row kWideAhead rows
// before its row sums need it, so the loads overlap the sums and no register spills: all 22
// rows loaded first spilled 56 bytes and measured 16.7 / 55.5 µs against 16.4 / 52.3
// (1080p / 4K, docs/design/gauss.md).
constexpr int kWideAhead = 4;

template <int R>
__global__ void __launch_bounds__(kStripThreads, 3)
    wideStripKernel(ConstRgbaView in, RgbaView out, BorderMode border,
                    const __grid_constant__ GaussTaps rowTaps, const __grid_constant__ GaussTaps columnTaps) {
  static_assert(R <= 3, "R = 4 would need w[0] and w[9], which are not gathered");
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  const GaussWideLane l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  constexpr int N = kGaussWideStripSamples<R>;
  const LaneColumns<R, kGaussWideStripRows, 2> columns(in, border, l);
  uint32_t p0[N], p1[N];
#pragma unroll
  for (int s = 0; s < kWideAhead; ++s) columns.row(s, p0[s], p1[s]);
  const bool owner = l.ownsColumns(in.width);
  RowSums h0[N], h1[N];
  // As the one-column kernel: output row i is written as soon as its last row sum is known.
#pragma unroll
  for (int s = 0; s < N; ++s) {
    if (s + kWideAhead < N) columns.row(s + kWideAhead, p0[s + kWideAhead], p1[s + kWideAhead]);
    uint32_t w[kWideRowWords] = {};
    w[4] = p0[s];
    w[5] = p1[s];
    w[2] = __shfl_up_sync(kFullWarp, p0[s], 1);
    w[3] = __shfl_up_sync(kFullWarp, p1[s], 1);
    w[6] = __shfl_down_sync(kFullWarp, p0[s], 1);
    w[7] = __shfl_down_sync(kFullWarp, p1[s], 1);
    w[1] = __shfl_up_sync(kFullWarp, p1[s], 2);
    w[8] = __shfl_down_sync(kFullWarp, p0[s], 2);
    uint32_t a[2 * R + 1], b[2 * R + 1];
    wideWindow<R>(w, 0, a);
    wideWindow<R>(w, 1, b);
    h0[s] = stripRowSums<R>(a, rowTaps);
    h1[s] = stripRowSums<R>(b, rowTaps);
    const int i = s - 2 * R, y = l.y0 + i;
    if (i >= 0 && owner && y < in.height) {
      tiles::storePixel(out, l.x, y, stripOutput<R>(h0, i + R, p0[i + R], columnTaps));
      if (l.x + 1 < in.width)
        tiles::storePixel(out, l.x + 1, y, stripOutput<R>(h1, i + R, p1[i + R], columnTaps));
    }
  }
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
             const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  if constexpr (R >= kMinWideStripGaussRadius) {
    const dim3 grid(GaussWideLane::blocksAcross(in.width), stripBlocksDown(in.height, kGaussWideStripRows));
    launchKernel(wideStripKernel<R>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, rowTaps,
                 columnTaps);
  } else {
    const dim3 grid(stripBlocksAcross<R>(in.width), stripBlocksDown(in.height, kGaussStripRows));
    launchKernel(stripKernel<R>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, rowTaps,
                 columnTaps);
  }
}

}  // namespace

void launchStrips(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
                  const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  withRadius<1, kMaxStripGaussRadius>(rowTaps.radius, "gauss strip path", [&](auto R) {
    launchR<decltype(R)::value>(in, out, border, rowTaps, columnTaps, pdl, stream);
  });
}

}  // namespace vp::gauss
