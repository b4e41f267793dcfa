// The median's strip method for r = 1 (median_strips.cu): forgetful selection
// (median_select.h) on samples held in registers, no shared memory, no barrier. Plain
// per-lane stages: the kernel joins them with warp shuffles, the tests run them on the CPU
// for every block, warp and lane, reading the neighbouring lanes' samples instead.
//
// Layout: the warp strips of common/warp_strip.h with two columns a lane (the selection's
// 16-bit lanes hold two horizontally adjacent outputs): lane l works on columns x, x + 1
// with x = x0 - 2 + 2l, so lanes 1 .. 30 own 60 output columns and lanes 0 and 31 are the
// halo (2 columns each side: r <= 2 could run; r = 2 measured slower than the staged
// network, docs/design/median.md). Stage 1, per lane: the two columns' samples of rows
// y0 - r .. y0 + kStripRows - 1 + r through the border. Stage 2, per lane and channel: the
// lane pair word of each sample row (lanePair), the neighbours' by two shuffles, and from
// them the window's words at column offsets -r..r (an odd offset straddles two lanes: one
// byte permute); then a quad's two output rows at a time, as the staged network kernel.
#pragma once

#include "gpu/filters/common/tile_access.h"
#include "gpu/filters/common/warp_strip.h"
#include "gpu/filters/median/median_params.h"
#include "gpu/filters/median/median_select.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp::median {

template <int R>
constexpr int kMedianStripSamples = kStripRows + 2 * R;  // sample rows per lane

// The layout: two columns a lane, one halo lane each side (60 output columns a warp).
using PairStripLane = PairLane<1>;

// Stage 1: the lane's two columns (p0: x, p1: x + 1) at sample rows y0 - R + s.
template <int R>
struct PairSamples {
  uint32_t p0[kMedianStripSamples<R>], p1[kMedianStripSamples<R>];
};

template <int R, class Lane>
__host__ __device__ inline void pairSamples(ConstRgbaView in, BorderMode border, const Lane& l,
                                            PairSamples<R>& s) {
  laneSamples<R, kStripRows>(in, border, l, s.p0, s.p1);
}

// The window word at column offset D (-2..2) from the lane pair words of the left, own and
// right lanes: an even offset is a lane's word, an odd one the high lane of one and the low
// lane of the next.
template <int D>
__host__ __device__ __forceinline__ uint32_t offsetWord(uint32_t left, uint32_t own, uint32_t right) {
  static_assert(D >= -2 && D <= 2, "two halo columns each side");
  if constexpr (D == -2) return left;
  if constexpr (D == -1) return bytePerm(left, own, 0x5432u);
  if constexpr (D == 0) return own;
  if constexpr (D == 1) return bytePerm(own, right, 0x5432u);
  return right;
}

// Stage 2 for one channel: the medians of output rows q, q + 1 (two lanes each) from the
// lane pair words of sample rows q .. q + 2R + 1 of the left, own and right lanes.
template <int R, int N>
__host__ __device__ __forceinline__ void pairQuad(const uint32_t (&left)[N], const uint32_t (&own)[N],
                                                  const uint32_t (&right)[N], int q, uint32_t& m0,
                                                  uint32_t& m1) {
  medianQuad<R>(
      [&](auto row, auto p) {
        constexpr int Row = decltype(row)::value, D = decltype(p)::value - R;
        return offsetWord<D>(left[q + Row], own[q + Row], right[q + Row]);
      },
      m0, m1);
}

// The output pixels x, x + 1 of row y from the channels' medians (lanes of the two columns)
// and the input's pixels there (their alpha): input(k) is the input pixel x + k. The second
// pixel is read and stored only when x + 1 < width, the frame's (input and output alike).
template <class Input>
__host__ __device__ inline void storePair(RgbaView out, int width, int x, int y, uint32_t mr, uint32_t mg,
                                          uint32_t mb, const Input& input) {
  const uint32_t rg = bytePerm(mr, mg, 0x6240u);  // R, G of x; R, G of x + 1
  tiles::storePixel(out, x, y, bytePerm(rg, bytePerm(mb, input(0), 0x0070u), 0x5410u));
  if (x + 1 < width) tiles::storePixel(out, x + 1, y, bytePerm(rg, bytePerm(mb, input(1), 0x0072u), 0x5432u));
}

// The same with the input pixels at hand.
__host__ __device__ inline void storePair(RgbaView out, int x, int y, uint32_t mr, uint32_t mg, uint32_t mb,
                                          uint32_t in0, uint32_t in1) {
  storePair(out, out.width, x, y, mr, mg, mb, [=](int k) { return k == 0 ? in0 : in1; });
}

}  // namespace vp::median
