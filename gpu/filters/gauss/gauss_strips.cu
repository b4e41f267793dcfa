// The Gaussian blur's strip path (gauss_strips.h): the kernels (one column a lane, two from
// kMinWideStripGaussRadius), the per-lane stages joined by warp shuffles, one instantiation
// per radius 1..kMaxStripGaussRadius, and the launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/gauss/gauss_strips.h"

#include <cstdlib>
#include <type_traits>

#include "gpu/cuda/cuda_check.h"

namespace vp::gauss {
namespace {

template <int R, int Rows = kGaussStripRows>
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

// Experiment: a lane's two columns by one 8-byte load and one 8-byte store where they are
// adjacent and 8-byte aligned.
struct PairRows {
  const uint8_t* base;
  size_t pitch;
  int x;
  bool vec;
  __device__ void load(int y, uint32_t& a, uint32_t& b) const {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(base + size_t(y) * pitch + size_t(x) * 4));
    a = v.x, b = v.y;
  }
};

template <int R, int MinBlocks = 3, int Ahead = kWideAhead, bool Vec = false>
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
  const bool vecOk = Vec && columns.xs[0] >= 0 && columns.xs[1] == columns.xs[0] + 1 &&
                     (reinterpret_cast<uintptr_t>(in.data) + size_t(columns.xs[0]) * 4) % 8 == 0 &&
                     in.pitch % 8 == 0;
  const PairRows pr{reinterpret_cast<const uint8_t*>(in.data), in.pitch, columns.xs[0], vecOk};
  const auto loadRow = [&](int i, uint32_t& a, uint32_t& b) {
    if (Vec && pr.vec) {
      const int y = columns.rowsInside ? l.y0 - R + i : extendIndex(l.y0 - R + i, in.height, border);
      if (y >= 0)
        pr.load(y, a, b);
      else
        a = b = 0u;
    } else {
      columns.row(i, a, b);
    }
  };
  const bool vecOut = Vec && (reinterpret_cast<uintptr_t>(out.data) + size_t(l.x) * 4) % 8 == 0 &&
                      out.pitch % 8 == 0 && l.x + 1 < in.width;
  uint32_t p0[N], p1[N];
#pragma unroll
  for (int s = 0; s < Ahead; ++s) loadRow(s, p0[s], p1[s]);
  const bool owner = l.ownsColumns(in.width);
  RowSums h0[N], h1[N];
  // As the one-column kernel: output row i is written as soon as its last row sum is known.
#pragma unroll
  for (int s = 0; s < N; ++s) {
    if (s + Ahead < N) loadRow(s + Ahead, p0[s + Ahead], p1[s + Ahead]);
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
    if (Vec && vecOut && i >= 0 && owner && y < in.height) {
      *reinterpret_cast<uint2*>(out.row(y) + l.x) = make_uint2(stripOutput<R>(h0, i + R, p0[i + R], columnTaps),
                                                               stripOutput<R>(h1, i + R, p1[i + R], columnTaps));
    } else if (i >= 0 && owner && y < in.height) {
      tiles::storePixel(out, l.x, y, stripOutput<R>(h0, i + R, p0[i + R], columnTaps));
      if (l.x + 1 < in.width)
        tiles::storePixel(out, l.x + 1, y, stripOutput<R>(h1, i + R, p1[i + R], columnTaps));
    }
  }
}

// Experiment: stacked wide strips. A block is W warps on the same 56 columns (the wide
// strips' lanes), warp w the band of kGaussWideStripRows rows below warp w - 1's. A warp
// computes the row sums of its own rows only and takes the R rows above and below its band
// from its neighbours through shared memory; the block's first warp computes the R rows
// above the block, its last warp with rows in the image the R rows below it.
template <int W>
struct StackLane {
  static constexpr int kRows = kGaussWideStripRows;
  int x, y0, lane, warp;
  __device__ StackLane(int bx, int by, int t)
      : x(bx * GaussWideLane::kCols - 4 + 2 * (t % 32)), y0((by * W + t / 32) * kRows), lane(t % 32), warp(t / 32) {}
  __device__ bool ownsColumns(int width) const { return lane >= 2 && lane < 30 && x < width; }
  static int blocksAcross(int width) { return (width + GaussWideLane::kCols - 1) / GaussWideLane::kCols; }
  static int blocksDown(int height) { return (height + W * kRows - 1) / (W * kRows); }
};

__device__ __forceinline__ uint4 packSums(const RowSums& a, const RowSums& b) { return make_uint4(a.rg, a.b, b.rg, b.b); }
__device__ __forceinline__ void unpackSums(const uint4& v, RowSums& a, RowSums& b) {
  a = RowSums{v.x, v.y}, b = RowSums{v.z, v.w};
}

template <int R, int W>
constexpr int kStackSlots = (4 * W + 2) * R;  // above, below: (W + 1) R; mid, mid2: W R
template <int R, int W>
constexpr size_t kStackSharedBytes = size_t(kStackSlots<R, W>) * 32 * sizeof(uint4);

template <int R, int W>
__global__ void __launch_bounds__(W * 32, W == 8 ? 3 : 6)
    stackedStripKernel(ConstRgbaView in, RgbaView out, BorderMode border,
                       const __grid_constant__ GaussTaps rowTaps, const __grid_constant__ GaussTaps columnTaps) {
  constexpr int Rows = kGaussWideStripRows, N = Rows + 2 * R;
  // Slots of one row's sums for the 32 lanes: above(b) the R rows above band b (warp b - 1's
  // last, or the block's top halo for b = 0); below(b) band b's first R rows (or the block's
  // bottom halo, written by the last warp with rows in the image); mid(w) band w's rows
  // R .. 2R - 1 and mid2(w) its rows Rows - 2R .. Rows - R - 1 (its edge outputs need them).
  extern __shared__ uint4 stackShared[];
  const auto slot = [&](int kind, int b, int r) -> uint4& {
    const int base = kind == 0 ? 0 : kind == 1 ? (W + 1) * R : kind == 2 ? 2 * (W + 1) * R : 2 * (W + 1) * R + W * R;
    return stackShared[(base + b * R + r) * 32 + int(threadIdx.x % 32)];
  };
  enum { kAbove, kBelow, kMid, kMid2 };
  waitForPriorGrid();
  releaseNextGrid();
  const StackLane<W> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  const bool active = l.y0 < in.height;  // warp-uniform
  const bool last = active && (l.warp == W - 1 || l.y0 + Rows >= in.height);
  const LaneColumns<R, Rows, 2> columns(in, border, l);
  uint32_t p0[N], p1[N];
  RowSums h0[N], h1[N];
  const auto rowSums = [&](int i) {
    uint32_t w[kWideRowWords] = {};
    w[4] = p0[i];
    w[5] = p1[i];
    w[2] = __shfl_up_sync(kFullWarp, p0[i], 1);
    w[3] = __shfl_up_sync(kFullWarp, p1[i], 1);
    w[6] = __shfl_down_sync(kFullWarp, p0[i], 1);
    w[7] = __shfl_down_sync(kFullWarp, p1[i], 1);
    w[1] = __shfl_up_sync(kFullWarp, p1[i], 2);
    w[8] = __shfl_down_sync(kFullWarp, p0[i], 2);
    uint32_t a[2 * R + 1], b[2 * R + 1];
    wideWindow<R>(w, 0, a);
    wideWindow<R>(w, 1, b);
    h0[i] = stripRowSums<R>(a, rowTaps);
    h1[i] = stripRowSums<R>(b, rowTaps);
  };
  const bool owner = l.ownsColumns(in.width);
  const auto output = [&](int o) {  // output row o of the band: H rows o - R .. o + R
    const int y = l.y0 + o;
    if (owner && y < in.height) {
      tiles::storePixel(out, l.x, y, stripOutput<R>(h0, o + R, p0[o + R], columnTaps));
      if (l.x + 1 < in.width) tiles::storePixel(out, l.x + 1, y, stripOutput<R>(h1, o + R, p1[o + R], columnTaps));
    }
  };
  if (active) {
    if (l.warp == 0) {  // the block's top halo: sample rows 0 .. R - 1
#pragma unroll
      for (int i = 0; i < R; ++i) columns.row(i, p0[i], p1[i]);
#pragma unroll
      for (int i = 0; i < R; ++i) {
        rowSums(i);
        slot(kAbove, 0, i) = packSums(h0[i], h1[i]);
      }
    }
    constexpr int Ahead = kWideAhead;
#pragma unroll
    for (int s = 0; s < Ahead; ++s) columns.row(R + s, p0[R + s], p1[R + s]);
#pragma unroll
    for (int s = 0; s < Rows; ++s) {
      const int i = R + s;
      if (s + Ahead < Rows) columns.row(i + Ahead, p0[i + Ahead], p1[i + Ahead]);
      rowSums(i);
      const uint4 v = packSums(h0[i], h1[i]);
      if (s < R) slot(kBelow, l.warp, s) = v;
      if (s >= R && s < 2 * R) slot(kMid, l.warp, s - R) = v;
      if (s >= Rows - 2 * R && s < Rows - R) slot(kMid2, l.warp, s - (Rows - 2 * R)) = v;
      if (s >= Rows - R) slot(kAbove, l.warp + 1, s - (Rows - R)) = v;
      if (s >= 2 * R) output(s - R);
    }
    if (last) {  // the block's bottom halo: sample rows Rows + R .. Rows + 2R - 1
#pragma unroll
      for (int i = Rows + R; i < N; ++i) columns.row(i, p0[i], p1[i]);
#pragma unroll
      for (int i = Rows + R; i < N; ++i) {
        rowSums(i);
        slot(kBelow, l.warp + 1, i - Rows - R) = packSums(h0[i], h1[i]);
      }
    }
  }
  __syncthreads();
  if (!active) return;
#pragma unroll
  for (int o = 0; o < R; ++o) {  // the edge outputs' centres again
    columns.row(R + o, p0[R + o], p1[R + o]);
    columns.row(Rows + o, p0[Rows + o], p1[Rows + o]);
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    unpackSums(slot(kAbove, l.warp, r), h0[r], h1[r]);
    unpackSums(slot(kBelow, l.warp, r), h0[R + r], h1[R + r]);
    unpackSums(slot(kMid, l.warp, r), h0[2 * R + r], h1[2 * R + r]);
    unpackSums(slot(kMid2, l.warp, r), h0[Rows - R + r], h1[Rows - R + r]);
    unpackSums(slot(kAbove, l.warp + 1, r), h0[Rows + r], h1[Rows + r]);
    unpackSums(slot(kBelow, l.warp + 1, r), h0[Rows + R + r], h1[Rows + R + r]);
  }
#pragma unroll
  for (int o = 0; o < R; ++o) output(o);
#pragma unroll
  for (int o = Rows - R; o < Rows; ++o) output(o);
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
             : v == 5 ? wideStripKernel<R, 3, kWideAhead, true>
                      : wideStripKernel<R>;
    if (v == 6 || v == 7) {
      const auto launchStacked = [&](auto kernel, auto warps) {
        constexpr int W = decltype(warps)::value;
        constexpr size_t bytes = kStackSharedBytes<R, W>;
        static const bool sized = [&] {
          VP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
          return true;
        }();
        (void)sized;
        launchKernel(kernel, dim3(StackLane<W>::blocksAcross(in.width), StackLane<W>::blocksDown(in.height)),
                     dim3(W * 32), bytes, stream, pdl, in, out, border, rowTaps, columnTaps);
      };
      if (v == 6)
        launchStacked(stackedStripKernel<R, 8>, std::integral_constant<int, 8>{});
      else
        launchStacked(stackedStripKernel<R, 4>, std::integral_constant<int, 4>{});
      return;
    }
    launchKernel(k, grid, dim3(kStripThreads), 0, stream, pdl, in, out, border, rowTaps, columnTaps);
  } else {
    static const int rows = [] {
      const char* e = std::getenv("VP_EXP_GAUSS_NARROW_ROWS");
      return e ? std::atoi(e) : kGaussStripRows;
    }();
    const dim3 grid(stripBlocksAcross<R>(in.width), stripBlocksDown(in.height, rows));
    auto k = rows == 14 ? stripKernel<R, 14> : rows == 12 ? stripKernel<R, 12> : rows == 20 ? stripKernel<R, 20>
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
