// Helpers the median's kernels and its CPU twin share: the argument checks.
#pragma once

#include "gpu/filters/common/view_checks.h"
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
  return checkFilterViews(in, out, p.border, maxWidth, maxHeight, fail);
}


}  // namespace vp::median
