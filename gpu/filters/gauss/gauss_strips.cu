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

// Experiment (VP_EXP_GAUSS_WIDE 8, 9): the lane's loads without branches (the address
// clamped into the image, the word selected to 0 where the zero border applies), its stores
// predicated with both outputs computed on every lane; 9 also takes the R + 1 taps of each
// pass as a plain parameter (read in place from the constant bank) instead of the
// __grid_constant__ table.
template <int R>
struct FewTaps {
  uint32_t q[R + 1];
};

template <int R>
struct FlatColumns {
  const uint8_t* base;
  size_t pitch;
  uint32_t off0, off1;  // byte offsets of the two columns, 0 where the zero border applies
  bool ok0, ok1;
  int y0, height;
  BorderMode border;
  bool rowsInside;
  template <class Lane>
  __device__ FlatColumns(ConstRgbaView in, BorderMode mode, const Lane& l, int rows)
      : base(reinterpret_cast<const uint8_t*>(in.data)), pitch(in.pitch), y0(l.y0), height(in.height),
        border(mode) {
    const int x0 = extendIndex(l.x, in.width, mode), x1 = extendIndex(l.x + 1, in.width, mode);
    ok0 = x0 >= 0, ok1 = x1 >= 0;
    off0 = uint32_t(ok0 ? x0 : 0) * 4u, off1 = uint32_t(ok1 ? x1 : 0) * 4u;
    rowsInside = l.y0 - R >= 0 && l.y0 + rows + R <= in.height;
  }
  __device__ __forceinline__ void row(int i, uint32_t& a, uint32_t& b) const {
    const int y = rowsInside ? y0 - R + i : extendIndex(y0 - R + i, height, border);
    const bool yok = y >= 0;
    const uint8_t* r = base + size_t(yok ? y : 0) * pitch;
    const uint32_t va = __ldg(reinterpret_cast<const unsigned int*>(r + off0));
    const uint32_t vb = __ldg(reinterpret_cast<const unsigned int*>(r + off1));
    a = (ok0 && yok) ? va : 0u;
    b = (ok1 && yok) ? vb : 0u;
  }
};

template <int R, class Taps>
__global__ void __launch_bounds__(kStripThreads, 3)
    flatStripKernel(ConstRgbaView in, RgbaView out, BorderMode border, const Taps rowTaps, const Taps columnTaps) {
  waitForPriorGrid();
  releaseNextGrid();
  const GaussWideLane l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;
  constexpr int N = kGaussWideStripSamples<R>;
  const FlatColumns<R> columns(in, border, l, kGaussWideStripRows);
  uint32_t p0[N], p1[N];
#pragma unroll
  for (int s = 0; s < kWideAhead; ++s) columns.row(s, p0[s], p1[s]);
  const bool st0 = l.ownsColumns(in.width), st1 = st0 && l.x + 1 < in.width;
  uint32_t* const out0 = reinterpret_cast<uint32_t*>(out.data) + (st0 ? l.x : 0);
  RowSums h0[N], h1[N];
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
    if (i >= 0 && y < in.height) {  // warp-uniform
      const uint32_t o0 = stripOutput<R>(h0, i + R, p0[i + R], columnTaps);
      const uint32_t o1 = stripOutput<R>(h1, i + R, p1[i + R], columnTaps);
      uint32_t* const row = reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(out0) + size_t(y) * out.pitch);
      if (st0) row[0] = o0;
      if (st1) row[1] = o1;
    }
  }
}

// Experiment (VP_EXP_GAUSS_WIDE 10): 9's kernel with a rolled body, for the instruction
// fetch stalls of the 20-row unrolled one (~48 KB of code for 6 warps a scheduler at
// different places in it): 15 rows a warp, so the 21 sample rows are 3 passes of a 7-row body
// (2R + 1 = 7), the row sums and samples in rings of 7 whose indices are static in the body.
constexpr int kRolledRows = 15;

template <int R, class Taps>
__global__ void __launch_bounds__(kStripThreads, 3)
    rolledStripKernel(ConstRgbaView in, RgbaView out, BorderMode border, const Taps rowTaps, const Taps columnTaps) {
  static_assert(R == 3, "the ring is 2R + 1 = 7 rows and 21 sample rows are 3 rings");
  constexpr int K = 2 * R + 1, N = kRolledRows + 2 * R, Ahead = 4;
  static_assert(N % K == 0 && Ahead <= R + 1, "a row's load reuses the slot the output just read");
  waitForPriorGrid();
  releaseNextGrid();
  const PairLane<2, kRolledRows> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;
  const FlatColumns<R> columns(in, border, l, kRolledRows);
  uint32_t p0[K], p1[K];
#pragma unroll
  for (int s = 0; s < Ahead; ++s) columns.row(s, p0[s], p1[s]);
  const bool st0 = l.ownsColumns(in.width), st1 = st0 && l.x + 1 < in.width;
  uint32_t* const out0 = reinterpret_cast<uint32_t*>(out.data) + (st0 ? l.x : 0);
  RowSums h0[K], h1[K];
#pragma unroll 1
  for (int base = 0; base < N; base += K) {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const int s = base + j;  // sample row s in ring slot j
      uint32_t w[kWideRowWords] = {};
      w[4] = p0[j];
      w[5] = p1[j];
      w[2] = __shfl_up_sync(kFullWarp, p0[j], 1);
      w[3] = __shfl_up_sync(kFullWarp, p1[j], 1);
      w[6] = __shfl_down_sync(kFullWarp, p0[j], 1);
      w[7] = __shfl_down_sync(kFullWarp, p1[j], 1);
      w[1] = __shfl_up_sync(kFullWarp, p1[j], 2);
      w[8] = __shfl_down_sync(kFullWarp, p0[j], 2);
      uint32_t a[2 * R + 1], b[2 * R + 1];
      wideWindow<R>(w, 0, a);
      wideWindow<R>(w, 1, b);
      h0[j] = stripRowSums<R>(a, rowTaps);
      h1[j] = stripRowSums<R>(b, rowTaps);
      const int i = s - 2 * R, y = l.y0 + i;  // output row i: sample rows s - 2R .. s, slots j + 1 .. j
      const int c = (j + R + 1) % K;          // its centre's slot (static once unrolled)
      if (i >= 0 && y < in.height) {          // warp-uniform
        RowSums a0[K], a1[K];
#pragma unroll
        for (int k = 0; k < K; ++k) a0[k] = h0[(j + 1 + k) % K], a1[k] = h1[(j + 1 + k) % K];
        const uint32_t o0 = stripOutput<R>(a0, R, p0[c], columnTaps);
        const uint32_t o1 = stripOutput<R>(a1, R, p1[c], columnTaps);
        uint32_t* const row = reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(out0) + size_t(y) * out.pitch);
        if (st0) row[0] = o0;
        if (st1) row[1] = o1;
      }
      if (s + Ahead < N) columns.row(s + Ahead, p0[(j + Ahead) % K], p1[(j + Ahead) % K]);
    }
  }
}

template <int R>
FewTaps<R> fewTaps(const GaussTaps& t) {
  FewTaps<R> f;
  for (int i = 0; i <= R; ++i) f.q[i] = t.q[i];
  return f;
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
    if (v == 8)
      launchKernel(flatStripKernel<R, GaussTaps>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border,
                   rowTaps, columnTaps);
    else if (v == 10)
      launchKernel(rolledStripKernel<R, FewTaps<R>>,
                   dim3(GaussWideLane::blocksAcross(in.width), stripBlocksDown(in.height, kRolledRows)),
                   dim3(kStripThreads), 0, stream, pdl, in, out, border, fewTaps<R>(rowTaps), fewTaps<R>(columnTaps));
    else if (v == 9)
      launchKernel(flatStripKernel<R, FewTaps<R>>, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border,
                   fewTaps<R>(rowTaps), fewTaps<R>(columnTaps));
    else
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
