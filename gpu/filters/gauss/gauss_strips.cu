// The Gaussian blur's strip path (gauss_strips.h): the kernels (one column a lane, two from
// kMinWideStripGaussRadius), the per-lane stages joined by warp shuffles, one instantiation
// per radius 1..kMaxStripGaussRadius, and the launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/gauss/gauss_strips.h"

#include <cstdlib>

namespace vp::gauss {
namespace {

// Experiment (VP_EXP_GAUSS_WIDE=8, VP_EXP_GAUSS_NARROW_OLD=1): the stages' arithmetic before
// mulAdd, as plain C++ the compiler reassociates (Old = true).
template <int R, bool Old>
__device__ inline RowSums expRowSums(const uint32_t (&p)[2 * R + 1], const GaussTaps& q) {
  if constexpr (!Old) {
    return stripRowSums<R>(p, q);
  } else {
    const auto green = [](uint32_t px) { return bytePerm(px, 0u, 0x4441u); };
    const uint32_t rb0 = p[R] & 0x00FF00FFu;
    uint32_t rb = q.q[0] * rb0 + kGaussRowRounding, b = q.q[0] * (rb0 >> 16) + kGaussRowRounding,
             g = q.q[0] * green(p[R]) + kGaussRowRounding;
#pragma unroll
    for (int i = 1; i <= R; ++i) {
      const uint32_t pairRb = (p[R - i] & 0x00FF00FFu) + (p[R + i] & 0x00FF00FFu);
      rb += q.q[i] * pairRb;
      b += q.q[i] * (pairRb >> 16);
      g += q.q[i] * (green(p[R - i]) + green(p[R + i]));
    }
    return {(rb - b * 65536u) >> kGaussRowShift | (g >> 1 & 0xFFFF0000u), b >> kGaussRowShift};
  }
}
template <int R, int N, bool Old>
__device__ inline uint32_t expOutput(const RowSums (&h)[N], int c, uint32_t centre, const GaussTaps& q) {
  if constexpr (!Old) {
    return stripOutput<R>(h, c, centre, q);
  } else {
    uint32_t rg = q.q[0] * h[c].rg + kGaussColumnRounding, g = q.q[0] * (h[c].rg >> 16) + kGaussColumnRounding,
             b = q.q[0] * h[c].b + kGaussColumnRounding;
#pragma unroll
    for (int j = 1; j <= R; ++j) {
      const uint32_t pairRg = h[c - j].rg + h[c + j].rg;
      rg += q.q[j] * pairRg;
      g += q.q[j] * (pairRg >> 16);
      b += q.q[j] * (h[c - j].b + h[c + j].b);
    }
    return bytePerm(bytePerm(rg - g * 65536u, g, 0x0073u), bytePerm(b, centre, 0x7300u), 0x7610u);
  }
}

template <int R, int Rows = kGaussStripRows, bool Old = false>
__global__ void __launch_bounds__(kStripThreads)
    stripKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ GaussTaps rowTaps,
                const __grid_constant__ GaussTaps columnTaps) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  const StripLane<R, Rows> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  constexpr int N = Rows + 2 * R;
  uint32_t px[N];
  stripSamples(in, border, l, px);
  const bool owner = l.ownsColumn(in.width);
  RowSums h[N];
  // Output row i needs H of sample rows i .. i + 2R: each is written as soon as its last
  // row sum is known, so few row sums are live at once.
#pragma unroll
  for (int s = 0; s < N; ++s) {
    uint32_t p[2 * R + 1];
    p[R] = px[s];
#pragma unroll
    for (int d = 1; d <= R; ++d) {
      p[R - d] = __shfl_up_sync(kFullWarp, px[s], d);
      p[R + d] = __shfl_down_sync(kFullWarp, px[s], d);
    }
    h[s] = expRowSums<R, Old>(p, rowTaps);
    const int i = s - 2 * R, y = l.y0 + i;
    if (i >= 0 && owner && y < in.height)
      tiles::storePixel(out, l.x, y, expOutput<R, N, Old>(h, i + R, px[i + R], columnTaps));
  }
}

// 3 blocks an SM caps it at 80 registers. A lane loads each sample row kWideAhead rows
// before its row sums need it, so the loads overlap the sums and no register spills: all 22
// rows loaded first spilled 56 bytes and measured 16.7 / 55.5 µs against 16.4 / 52.3
// (1080p / 4K, docs/design/gauss.md).
constexpr int kWideAhead = 4;

template <int R, int MinBlocks = 3, int Ahead = kWideAhead, bool Old = false>
__global__ void __launch_bounds__(kStripThreads, MinBlocks)
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
  for (int s = 0; s < Ahead; ++s) columns.row(s, p0[s], p1[s]);
  const bool owner = l.ownsColumns(in.width);
  RowSums h0[N], h1[N];
  // As the one-column kernel: output row i is written as soon as its last row sum is known.
#pragma unroll
  for (int s = 0; s < N; ++s) {
    if (s + Ahead < N) columns.row(s + Ahead, p0[s + Ahead], p1[s + Ahead]);
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
    h0[s] = expRowSums<R, Old>(a, rowTaps);
    h1[s] = expRowSums<R, Old>(b, rowTaps);
    const int i = s - 2 * R, y = l.y0 + i;
    if (i >= 0 && owner && y < in.height) {
      tiles::storePixel(out, l.x, y, expOutput<R, N, Old>(h0, i + R, p0[i + R], columnTaps));
      if (l.x + 1 < in.width)
        tiles::storePixel(out, l.x + 1, y, expOutput<R, N, Old>(h1, i + R, p1[i + R], columnTaps));
    }
  }
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
             const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  if constexpr (R >= kMinWideStripGaussRadius) {
    const dim3 grid(GaussWideLane::blocksAcross(in.width), stripBlocksDown(in.height, kGaussWideStripRows));
    static const int v = [] {
      const char* e = std::getenv("VP_EXP_GAUSS_WIDE");
      return e ? std::atoi(e) : 0;
    }();
    auto k = v == 1 ? wideStripKernel<R, 4, 4>
             : v == 2 ? wideStripKernel<R, 4, 3>
             : v == 3 ? wideStripKernel<R, 4, 2>
             : v == 4 ? wideStripKernel<R, 3, 6>
             : v == 8 ? wideStripKernel<R, 3, 4, true>
                      : wideStripKernel<R>;
    launchKernel(k, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, rowTaps, columnTaps);
  } else {
    static const int rows = [] {
      const char* e = std::getenv("VP_EXP_GAUSS_NARROW_ROWS");
      return e ? std::atoi(e) : kGaussStripRows;
    }();
    const dim3 grid(stripBlocksAcross<R>(in.width), stripBlocksDown(in.height, rows));
    static const bool old = [] {
      const char* e = std::getenv("VP_EXP_GAUSS_NARROW_OLD");
      return e && e[0] == '1';
    }();
    auto k = old          ? stripKernel<R, kGaussStripRows, true>
             : rows == 14 ? stripKernel<R, 14>
             : rows == 12 ? stripKernel<R, 12>
             : rows == 20 ? stripKernel<R, 20>
                          : stripKernel<R>;
    launchKernel(k, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, rowTaps, columnTaps);
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
