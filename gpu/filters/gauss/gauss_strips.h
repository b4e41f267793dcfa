// The Gaussian blur's strip path for small radii (gauss_strips.cu): both passes in one
// kernel, no shared memory, no barrier. Plain per-lane stages: the kernel joins them with
// warp shuffles, the tests run them on the CPU for every block, warp and lane, reading the
// neighbouring lanes' samples instead.
//
// The layout (R <= 2) is common/warp_strip.h's: a warp a strip of 32 - 2R output columns and
// kGaussStripRows rows, the outer R lanes each side the halo (R = 3: two columns a lane and
// kGaussWideStripRows rows, below). Per lane: (1) the column's
// samples of rows y0 - R .. y0 + kGaussStripRows - 1 + R through the border; (2) per sample
// row, the row sums H of the lane's column from the samples of lanes l - R .. l + R
// (shuffled); (3) per output row, the column sum of the 2R + 1 H rows around it: the
// contract's two roundings (gauss.h), the same integers as the CPU twin.
//
// Arithmetic: the taps are symmetric, so each tap multiplies the sum of the two samples at
// +-i. Two channels ride in the 16-bit lanes of one word, R | B << 16 in the row pass and
// H_R | H_G << 16 in the column pass (a pair's sum < 2^16), so one multiply-add serves both:
// acc = S_lo + S_hi << 16 (mod 2^32), and a second accumulator of the high channel alone
// gives S_lo = acc - (S_hi << 16), exact because S_lo < 2^32. Per sample row and lane ~12
// instructions a tap pair and 2R shuffles; per output ~6 a tap pair (docs/design/gauss.md).
#pragma once

#include "gpu/filters/common/byte_perm.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/filters/common/warp_strip.h"
#include "gpu/filters/gauss/gauss_math.h"
#include "gpu/filters/gauss/gauss_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp::gauss {

constexpr int kGaussStripRows = 16;  // output rows per warp: 2R halo rows of row sums each

template <int R>
using GaussStripLane = StripLane<R, kGaussStripRows>;
template <int R>
constexpr int kGaussStripSamples = kGaussStripRows + 2 * R;  // sample rows per lane

// One sample row's H at the lane's column: H_R | H_G << 16 and H_B (each <= 32640).
struct RowSums {
  uint32_t rg, b;
};

// Stage 2: H from the row's samples p[R + i] at column offsets i = -R..R. The rounding offset
// 2^16 rides in each accumulator from the start (rb - (b << 16) keeps it once: b's copy
// cancels against the 2^32 it carries), so each H is its accumulator >> 17.
template <int R>
__host__ __device__ inline RowSums stripRowSums(const uint32_t (&p)[2 * R + 1], const GaussTaps& q) {
  const auto green = [](uint32_t px) { return bytePerm(px, 0u, 0x4441u); };
  const uint32_t rb0 = p[R] & 0x00FF00FFu;
  uint32_t rb = q.q[0] * rb0 + kGaussRowRounding, b = q.q[0] * (rb0 >> 16) + kGaussRowRounding,
           g = q.q[0] * green(p[R]) + kGaussRowRounding;
  VP_UNROLL
  for (int i = 1; i <= R; ++i) {
    const uint32_t pairRb = (p[R - i] & 0x00FF00FFu) + (p[R + i] & 0x00FF00FFu);  // lanes <= 510
    rb += q.q[i] * pairRb;
    b += q.q[i] * (pairRb >> 16);
    g += q.q[i] * (green(p[R - i]) + green(p[R + i]));
  }
  return {(rb - b * 65536u) >> kGaussRowShift | (g >> 1 & 0xFFFF0000u), b >> kGaussRowShift};
}

// Stage 3: the output pixel of sample row c's column from the H of rows c - R .. c + R
// (h[c + j], j = -R..R) and the centre pixel (its alpha). The rounding offset 2^23 rides in
// each accumulator from the start, as in stripRowSums, so each channel is its accumulator's
// top byte, gathered with the centre's alpha by three byte permutes.
template <int R, int N>
__host__ __device__ inline uint32_t stripOutput(const RowSums (&h)[N], int c, uint32_t centre,
                                                const GaussTaps& q) {
  uint32_t rg = q.q[0] * h[c].rg + kGaussColumnRounding, g = q.q[0] * (h[c].rg >> 16) + kGaussColumnRounding,
           b = q.q[0] * h[c].b + kGaussColumnRounding;
  VP_UNROLL
  for (int j = 1; j <= R; ++j) {
    const uint32_t pairRg = h[c - j].rg + h[c + j].rg;  // lanes <= 65280
    rg += q.q[j] * pairRg;
    g += q.q[j] * (pairRg >> 16);
    b += q.q[j] * (h[c - j].b + h[c + j].b);
  }
  return bytePerm(bytePerm(rg - g * 65536u, g, 0x0073u), bytePerm(b, centre, 0x7300u), 0x7610u);
}

// ---- wide strips, R = kMinWideStripGaussRadius..kMaxStripGaussRadius: two columns a lane ----
//
// Lane l works on columns x, x + 1 with x = x0 - 4 + 2l: lanes 2 .. 29 own 56 output columns,
// lanes 0, 1 and 30, 31 are the halo (4 columns each side, R <= 4). Per sample row a lane
// takes its window's other columns from lanes l - 2 .. l + 2 (2R shuffles serve two outputs,
// where the one-column strips spend 2R on one), and its two outputs' row sums share the
// samples' byte masks. The stages are the same functions: stripRowSums on each column's
// window, stripOutput on each column's H, so the integers are the one-column strips'.
// 14 rows a warp: a 1080p frame is then 390 blocks for the 396 places of 132 SMs at 3 blocks
// each, where 16 rows made 340 longer ones (docs/design/gauss.md has the row counts measured).
constexpr int kGaussWideStripRows = 14;
using GaussWideLane = PairLane<2, kGaussWideStripRows>;
template <int R>
constexpr int kGaussWideStripSamples = kGaussWideStripRows + 2 * R;  // sample rows per lane
constexpr int kMinWideStripGaussRadius = 3;

// One sample row's words of lanes l - 2 .. l + 2: w[4 + 2d + k] is lane l + d's column k, so
// w[4 + j] is column x + j (j = -4..5).
constexpr int kWideRowWords = 10;

// The window of column x + c (c = 0, 1): p[R + i] = column x + c + i, i = -R..R.
template <int R>
__host__ __device__ inline void wideWindow(const uint32_t (&w)[kWideRowWords], int c,
                                           uint32_t (&p)[2 * R + 1]) {
  static_assert(R >= 1 && R <= 4, "the window lies in lanes l - 2 .. l + 2");
  VP_UNROLL
  for (int i = -R; i <= R; ++i) p[R + i] = w[4 + c + i];
}

// The strip kernels for radius 1..kMaxStripGaussRadius (gauss_params.h): one column a lane
// below kMinWideStripGaussRadius, two from there.
void launchStrips(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
                  const GaussTaps& columnTaps, bool pdl, cudaStream_t stream);

}  // namespace vp::gauss
