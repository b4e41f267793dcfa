// The Gaussian blur's strip path (gauss_strips.h): the kernels (one column a lane, two from
// kMinWideStripGaussRadius), the per-lane stages joined by warp shuffles, one instantiation
// per radius 1..kMaxStripGaussRadius, and the launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/gauss/gauss_strips.h"

#include <cstdint>
#include <cstdlib>

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

// Row lanes (experiment): lane l of a warp owns image row y0 - R + l, lanes R .. 31 - R the
// output rows, and the warp walks 4 * Chunks columns from x0, four a step. A row's H comes
// from the lane's own samples (no shuffle, no halo columns recomputed), an output from the
// H of lanes l - R .. l + R (shuffled).
constexpr int kRowLaneWarps = 4;

template <int R, int Chunks>
__global__ void __launch_bounds__(kRowLaneWarps * 32)
    rowLaneKernel(ConstRgbaView in, RgbaView out, BorderMode border,
                  const __grid_constant__ GaussTaps rowTaps, const __grid_constant__ GaussTaps columnTaps) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  const int lane = int(threadIdx.x) % 32;
  const int x0 = (int(blockIdx.x) * kRowLaneWarps + int(threadIdx.x) / 32) * (4 * Chunks);
  if (x0 >= in.width) return;  // the whole warp
  const int y = int(blockIdx.y) * (32 - 2 * R) - R + lane;
  const int ye = extendIndex(y, in.height, border);  // < 0: a zero row
  const uint32_t* row = ye >= 0 ? reinterpret_cast<const uint32_t*>(in.row(ye)) : nullptr;
  const bool vec =
      ((reinterpret_cast<uintptr_t>(in.data) | in.pitch | reinterpret_cast<uintptr_t>(out.data) | out.pitch) &
       15u) == 0;
  const auto load = [&](int x, uint32_t(&w)[4]) {
    if (vec && x >= 0 && x + 3 < in.width) {  // warp-uniform
      if (row) {
        const uint4 v = __ldg(reinterpret_cast<const uint4*>(row + x));
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
      } else {
        w[0] = w[1] = w[2] = w[3] = 0;
      }
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int xe = extendIndex(x + i, in.width, border);
        w[i] = row && xe >= 0 ? __ldg(row + xe) : 0u;
      }
    }
  };
  uint32_t a[4], b[4], c[4], n[4];
  load(x0 - 4, a);
  load(x0, b);
  load(x0 + 4, c);
  const bool owner = lane >= R && lane < 32 - R && y < in.height;
  uint32_t* orow = owner ? reinterpret_cast<uint32_t*>(out.row(y)) : nullptr;
#pragma unroll
  for (int k = 0; k < Chunks; ++k) {
    const int x = x0 + 4 * k;
    if (x >= in.width) break;  // the whole warp
    if (k + 2 <= Chunks) load(x + 8, n);
    uint32_t w[12];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = a[i], w[4 + i] = b[i], w[8 + i] = c[i];
    uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      uint32_t p[2 * R + 1];
#pragma unroll
      for (int j = 0; j <= 2 * R; ++j) p[j] = w[4 + i - R + j];
      RowSums h[2 * R + 1];
      h[R] = stripRowSums<R>(p, rowTaps);
#pragma unroll
      for (int d = 1; d <= R; ++d) {
        h[R - d] = {__shfl_up_sync(kFullWarp, h[R].rg, d), __shfl_up_sync(kFullWarp, h[R].b, d)};
        h[R + d] = {__shfl_down_sync(kFullWarp, h[R].rg, d), __shfl_down_sync(kFullWarp, h[R].b, d)};
      }
      o[i] = stripOutput<R>(h, R, b[i], columnTaps);
    }
    if (orow) {
      if (vec && x + 3 < in.width) {
        *reinterpret_cast<uint4*>(orow + x) = make_uint4(o[0], o[1], o[2], o[3]);
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (x + i < in.width) orow[x + i] = o[i];
      }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = b[i], b[i] = c[i], c[i] = n[i];
  }
}

template <int R, int Chunks>
void launchRowLanes(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
                    const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  constexpr int cols = kRowLaneWarps * 4 * Chunks;
  const dim3 grid((in.width + cols - 1) / cols, (in.height + 31 - 2 * R) / (32 - 2 * R));
  launchKernel(rowLaneKernel<R, Chunks>, grid, dim3(kRowLaneWarps * 32), 0, stream, pdl, in, out, border,
               rowTaps, columnTaps);
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
             const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  if (const char* e = std::getenv("VP_EXP_GAUSS_LANES")) {
    const int cols = std::atoi(e);
    if (cols == 16) return launchRowLanes<R, 4>(in, out, border, rowTaps, columnTaps, pdl, stream);
    if (cols == 32) return launchRowLanes<R, 8>(in, out, border, rowTaps, columnTaps, pdl, stream);
    if (cols == 64) return launchRowLanes<R, 16>(in, out, border, rowTaps, columnTaps, pdl, stream);
  }
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
