// The bilateral filter's arithmetic, shared by its kernel and its CPU twin (bilateral.h):
// the weight tables (host, once per call), one tap's weight, the sums and the output
// pixel, and the argument checks. Every float step is one IEEE operation rounded to
// nearest (exact_float.h), in the order written here, on both sides.
#pragma once

#include "gpu/filters/bilateral/bilateral.h"
#include "gpu/filters/common/exact_float.h"
#include "gpu/filters/common/view_checks.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp::bilateral {

// The weights in log2 units, computed in double and rounded to float once (host):
//   rangeScale = -log2(e) / (2 V^2)                  (times the squared RGB distance)
//   spatial[i] = -(i - r)^2 log2(e) / (2 S^2), i = 0..2r (offset i - r on either axis).
// A kernel parameter of 132 bytes: 32 floats and an int.
struct Tables {
  float rangeScale = 0;
  float spatial[2 * kMaxBilateralRadius + 1] = {};
  int radius = 0;
};

inline Tables makeTables(const BilateralParams& p) {
  constexpr double kLog2e = 1.4426950408889634074;
  Tables t;
  t.radius = p.radius;
  const double s = p.sigmaSpace, v = p.sigmaRange;
  t.rangeScale = static_cast<float>(-kLog2e / (2.0 * v * v));
  for (int i = 0; i <= 2 * p.radius; ++i) {
    const double d = i - p.radius;
    t.spatial[i] = static_cast<float>(-d * d * kLog2e / (2.0 * s * s));
  }
  return t;
}

// 2^x below this is taken as 2^kMinExponent (a weight under 3e-38 against the centre's 1):
// keeps 2^n a normal float.
constexpr float kMinExponent = -125.f;
// x + kRoundMagic rounds x (|x| < 2^22) to an integer n held in the low mantissa bits.
constexpr float kRoundMagic = 12582912.f;  // 1.5 * 2^23, bits 0x4B400000
// 2^f on [-1/2, 1/2], relative minimax of degree 3 (Remez), coefficients rounded to float:
// relative error < 7.5e-5 (docs/design/bilateral.md).
constexpr float kExp2C0 = 0x1.fff692p-1f;
constexpr float kExp2C1 = 0x1.62f31ap-1f;
constexpr float kExp2C2 = 0x1.f0de1ap-3f;
constexpr float kExp2C3 = 0x1.c3f76p-5f;

// The weight of one tap: 2^x, x = (d2 * rangeScale + ax) + ay, x <= 0. d2 is the exact
// squared RGB distance (an integer <= 195075, exact in float); ax, ay the spatial terms
// of the tap's offsets. Range reduction: n = round(x) (ties to even), f = x - n exact in
// [-1/2, 1/2]; 2^x = p(f) * 2^n, the 2^n applied by adding n to p's exponent field: bits(t)
// = 0x4B400000 + n, so bits(t) * 2^23 = n << 23 modulo 2^32. The result is a normal float
// in [2^-125 (1 - 7.5e-5), 1 + 7.5e-5].
__host__ __device__ inline float tapWeight(float d2, float ax, float ay, float rangeScale) {
  float x = addRn(fmaRn(d2, rangeScale, ax), ay);
  x = x > kMinExponent ? x : kMinExponent;
  const float t = addRn(x, kRoundMagic);
  const float f = subRn(x, subRn(t, kRoundMagic));
  const float p = fmaRn(fmaRn(fmaRn(kExp2C3, f, kExp2C2), f, kExp2C1), f, kExp2C0);
  return floatOf(bitsOf(t) * (uint32_t(1) << 23) + bitsOf(p));
}

// A window's running sums: the weights and the weighted R, G, B.
struct Sums {
  float w = 0, r = 0, g = 0, b = 0;
};

__host__ __device__ inline void addTap(Sums& s, float w, float r, float g, float b) {
  s.w = addRn(s.w, w);
  s.r = fmaRn(w, r, s.r);
  s.g = fmaRn(w, g, s.g);
  s.b = fmaRn(w, b, s.b);
}

// sum / w rounded half up to a level (the quotient is <= 255.03: clamped).
__host__ __device__ inline uint32_t levelOf(float sum, float w) {
  const uint32_t v = static_cast<uint32_t>(addRn(divRn(sum, w), 0.5f));
  return v < 255u ? v : 255u;
}

// The output pixel R | G << 8 | B << 16 | alpha << 24.
__host__ __device__ inline uint32_t outputPixel(const Sums& s, uint32_t alpha) {
  return levelOf(s.r, s.w) | levelOf(s.g, s.w) << 8 | levelOf(s.b, s.w) << 16 | alpha << 24;
}

inline bool sigmaInRange(float v, float lo, float hi) { return std::isfinite(v) && v >= lo && v <= hi; }

// The checks both backends make; false when there is nothing to do (empty image).
inline bool checkBilateralArgs(ConstRgbaView in, ConstRgbaView out, const BilateralParams& p, int maxWidth,
                               int maxHeight, const char* who) {
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  if (p.radius < kMinBilateralRadius || p.radius > kMaxBilateralRadius)
    fail("radius " + std::to_string(p.radius) + " outside " + std::to_string(kMinBilateralRadius) + ".." +
         std::to_string(kMaxBilateralRadius));
  if (!sigmaInRange(p.sigmaSpace, kMinBilateralSigmaSpace, kMaxBilateralSigmaSpace))
    fail("sigma_s " + std::to_string(p.sigmaSpace) + " outside " + std::to_string(kMinBilateralSigmaSpace) +
         ".." + std::to_string(kMaxBilateralSigmaSpace));
  if (!sigmaInRange(p.sigmaRange, kMinBilateralSigmaRange, kMaxBilateralSigmaRange))
    fail("sigma_r " + std::to_string(p.sigmaRange) + " outside " + std::to_string(kMinBilateralSigmaRange) +
         ".." + std::to_string(kMaxBilateralSigmaRange));
  return checkFilterViews(in, out, p.border, maxWidth, maxHeight, fail);
}

}  // namespace vp::bilateral
