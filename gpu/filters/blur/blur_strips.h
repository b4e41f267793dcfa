// Box blur's strip pass for small radii (blur_strips.cu): both axes in one kernel, no shared
// memory, no barrier. Plain per-lane stages: the kernel joins them with warp shuffles, the
// tests run them on the CPU for every block, warp and lane, reading the neighbouring lanes'
// stage-1 results instead.
//
// The layout (R < kMinPairStripRadius) is common/warp_strip.h's: a warp a strip of 32 - 2R
// output columns and kStripRows rows, the outer R lanes each side the halo (from
// kMinPairStripRadius: two columns a lane, below). Stage 1, per lane:
// the column's samples of rows y0 - R .. y0 + kStripRows - 1 + R through the border, as the
// two-lane words R | B << 16 and G | A << 16, and per output row their vertical window sums
// (the first window summed, then slid: + entering, - leaving). Stage 2, per owning lane: the
// horizontal window sum of those over lanes l - R .. l + R, divided and rounded per channel
// (Divider: the same integers as the CPU twin), alpha from the centre pixel. 16-bit lanes
// stay exact: a window holds at most 121 samples < 256 (R <= kMaxStripRadius).
#pragma once

#include "gpu/filters/blur/box_blur_math.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/filters/common/warp_strip.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::blur {

constexpr int kMaxStripRadius = 5;
static_assert((2 * kMaxStripRadius + 1) * (2 * kMaxStripRadius + 1) * 255 < (1 << 16), "16-bit lanes");

// Stage 1's result: per output row i, the centre pixel and the column's vertical window sums.
struct StripColumn {
  uint32_t pixel[kStripRows];
  uint32_t rb[kStripRows], ga[kStripRows];
};

// The vertical window sums of a column from its samples px[i], sample row i = y0 - R + i.
template <int R>
__host__ __device__ inline void columnSums(const uint32_t (&px)[kStripRows + 2 * R], StripColumn& c) {
  uint32_t rb = 0, ga = 0;
VP_UNROLL
  for (int i = 0; i < 2 * R + 1; ++i) rb += lanesRb(px[i]), ga += lanesGa(px[i]);
VP_UNROLL
  for (int i = 0; i < kStripRows; ++i) {
    if (i > 0) {
      rb += lanesRb(px[i + 2 * R]) - lanesRb(px[i - 1]);
      ga += lanesGa(px[i + 2 * R]) - lanesGa(px[i - 1]);
    }
    c.pixel[i] = px[i + R];
    c.rb[i] = rb;
    c.ga[i] = ga;
  }
}

template <int R>
__host__ __device__ inline void stripColumn(ConstRgbaView in, BorderMode border, const StripLane<R>& l,
                                            StripColumn& c) {
  uint32_t px[kStripRows + 2 * R];
  stripSamples(in, border, l, px);
  columnSums<R>(px, c);
}

// ---- pair strips, R = kMinPairStripRadius..kMaxStripRadius: two columns a lane ----
//
// Lane l works on columns x, x + 1 with x = x0 - 2H + 2l, H = (R + 1) / 2 halo lanes each
// side (2H >= R columns): lanes H .. 31 - H own 2 (32 - 2H) output columns, 52 at R = 5
// where the one-column strips own 22. Stage 1 is the one-column strips' for each of the two
// columns; stage 2 takes both outputs' window sums from the lanes l - H .. l + H (blur_strips.cu:
// pairWindow), so a shuffle serves two outputs. Four warps a block: 1080p r 5 measured 12.5 µs
// against 13.2 with eight (finer blocks even out the SMs' shares; docs/design/box_blur.md).
constexpr int kMinPairStripRadius = 3;
constexpr int kPairStripWarps = 4;
constexpr int kPairStripThreads = kPairStripWarps * 32;
template <int R>
using BlurPairLane = PairLane<(R + 1) / 2, kStripRows, kPairStripWarps>;

template <int R>
__host__ __device__ inline void pairColumns(ConstRgbaView in, BorderMode border, const BlurPairLane<R>& l,
                                            StripColumn& c0, StripColumn& c1) {
  uint32_t p0[kStripRows + 2 * R], p1[kStripRows + 2 * R];
  laneSamples<R, kStripRows>(in, border, l, p0, p1);
  columnSums<R>(p0, c0);
  columnSums<R>(p1, c1);
}

// Stage 2: the output pixel from the window's two-lane sums (R | B << 16, G | A << 16) and
// the centre pixel (its alpha).
__host__ __device__ inline uint32_t stripOutput(uint32_t rb, uint32_t ga, uint32_t centre,
                                                const Divider& dv) {
  return roundDiv(rb & 0xFFFFu, dv) | roundDiv(ga & 0xFFFFu, dv) << 8 | roundDiv(rb >> 16, dv) << 16 |
         (centre & 0xFF000000u);
}

}  // namespace vp::blur
