// Box blur's sliding strips (blur_slide_strips.cu), radii kMinSlideStripRadius..kMaxSlideStripRadius:
// both axes in one kernel, no shared memory, no barrier, no intermediate. Plain per-lane
// stages: the kernel joins them with warp shuffles, the tests run them on the CPU for every
// block, warp and lane, reading the neighbouring lanes' results instead.
//
// A warp owns a span of 32 C columns, lane l the C consecutive columns x = xs + C l .. x + C - 1,
// and walks down a segment of `rows` output rows. The outer H = ceil(r / C) C columns each side
// are the halo, so 32 C - 2H of the span's columns are outputs and a lane owns all its columns
// or none. Before the first row, each lane sums its columns' first vertical windows; then per
// output row y:
//  1. each column's vertical window sum slides: + the pixel of row y + r, - that of y - r - 1;
//  2. the lane's exclusive prefix of those, e[0..C] (e[C]: the lane's total);
//  3. (warp) plus the totals of the lanes to its left: E[k] = the sum of the span's columns
//     left of x + k;
//  4. each owned column x + j: the window sum E(x + j + r + 1) - E(x + j - r), both read from
//     the lanes that hold those positions (rightEnd, leftEnd), divided per channel (Divider,
//     the CPU twin's integers), alpha from the centre pixel.
// So a row costs each lane two loads and adds per column, one warp scan and two shuffles per
// column, whatever r, and a segment's first window is the only O(r) work. Sums are
// R | G << 21 | B << 42 in one uint64 (packRgb), mod 2^64: a span's prefix may overflow its
// fields, but a window sum, a difference of prefixes of at most (2r + 1)^2 255 < 2^21 per
// channel (r <= 44), unpacks exactly.
#pragma once

#include "gpu/filters/blur/box_blur_math.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::blur {

constexpr int kMinSlideStripRadius = 6;
constexpr int kMaxSlideStripRadius = 44;
static_assert(uint64_t(2 * kMaxSlideStripRadius + 1) * (2 * kMaxSlideStripRadius + 1) * 255 <
                  (1u << kLaneBits),
              "a window sum fits its 21-bit field");
constexpr int kSlideStripWarps = 4;  // warps per block, spans side by side
constexpr int kSlideStripThreads = kSlideStripWarps * 32;

__host__ __device__ constexpr int floorDivC(int a, int c) { return a >= 0 ? a / c : -((-a + c - 1) / c); }

// Where thread t of block (bx, by) works: its first column x (outside the image for some halo
// lanes and past the right edge), the segment's first output row y0; halo = H columns.
template <int C>
struct SlideStripLane {
  static constexpr int kSpan = 32 * C;
  static constexpr int kWarps = kSlideStripWarps;
  int halo, x, y0, lane;
  __host__ __device__ SlideStripLane(int bx, int by, int t, int radius, int rows)
      : halo((radius + C - 1) / C * C),
        x((bx * kWarps + t / 32) * (kSpan - 2 * halo) - halo + C * (t % 32)),
        y0(by * rows),
        lane(t % 32) {}
  // The warp's first output column is inside the image (a warp-uniform test).
  __host__ __device__ bool warpHasWork(int width) const { return x - C * lane + halo < width; }
  __host__ __device__ bool ownsColumns(int width) const {
    return lane >= halo / C && lane < 32 - halo / C && x < width;
  }
  static constexpr int outputsPerWarp(int radius) { return kSpan - 2 * ((radius + C - 1) / C * C); }
  static constexpr int blocksAcross(int width, int radius) {
    return (width + kWarps * outputsPerWarp(radius) - 1) / (kWarps * outputsPerWarp(radius));
  }
};

// A lane's C columns through the border: row(y, px) sets px[c] to pixel (extX(x + c), extY(y)),
// 0 where the zero border applies. `vector`: the C columns are inside the image and 16-byte
// aligned, so the device reads them with 16-byte loads.
template <int C>
struct SlideColumns {
  ConstRgbaView in;
  BorderMode border;
  int xs[C];  // < 0: a zero sample
  bool vector;
  __host__ __device__ SlideColumns(ConstRgbaView view, BorderMode mode, int x, bool aligned)
      : in(view), border(mode), vector(aligned && x >= 0 && x + C <= view.width) {
    VP_UNROLL
    for (int c = 0; c < C; ++c) xs[c] = extendIndex(x + c, in.width, border);
  }
  __host__ __device__ void row(int y, uint32_t (&px)[C]) const {
    const int ey = extendIndex(y, in.height, border);
#if defined(__CUDA_ARCH__)
    if (vector && ey >= 0) {
      const uint4* p = reinterpret_cast<const uint4*>(in.row(ey) + xs[0]);
      VP_UNROLL
      for (int c = 0; c < C; c += 4) {
        const uint4 q = __ldg(p + c / 4);
        px[c] = q.x, px[c + 1] = q.y, px[c + 2] = q.z, px[c + 3] = q.w;
      }
      return;
    }
#endif
    VP_UNROLL
    for (int c = 0; c < C; ++c) px[c] = (xs[c] >= 0 && ey >= 0) ? tiles::loadPixel(in, xs[c], ey) : 0u;
  }
};

// R | G << 21 | B << 42 of the little-endian pixel word R | G << 8 | B << 16 | A << 24.
__host__ __device__ inline uint64_t packWord(uint32_t p) {
  const uint32_t lo = (p & 0xFFu) | (p & 0xFF00u) << 13, hi = (p >> 6) & (0xFFu << 10);
  return uint64_t(hi) << 32 | lo;
}

// The vertical window sums of a lane's C columns.
template <int C>
struct SlideSums {
  uint64_t v[C];
  // The windows of row y0 - 1: rows y0 - r - 1 .. y0 + r - 1, loaded kFirstBatch rows at a time
  // (each batch's loads in flight together).
  static constexpr int kFirstBatch = 8;
  __host__ __device__ void first(const SlideColumns<C>& cols, int y0, int radius) {
    VP_UNROLL
    for (int c = 0; c < C; ++c) v[c] = 0;
    int y = y0 - radius - 1;
    const int end = y0 + radius;
    for (; y + kFirstBatch <= end; y += kFirstBatch) {
      uint32_t px[kFirstBatch][C];
      VP_UNROLL
      for (int i = 0; i < kFirstBatch; ++i) cols.row(y + i, px[i]);
      VP_UNROLL
      for (int i = 0; i < kFirstBatch; ++i) VP_UNROLL
      for (int c = 0; c < C; ++c) v[c] += packWord(px[i][c]);
    }
    for (; y < end; ++y) {
      uint32_t px[C];
      cols.row(y, px);
      VP_UNROLL
      for (int c = 0; c < C; ++c) v[c] += packWord(px[c]);
    }
  }
  __host__ __device__ void slide(const uint32_t (&entering)[C], const uint32_t (&leaving)[C]) {
    VP_UNROLL
    for (int c = 0; c < C; ++c) v[c] += packWord(entering[c]) - packWord(leaving[c]);
  }
  // e[k] = v[0] + .. + v[k - 1], k = 0..C.
  __host__ __device__ void prefix(uint64_t (&e)[C + 1]) const {
    e[0] = 0;
    VP_UNROLL
    for (int c = 0; c < C; ++c) e[c + 1] = e[c] + v[c];
  }
};

// Where output column x + j of a lane reads a window end: `lane` lanes to the right (left when
// negative), its E[sub]. m = r mod C, q = r / C; the right end E(x + j + r + 1) takes
// sub 1..C, the left end E(x + j - r) sub 0..C - 1. Constant for constant j and m.
struct WindowEnd {
  int lane, sub;
};
template <int C>
__host__ __device__ constexpr WindowEnd rightEnd(int j, int m, int q) {
  return {q + (j + m) / C, j + m + 1 - (j + m) / C * C};
}
template <int C>
__host__ __device__ constexpr WindowEnd leftEnd(int j, int m, int q) {
  return {-q + floorDivC(j - m, C), j - m - floorDivC(j - m, C) * C};
}

// The output pixel from its window sum (packed) and the centre pixel (its alpha).
__host__ __device__ inline uint32_t slideOutput(uint64_t window, uint32_t centre, const Divider& dv) {
  const uint32_t r = uint32_t(window) & uint32_t(kLaneMask),
                 g = uint32_t(window >> kLaneBits) & uint32_t(kLaneMask),
                 b = uint32_t(window >> (2 * kLaneBits));
  return roundDiv(r, dv) | roundDiv(g, dv) << 8 | roundDiv(b, dv) << 16 | (centre & 0xFF000000u);
}

}  // namespace vp::blur
