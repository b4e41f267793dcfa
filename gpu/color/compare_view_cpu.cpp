#include "gpu/color/compare_view.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace vp {

int splitColumn(float split, int width) {
  return std::clamp(int(std::lround(double(split) * width)), 0, width);
}

int compareWidth(CompareMode mode, int width) { return mode == CompareMode::Side ? 2 * width : width; }

void detail::checkCompareArgs(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                              const uint8_t* dst, size_t dstPitch, const char* who) {
  auto fail = [&](const char* what) { throw std::invalid_argument(std::string(who) + ": " + what); };
  if (original.empty() || !original.data || !processed.data) fail("empty frame");
  if (original.width != processed.width || original.height != processed.height) fail("frames of different sizes");
  if (mode == CompareMode::Off) fail("compare mode off (use rgbaToRgb24)");
  if (!(split >= 0.f && split <= 1.f)) fail("split outside 0..1");
  if (!dst || dstPitch < size_t(compareWidth(mode, original.width)) * 3) fail("destination pitch too small");
}

void composeCompareCpu(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                       uint8_t* dst, size_t dstPitch) {
  detail::checkCompareArgs(original, processed, mode, split, dst, dstPitch, "composeCompareCpu");
  const int column = splitColumn(split, original.width), outW = compareWidth(mode, original.width);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < original.height; ++y) {
    uint8_t* out = dst + size_t(y) * dstPitch;
    for (int x = 0; x < outW; ++x) {
      const uchar4 p = detail::comparePixel(original, processed, mode, x, y, column);
      out[3 * x] = p.x;
      out[3 * x + 1] = p.y;
      out[3 * x + 2] = p.z;
    }
  }
}

}  // namespace vp
