// The argument checks every filter makes of its views and workspace sizes, one copy.
#pragma once

#include "gpu/filters/common/border.h"
#include "gpu/image.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace vp {

inline bool viewsOverlap(ConstRgbaView a, ConstRgbaView b) {
  const char* a0 = reinterpret_cast<const char*>(a.data);
  const char* b0 = reinterpret_cast<const char*>(b.data);
  const char* a1 = a0 + a.pitch * size_t(a.height - 1) + size_t(a.width) * sizeof(uchar4);
  const char* b1 = b0 + b.pitch * size_t(b.height - 1) + size_t(b.width) * sizeof(uchar4);
  return a0 < b1 && b0 < a1;
}

// The checks of one filter's input and output views (border, sizes against the scratch,
// alignment, overlap); `fail(why)` throws. False when there is nothing to do (empty image).
template <class Fail>
bool checkFilterViews(ConstRgbaView in, ConstRgbaView out, BorderMode border, int maxWidth, int maxHeight,
                      const Fail& fail) {
  if (border != BorderMode::Zero && border != BorderMode::Replicate && border != BorderMode::Reflect &&
      border != BorderMode::Wrap)
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
      reinterpret_cast<uintptr_t>(in.data) % sizeof(uchar4) || reinterpret_cast<uintptr_t>(out.data) % sizeof(uchar4))
    fail("rows not 4-byte aligned");
  if (viewsOverlap(in, out)) fail("input and output overlap");
  return true;
}

// A workspace's size: each side within 1..limit, else std::invalid_argument naming `who`.
inline void checkDimensions(int maxWidth, int maxHeight, int limit, const char* who) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > limit || maxHeight > limit)
    throw std::invalid_argument(std::string(who) + ": size outside 1.." + std::to_string(limit));
}

}  // namespace vp
