// Helpers the median's kernels and its CPU twin share: the argument checks.
#pragma once

#include "gpu/filters/blur/box_blur_math.h"  // checkFilterViews, extendIndex
#include "gpu/filters/median/median.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp::median {

// The checks both backends make; false when there is nothing to do (empty image).
inline bool checkMedianArgs(ConstRgbaView in, ConstRgbaView out, const MedianParams& p, int maxWidth,
                            int maxHeight, const char* who) {
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  if (p.radius < kMinMedianRadius || p.radius > kMaxMedianRadius)
    fail("radius " + std::to_string(p.radius) + " outside " + std::to_string(kMinMedianRadius) + ".." +
         std::to_string(kMaxMedianRadius));
  return blur::checkFilterViews(in, out, p.border, maxWidth, maxHeight, fail);
}

inline void checkDimensions(int maxWidth, int maxHeight, const char* who) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxMedianDimension || maxHeight > kMaxMedianDimension)
    throw std::invalid_argument(std::string(who) + ": size outside 1.." +
                                std::to_string(kMaxMedianDimension));
}

}  // namespace vp::median
