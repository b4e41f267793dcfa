#include "support/blur_reference.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace vp::test::ref {

// Fold or wrap step by step.
int extend(int i, int n, BorderMode mode) {
  switch (mode) {
    case BorderMode::Zero:
      return (i < 0 || i >= n) ? -1 : i;
    case BorderMode::Replicate:
      return std::clamp(i, 0, n - 1);
    case BorderMode::Wrap:
      while (i < 0) i += n;
      while (i >= n) i -= n;
      return i;
    case BorderMode::Reflect:
      if (n == 1) return 0;
      while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
  }
  return -1;
}

uchar4 naivePixel(const HostImage& in, int x, int y, int r, BorderMode mode) {
  uint32_t sum[3] = {0, 0, 0};
  for (int dy = -r; dy <= r; ++dy) {
    const int sy = extend(y + dy, in.height(), mode);
    for (int dx = -r; dx <= r; ++dx) {
      const int sx = extend(x + dx, in.width(), mode);
      if (sx < 0 || sy < 0) continue;
      const uchar4 v = in.at(sx, sy);
      sum[0] += v.x;
      sum[1] += v.y;
      sum[2] += v.z;
    }
  }
  const uint32_t area = uint32_t(2 * r + 1) * uint32_t(2 * r + 1);
  return make_uchar4(uint8_t((sum[0] + area / 2) / area), uint8_t((sum[1] + area / 2) / area),
                     uint8_t((sum[2] + area / 2) / area), in.at(x, y).w);
}

HostImage naiveBlur(HostImage img, const BlurParams& p) {
  for (int pass = 0; pass < p.passes; ++pass) {
    HostImage next(img.width(), img.height());
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x) next.at(x, y) = naivePixel(img, x, y, p.radius, p.border);
    img = std::move(next);
  }
  return img;
}

}  // namespace vp::test::ref
