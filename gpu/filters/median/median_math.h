// Helpers the median's kernels and its CPU twin share: the argument checks.
#pragma once

#include "gpu/filters/blur/box_blur_math.h"  // viewsOverlap, extendIndex
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
  if (p.border != BorderMode::Zero && p.border != BorderMode::Replicate && p.border != BorderMode::Reflect &&
      p.border != BorderMode::Wrap)
    fail("unknown border mode");
  if (in.width != out.width || in.height != out.height) fail("input and output sizes differ");
  if (in.width < 0 || in.height < 0) fail("negative size");
  if (in.empty()) return false;
  if (in.width > maxWidth || in.height > maxHeight)
    fail(std::to_string(in.width) + "x" + std::to_string(in.height) + " exceeds the scratch size " +
         std::to_string(maxWidth) + "x" + std::to_string(maxHeight));
  if (!in.data || !out.data) fail("null image");
  const size_t rowBytes = size_t(in.width) * sizeof(uchar4);
  if (in.pitch < rowBytes || out.pitch < rowBytes) fail("pitch smaller than a row");
  if (in.pitch % sizeof(uchar4) || out.pitch % sizeof(uchar4) ||
      reinterpret_cast<uintptr_t>(in.data) % sizeof(uchar4) ||
      reinterpret_cast<uintptr_t>(out.data) % sizeof(uchar4))
    fail("rows not 4-byte aligned");
  if (blur::viewsOverlap(in, out)) fail("input and output overlap");
  return true;
}

inline void checkDimensions(int maxWidth, int maxHeight, const char* who) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxMedianDimension || maxHeight > kMaxMedianDimension)
    throw std::invalid_argument(std::string(who) + ": size outside 1.." +
                                std::to_string(kMaxMedianDimension));
}

}  // namespace vp::median
