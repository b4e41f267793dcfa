// Helpers the Gaussian blur's kernels and its CPU twin share: the two roundings of the
// contract (gauss.h) and the argument checks. Integer arithmetic only.
#pragma once

#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/gauss/gauss.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp::gauss {

// The two roundings' half-up offsets (the strip kernels add them at the start of a sum).
constexpr uint32_t kGaussRowRounding = uint32_t(1) << (kGaussRowShift - 1);        // 2^16
constexpr uint32_t kGaussColumnRounding = uint32_t(1) << (kGaussColumnShift - 1);  // 2^23

// H = (S + 2^16) >> 17: a row sum (<= 255 * 2^24) to 7 fractional bits, half up; <= 32640.
__host__ __device__ inline uint32_t roundRowSum(uint32_t s) {
  return (s + kGaussRowRounding) >> kGaussRowShift;
}
// out = (S + 2^23) >> 24: a column sum (<= 255 * 2^24) to 8 bits, half up; <= 255.
__host__ __device__ inline uint32_t roundColumnSum(uint32_t s) {
  return (s + kGaussColumnRounding) >> kGaussColumnShift;
}

inline bool sigmaInRange(double sigma) {
  return std::isfinite(sigma) && sigma >= kMinGaussSigma && sigma <= kMaxGaussSigma;
}

// The checks both backends make; false when there is nothing to do (empty image).
inline bool checkGaussArgs(ConstRgbaView in, ConstRgbaView out, const GaussParams& p, int maxWidth,
                           int maxHeight, const char* who) {
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  if (!sigmaInRange(p.sigma))
    fail("sigma " + std::to_string(p.sigma) + " outside " + std::to_string(kMinGaussSigma) + ".." +
         std::to_string(kMaxGaussSigma));
  return checkFilterViews(in, out, p.border, maxWidth, maxHeight, fail);
}


}  // namespace vp::gauss
