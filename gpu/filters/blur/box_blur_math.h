// Helpers shared by the box blur kernels and their CPU twin: packed channel sums,
// window sums over a border-extended axis from a prefix sum, exact rounding division
// and the argument checks. Everything here is integer arithmetic.
#pragma once

#include "gpu/filters/blur/box_blur.h"
#include "gpu/filters/common/byte_perm.h"
#include "gpu/filters/common/view_checks.h"  // checkFilterViews, extendIndex

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp::blur {

// R, G, B of a pixel packed into one uint64 at bits 0, 21 and 42. Sums of packed values
// are sums mod 2^64 of R + G*2^21 + B*2^42, so a prefix may overflow its lanes: a window
// sum (a difference of prefixes, <= 257*255 < 2^21 per channel) still unpacks exactly.
constexpr int kLaneBits = 21;
constexpr uint64_t kLaneMask = (uint64_t(1) << kLaneBits) - 1;

__host__ __device__ inline uint64_t packRgb(uchar4 v) {
  return uint64_t(v.x) | (uint64_t(v.y) << kLaneBits) | (uint64_t(v.z) << (2 * kLaneBits));
}
__host__ __device__ inline ushort4 unpackSums(uint64_t s, unsigned char alpha) {
  return make_ushort4(static_cast<unsigned short>(s & kLaneMask),
                      static_cast<unsigned short>((s >> kLaneBits) & kLaneMask),
                      static_cast<unsigned short>(s >> (2 * kLaneBits)), alpha);
}

// The same sums in two uint32 words (SIMD within a register): rb = R | B << 16 and
// ga = G | A << 16 of a pixel read as one little-endian word. Sums are mod 2^32 per
// word, and a window sum of <= 257 values < 256 fits each 16-bit lane, so lanes are
// exact (the A lane is never read). One integer op per word: a mask, a byte permute.
__host__ __device__ inline uint32_t lanesRb(uint32_t rgba) { return rgba & 0x00FF00FFu; }
__host__ __device__ inline uint32_t lanesGa(uint32_t rgba) { return bytePerm(rgba, 0u, 0x4341u); }

// Three channel sums (the second pass: sums of uint16 sums need 24 bits each).
// Arithmetic is mod 2^32 per channel, like the packed lanes above.
struct Sum3 {
  uint32_t r, g, b;
};
__host__ __device__ inline Sum3 operator+(Sum3 a, Sum3 b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
__host__ __device__ inline Sum3 operator-(Sum3 a, Sum3 b) { return {a.r - b.r, a.g - b.g, a.b - b.b}; }
__host__ __device__ inline Sum3 operator*(Sum3 a, unsigned k) { return {a.r * k, a.g * k, a.b * k}; }

__host__ __device__ inline int clampInt(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__host__ __device__ inline int floorDiv(int a, int b) {  // b > 0
  const int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Sum of v(ext(i)) over i in [a, b] (a <= b) on an axis of length n >= 1, from
// prefix(k) = v(0) + .. + v(k-1), 0 <= k <= n. O(1) whatever b - a:
//  - zero: the part inside the image;
//  - replicate: that plus the edge values times the counts outside;
//  - wrap / reflect: the extension is periodic (period n, or 2n-2 for reflect) with
//    cycle prefix C(m); a prefix over extended indices is q*C(period) + C(m).
// Every term is a non-negative part of the window, so packed lanes never borrow
// across the final result.
template <class T, class Prefix>
__host__ __device__ inline T windowSum(const Prefix& prefix, int a, int b, int n, BorderMode mode) {
  if (mode == BorderMode::Zero || mode == BorderMode::Replicate ||
      (mode == BorderMode::Reflect && n == 1)) {
    const int ca = clampInt(a, 0, n), cb = clampInt(b + 1, 0, n);
    T s = prefix(cb) - prefix(ca);
    if (mode != BorderMode::Zero) {
      if (a < 0) s = s + prefix(1) * unsigned((b < -1 ? b : -1) - a + 1);
      if (b >= n) s = s + (prefix(n) - prefix(n - 1)) * unsigned(b - (a > n ? a : n) + 1);
    }
    return s;
  }
  const bool wrap = mode == BorderMode::Wrap;
  const int period = wrap ? n : 2 * n - 2;
  auto cycle = [&](int m) -> T {  // sum of v(ext(i)) over i in [0, m), 0 <= m <= period
    if (wrap || m <= n) return prefix(m);
    return prefix(n) + (prefix(n - 1) - prefix(period - m + 1));  // the mirrored n-2 .. period-m+1
  };
  const int qa = floorDiv(a, period), ma = a - qa * period;
  const int qb = floorDiv(b + 1, period), mb = b + 1 - qb * period;
  if (qa == qb) return cycle(mb) - cycle(ma);
  const T whole = cycle(period);
  return whole * unsigned(qb - qa - 1) + (whole - cycle(ma)) + cycle(mb);
}

// floor(n / d) as (n * mul) >> shift, exact for every n < 2^25 (n <= 256 * (2r+1)^2 here):
// mul = ceil(2^shift / d) with shift = 25 + ceil(log2 d) keeps the error below 1/d.
struct Divider {
  uint32_t mul = 1;
  uint32_t shift = 0;
  uint32_t half = 0;  // d / 2: the round-half-up offset
};
inline Divider makeDivider(uint32_t d) {
  uint32_t log2d = 0;
  while ((uint64_t(1) << log2d) < d) ++log2d;
  Divider dv;
  dv.shift = 25 + log2d;
  dv.mul = static_cast<uint32_t>(((uint64_t(1) << dv.shift) + d - 1) / d);
  dv.half = d / 2;
  return dv;
}
__host__ __device__ inline uint32_t roundDiv(uint32_t sum, const Divider& dv) {
  return static_cast<uint32_t>((uint64_t(sum + dv.half) * dv.mul) >> dv.shift);
}
// The same division with the shift raised to at least 32, so that a kernel takes the quotient
// from the high word of one 32-bit multiply instead of a 64-bit product and shift. Exact for
// the same n and every d >= 2: 2^shift >= 2^25 d still holds, and mul <= 2^31 < 2^32.
inline Divider makeHighDivider(uint32_t d) {
  Divider dv = makeDivider(d);
  if (dv.shift < 32) {
    dv.shift = 32;
    dv.mul = static_cast<uint32_t>(((uint64_t(1) << 32) + d - 1) / d);
  }
  return dv;
}
// roundDiv for a divider from makeHighDivider: on the GPU, mul.hi and one shift.
__host__ __device__ inline uint32_t roundDivHigh(uint32_t sum, const Divider& dv) {
#if defined(__CUDA_ARCH__)
  return __umulhi(sum + dv.half, dv.mul) >> (dv.shift - 32);
#else
  return roundDiv(sum, dv);
#endif
}

// The checks both backends make; false when there is nothing to do (empty image).
inline bool checkBlurArgs(ConstRgbaView in, ConstRgbaView out, const BlurParams& p, int maxWidth,
                          int maxHeight, const char* who) {
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  if (p.radius < 0 || p.radius > kMaxBlurRadius)
    fail("radius " + std::to_string(p.radius) + " outside 0.." + std::to_string(kMaxBlurRadius));
  if (p.passes < 1 || p.passes > kMaxBlurPasses)
    fail("passes " + std::to_string(p.passes) + " outside 1.." + std::to_string(kMaxBlurPasses));
  return checkFilterViews(in, out, p.border, maxWidth, maxHeight, fail);
}

}  // namespace vp::blur
