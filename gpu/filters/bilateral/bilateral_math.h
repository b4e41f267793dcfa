// The bilateral filter's arithmetic, shared by its kernel and its CPU twin (bilateral.h):
// the parameters (host, once per call), the weight tables built from them (the kernel's
// high per block, its lowSpatial per lane in registers, the twin's per call: the same float
// operations), one tap's weight, the sums and the output pixel, and the argument checks.
// Every float step is one IEEE operation rounded to nearest (exact_float.h), in the order
// written here, on both sides.
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

// Computed in double on the host and rounded to float once:
//   rangeScale = -log2(e) / (2 V^2)            (log2 of the range factor per unit of d2)
//   spatial[i] = exp(-i^2 / (2 S^2)), i = 0..r (the spatial factor of offset +-i on one axis)
// A kernel parameter of 72 bytes.
struct Tables {
  float rangeScale = 0;
  float spatial[kMaxBilateralRadius + 1] = {};
  int radius = 0;
};

inline Tables makeTables(const BilateralParams& p) {
  constexpr double kLog2e = 1.4426950408889634074;
  Tables t;
  t.radius = p.radius;
  const double s = p.sigmaSpace, v = p.sigmaRange;
  t.rangeScale = static_cast<float>(-kLog2e / (2.0 * v * v));
  for (int i = 0; i <= p.radius; ++i)
    t.spatial[i] = static_cast<float>(std::exp(-double(i * i) / (2.0 * s * s)));
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

// 2^x for x <= 0 (clamped at kMinExponent). Range reduction: n = round(x) (ties to even),
// f = x - n exact in [-1/2, 1/2]; 2^x = p(f) * 2^n, the 2^n applied by adding n to p's
// exponent field: bits(t) = 0x4B400000 + n, so bits(t) * 2^23 = n << 23 modulo 2^32. The
// result is a normal float in [2^-125 (1 - 7.5e-5), 1 + 7.5e-5]. Used for table entries only.
__host__ __device__ inline float pow2(float x) {
  x = x > kMinExponent ? x : kMinExponent;
  const float t = addRn(x, kRoundMagic);
  const float f = subRn(x, subRn(t, kRoundMagic));
  const float p = fmaRn(fmaRn(fmaRn(kExp2C3, f, kExp2C2), f, kExp2C1), f, kExp2C0);
  return floatOf(bitsOf(t) * (uint32_t(1) << 23) + bitsOf(p));
}

// The range factor exp(-d2 / 2V^2) of an exact integer d2 = 32 k + m (m < 32) is the
// product of two table entries, high[k] = 2^(32 k rangeScale) and low[m] = 2^(m rangeScale).
// The spatial factor is folded into the low table, one per |dy|, |dx| pair:
//   lowSpatial[(|dy| (r + 1) + |dx|) 32 + m] = (spatial[|dy|] spatial[|dx|]) low[m],
// so a tap's weight is one product of two entries (highIndex, lowIndex below).
constexpr int kLowBits = 5;  // highIndex's shift (written out there for the device)
constexpr uint32_t kLowEntries = 1u << kLowBits;
constexpr int kMaxSquaredDistance = 3 * 255 * 255;                   // 195075
constexpr int kHighEntries = (kMaxSquaredDistance >> kLowBits) + 1;  // 6097
__host__ __device__ constexpr int lowSpatialEntries(int r) { return (r + 1) * (r + 1) * int(kLowEntries); }
// |i - r|: the offset from the centre of window index i (0..2r) on one axis.
__host__ __device__ constexpr int axisOffset(int i, int r) { return i < r ? r - i : i - r; }
// The first lowSpatial entry of offsets (dx, dy), ax = |dx|, ay = |dy|.
__host__ __device__ constexpr int lowSpatialBase(int r, int ay, int ax) {
  return (ay * (r + 1) + ax) * int(kLowEntries);
}

__host__ __device__ inline float highEntry(int k, float rangeScale) {
  return pow2(mulRn(float(k * int(kLowEntries)), rangeScale));  // k * 32 <= 195072: exact
}
// low[m] = 2^(m rangeScale), m < 32, and the lowSpatial entry of offsets (|dy|, |dx|) = (ay, ax)
// built from it. The kernel computes them in registers (each lane its m), the twin into
// its table: the same operations.
__host__ __device__ inline float lowEntry(int m, float rangeScale) {
  return pow2(mulRn(float(m), rangeScale));
}
__host__ __device__ inline float lowSpatialOf(int ay, int ax, float low, const Tables& tab) {
  return mulRn(mulRn(tab.spatial[ay], tab.spatial[ax]), low);
}
// Entry e of lowSpatial (e < lowSpatialEntries(r), r = tab.radius).
__host__ __device__ inline float lowSpatialEntry(int e, int r, const Tables& tab) {
  const int pair = e >> kLowBits, ay = pair / (r + 1), ax = pair - ay * (r + 1);
  return lowSpatialOf(ay, ax, lowEntry(e & int(kLowEntries - 1), tab.rangeScale), tab);
}

// The word R | G << 8 | B << 16 of a pixel (alpha zero).
__host__ __device__ inline uint32_t packedRgb(uchar4 v) {
  return uint32_t(v.x) | uint32_t(v.y) << 8 | uint32_t(v.z) << 16;
}

// ||q - p||^2 of two words R | G << 8 | B << 16 with the alpha byte zero: an exact integer
// <= 195075. The kernel's two integer instructions (per-byte |q - p|, then its dot product
// with itself); the same integer on the host.
__host__ __device__ inline uint32_t squaredDistance(uint32_t q, uint32_t p) {
#ifdef __CUDA_ARCH__
  const uint32_t d = __vabsdiffu4(q, p);
  return __dp4a(d, d, 0u);
#else
  uint32_t d2 = 0;
  for (int c = 0; c < 32; c += 8) {
    const int d = int((q >> c) & 0xFFu) - int((p >> c) & 0xFFu);
    d2 += uint32_t(d * d);
  }
  return d2;
#endif
}

// A tap's weight is mulRn(high[highIndex(d2)], lowSpatial[lowSpatialBase(r, |dy|, |dx|) +
// lowIndex(d2)]), on both sides.
__host__ __device__ inline uint32_t highIndex(uint32_t d2) {
#ifdef __CUDA_ARCH__
  // Opaque to NVVM, which otherwise turns the load's (d2 >> 5) * 4 into (d2 >> 3) & ~3. It
  // was meant to let ptxas use a scaled-index shared load; it does not (the profile shows a
  // LEA per gather, bilateral.md), and either form costs two instructions.
  uint32_t k;
  asm("shr.u32 %0, %1, 5;" : "=r"(k) : "r"(d2));
  return k;
#else
  return d2 >> kLowBits;
#endif
}
__host__ __device__ inline uint32_t lowIndex(uint32_t d2) { return d2 & (kLowEntries - 1); }

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

// sum / w rounded half up to a level (the quotient is <= 255.05: clamped).
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
