#include "support/median_reference.h"

#include "support/blur_reference.h"  // extend(): the border extension written plainly

#include <algorithm>
#include <cstdint>
#include <vector>

namespace vp::test::ref {
namespace {


}  // namespace

uchar4 medianPixel(const HostImage& in, int x, int y, int r, BorderMode mode) {
  std::vector<uint8_t> samples[3];
  for (int dy = -r; dy <= r; ++dy) {
    const int sy = extend(y + dy, in.height(), mode);
    for (int dx = -r; dx <= r; ++dx) {
      const int sx = extend(x + dx, in.width(), mode);
      const uchar4 v = (sx < 0 || sy < 0) ? make_uchar4(0, 0, 0, 0) : in.at(sx, sy);
      samples[0].push_back(v.x);
      samples[1].push_back(v.y);
      samples[2].push_back(v.z);
    }
  }
  uint8_t m[3];
  for (int c = 0; c < 3; ++c) {
    std::sort(samples[c].begin(), samples[c].end());
    m[c] = samples[c][samples[c].size() / 2];  // an odd count: the middle one
  }
  return make_uchar4(m[0], m[1], m[2], in.at(x, y).w);
}

HostImage medianFilter(const HostImage& in, const MedianParams& p) {
  HostImage out(in.width(), in.height());
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x) out.at(x, y) = medianPixel(in, x, y, p.radius, p.border);
  return out;
}

}  // namespace vp::test::ref
