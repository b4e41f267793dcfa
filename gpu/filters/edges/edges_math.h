// The edge filter's arithmetic (edges.h), shared by the kernel and its CPU twin: luma,
// the Sobel magnitude with an exact rounded square root, the output pixel, and the argument
// checks.
#pragma once

#include "gpu/filters/common/exact_float.h"
#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/edges/edges.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp::edges {

// Y of a pixel word R | G << 8 | B << 16 | A << 24: (2126 R + 7152 G + 722 B + 5000) / 10000.
// The device forms the sum with two 2-way dot products (IDP2A) instead of three extracts and
// three multiply-adds: the same integer.
__host__ __device__ inline uint32_t lumaOf(uint32_t p) {
#ifdef __CUDA_ARCH__
  const uint32_t s = __dp2a_hi(722u, p, __dp2a_lo(2126u | 7152u << 16, p, 5000u));
#else
  const uint32_t s = 2126u * (p & 0xFFu) + 7152u * ((p >> 8) & 0xFFu) + 722u * ((p >> 16) & 0xFFu) + 5000u;
#endif
  return s / 10000u;
}

// round(sqrt(n)) for n <= 65280 (so the result is <= 255), exactly. n is exact in float
// (bits of 2^23 + n, minus 2^23); s is its square root, and s + 2^23, rounded to an integer,
// is round(sqrt(n)) whenever |s - sqrt(n)| < 1/2048: sqrt(n) is never within 1/2048 of a
// half-integer (|n - (m + 1/2)^2| >= 1/4 over sqrt(n) + m + 1/2 <= 512;
// docs/design/edges.md). The host takes the correctly rounded root (sqrtss, within 2^-17);
// the device the approximate one (sqrt.approx.ftz.f32: one MUFU instruction against the
// correctly rounded root's ~8, relative error ~2^-22, so within 2^-14 below 256).
// EdgesMath.RoundedSquareRootIsExact checks every n on the host,
// EdgesGpu.RoundedSquareRootIsExactOnTheDevice every n on the device.
__host__ __device__ inline uint32_t roundSqrt65280(uint32_t n) {
  constexpr float k2p23 = 8388608.f;  // bits 0x4B000000
  const float f = subRn(floatOf(0x4B000000u | n), k2p23);
#ifdef __CUDA_ARCH__
  float s;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(f));
#else
  const float s = sqrtRn(f);
#endif
  return bitsOf(addRn(s, k2p23)) - 0x4B000000u;
}

// gx^2 + gy^2, clamped to 65280: past it the rounded root is >= 255 (round(sqrt(65280)) = 255),
// so the clamp changes no magnitude after the min with 255.
__host__ __device__ inline uint32_t sobelSquare(int gx, int gy) {
  const uint32_t n = uint32_t(gx * gx + gy * gy);
  return n < 65280u ? n : 65280u;
}

// M = min(255, round(sqrt(gx^2 + gy^2))).
__host__ __device__ inline uint32_t sobelMagnitude(int gx, int gy) {
  return roundSqrt65280(sobelSquare(gx, gy));
}

// The least clamped square n with M >= t: 0 for t = 0; else M >= t <=> sqrt(n) >= t - 1/2
// <=> n >= t^2 - t + 1/4 <=> n >= t^2 - t + 1 (integers; <= 64771 < 65280 for t <= 255, so
// the clamp does not move it). The overlay needs no root.
__host__ __device__ inline uint32_t overlaySquare(int t) { return t == 0 ? 0u : uint32_t(t * t - t + 1); }

// The output pixel word for the clamped squared magnitude n (sobelSquare) over input pixel
// word p: (M, M, M, alpha), or with the overlay (0, 0, 0, alpha) where M >= t, else p.
__host__ __device__ inline uint32_t edgePixel(uint32_t n, uint32_t p, const EdgesParams& params) {
  const uint32_t alpha = p & 0xFF000000u;
  if (params.overlay) return n >= overlaySquare(params.threshold) ? alpha : p;
  const uint32_t m = roundSqrt65280(n);
  return m | m << 8 | m << 16 | alpha;
}

// The clamped squared Sobel magnitude of the 3x3 luma neighbourhood y[row][col] (row 0
// above, col 0 left).
__host__ __device__ inline uint32_t sobelAt(const uint32_t (&y)[3][3]) {
  const int gx = int(y[0][2] + 2 * y[1][2] + y[2][2]) - int(y[0][0] + 2 * y[1][0] + y[2][0]);
  const int gy = int(y[2][0] + 2 * y[2][1] + y[2][2]) - int(y[0][0] + 2 * y[0][1] + y[0][2]);
  return sobelSquare(gx, gy);
}

// The checks both backends make; false when there is nothing to do (empty image).
inline bool checkEdgesArgs(ConstRgbaView in, ConstRgbaView out, const EdgesParams& p, const char* who,
                           int maxWidth = kMaxEdgesDimension, int maxHeight = kMaxEdgesDimension) {
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  if (p.threshold < 0 || p.threshold > kMaxEdgesThreshold)
    fail("threshold " + std::to_string(p.threshold) + " outside 0.." + std::to_string(kMaxEdgesThreshold));
  return checkFilterViews(in, out, BorderMode::Replicate, maxWidth, maxHeight, fail);
}


}  // namespace vp::edges
