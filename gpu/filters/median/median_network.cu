// Median by forgetful selection (median_select.h) for small windows, r = 1..3, the samples
// staged in shared memory.
//
// Tiling. A 256-thread block computes 64 x 16 outputs; each thread a 2 x 2 quad: columns
// x, x+1 (the two lanes) and rows y, y+1. The block first stages its window samples,
// border-extended, in shared memory as those lane pairs: per channel, per row, one word
// for each pair of adjacent columns, split by the parity of the first column so that a
// warp's reads are consecutive words (no bank conflicts). R is held as IntLanes, G and B as
// HalfLanes (median_select.h), so the selections use the ALU and the FMA pipes.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/filters/common/radius_dispatch.h"
#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/median/median_kernels.h"
#include "gpu/filters/median/median_select.h"
#include "gpu/filters/median/median_strips.h"  // storePair

#include <cuda_runtime.h>

namespace vp::median {
namespace {

constexpr int kNetThreadsX = 32;
constexpr int kNetThreadsY = 8;
constexpr int kNetTileW = 2 * kNetThreadsX;  // output columns per block (two per thread)
constexpr int kNetTileH = 2 * kNetThreadsY;  // output rows per block (two per thread)

template <int R>
struct NetShape : SelectShape<R> {
  static constexpr int kPairs = kNetTileW - 1 + 2 * R;  // column pairs staged per tile row
  static constexpr int kHalfW = kNetThreadsX + R;       // words per parity half-row
  static constexpr int kRowWords = 2 * kHalfW;
  static constexpr int kTileH = kNetTileH + 2 * R;
  static constexpr int kPlaneWords = kTileH * kRowWords;  // one channel
  static_assert((kPairs + 1) / 2 <= kHalfW, "a parity half-row holds its pairs");
};

// The staged pair of tile row `ty` starting at pair column q: [parity][half-row index].
template <int R>
__device__ __forceinline__ int pairWord(int ty, int q) {
  return ty * NetShape<R>::kRowWords + (q & 1) * NetShape<R>::kHalfW + (q >> 1);
}

// The medians of one channel for the quad: `plane` points at the word of tile row `ty`
// (the quad's first output row, less R) and of the thread's first pair (dx = -R).
template <int R, class L>
__device__ __forceinline__ void medianQuadStaged(const uint32_t* plane, uint32_t& m0, uint32_t& m1) {
  using S = NetShape<R>;
  medianQuad<R, L>(
      [plane](auto row, auto p) {
        constexpr int Row = decltype(row)::value, P = decltype(p)::value;
        return plane[Row * S::kRowWords + (P & 1) * S::kHalfW + (P >> 1)];
      },
      m0, m1);
}

__device__ __forceinline__ uint32_t loadPixel(ConstRgbaView in, int x, int y) {
  return __ldg(reinterpret_cast<const uint32_t*>(in.row(y)) + x);
}

// The channels held as HalfLanes (bit c: channel c), the others as IntLanes: the ALU pipe
// that bounds an all-IntLanes kernel then shares the compare-exchanges with the FMA pipes.
// G and B measured fastest of the choices (docs/design/median.md); the interleaved variant
// (kTogether) keeps all three as IntLanes.
constexpr unsigned kHalfLaneChannels = 0b110u;

template <int R, bool kTogether>
__global__ void __launch_bounds__(kNetThreadsX* kNetThreadsY)
    medianNetworkKernel(ConstRgbaView in, RgbaView out, BorderMode border) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  using S = NetShape<R>;
  constexpr unsigned kHalf = kTogether ? 0u : kHalfLaneChannels;
  __shared__ uint32_t tile[3 * S::kPlaneWords];
  const int w = in.width, h = in.height;
  const int x0 = int(blockIdx.x) * kNetTileW, y0 = int(blockIdx.y) * kNetTileH;
  // Interior blocks read the image directly; the others fold every index through the
  // border (the last pair's second column is x0 - R + kPairs).
  const bool interior = x0 - R >= 0 && y0 - R >= 0 && x0 - R + S::kPairs < w && y0 + kNetTileH + R <= h;
  for (int i = int(threadIdx.y * kNetThreadsX + threadIdx.x); i < S::kTileH * S::kPairs;
       i += kNetThreadsX * kNetThreadsY) {
    const int ty = i / S::kPairs, q = i - ty * S::kPairs;
    int gx0 = x0 - R + q, gx1 = gx0 + 1, gy = y0 - R + ty;
    if (!interior) {
      gx0 = extendIndex(gx0, w, border);
      gx1 = extendIndex(gx1, w, border);
      gy = extendIndex(gy, h, border);
    }
    uint32_t p0 = 0, p1 = 0;  // zero-border samples
    if (gy >= 0) {
      if (gx0 >= 0) p0 = loadPixel(in, gx0, gy);
      if (gx1 >= 0) p1 = loadPixel(in, gx1, gy);
    }
    const int word = pairWord<R>(ty, q);
    staticFor<3>([&](auto c) {
      constexpr int C = decltype(c)::value;
      tile[C * S::kPlaneWords + word] = ChannelLanes<kHalf, C>::pack(p0, p1, C);
    });
  }
  __syncthreads();
  const int t = int(threadIdx.x), ty = 2 * int(threadIdx.y);
  uint32_t m[3][2];
  // Pair index of dx = -R for the thread's columns 2t, 2t+1 is 2t: parity 0, word t.
  const uint32_t* plane = tile + ty * S::kRowWords + t;
  if constexpr (kTogether) {
#pragma unroll
    for (int c = 0; c < 3; ++c) medianQuadStaged<R, IntLanes>(plane + c * S::kPlaneWords, m[c][0], m[c][1]);
  } else {
    staticFor<3>([&](auto c) {
      constexpr int C = decltype(c)::value;
      medianQuadStaged<R, ChannelLanes<kHalf, C>>(plane + C * S::kPlaneWords, m[C][0], m[C][1]);
    });
  }
  const int x = x0 + 2 * t;
  if (x >= w) return;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int y = y0 + ty + j;
    if (y >= h) break;
    storePair(out, w, x, y, m[0][j], m[1][j], m[2][j], [&](int k) { return loadPixel(in, x + k, y); });
  }
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, bool together, cudaStream_t stream) {
  const dim3 block(kNetThreadsX, kNetThreadsY);
  const dim3 grid(unsigned((in.width + kNetTileW - 1) / kNetTileW),
                  unsigned((in.height + kNetTileH - 1) / kNetTileH));
  launchKernel(together ? medianNetworkKernel<R, true> : medianNetworkKernel<R, false>, grid, block, 0,
               stream, pdlAvailable(), in, out, border);
}

}  // namespace

void launchNetwork(ConstRgbaView in, RgbaView out, int r, BorderMode border, bool channelsTogether,
                   cudaStream_t stream) {
  withRadius<1, kMaxNetworkRadius>(r, "median network", [&](auto R) {
    launchR<decltype(R)::value>(in, out, border, channelsTogether, stream);
  });
}

}  // namespace vp::median
