#include "support/edges_reference.h"

#include <algorithm>
#include <cmath>

namespace vp::test::ref {

int edgesLuma(uchar4 v) {
  const double y = (2126.0 * v.x + 7152.0 * v.y + 722.0 * v.z) / 10000.0;
  return int(std::floor(y + 0.5));
}

int edgesMagnitude(int64_t n) { return int(std::min(255.0, std::floor(std::sqrt(double(n)) + 0.5))); }

int edgesMagnitudeAt(const HostImage& in, int x, int y) {
  auto lum = [&](int dx, int dy) {
    const int sx = std::clamp(x + dx, 0, in.width() - 1), sy = std::clamp(y + dy, 0, in.height() - 1);
    return edgesLuma(in.at(sx, sy));
  };
  static const int kx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};  // [dy + 1][dx + 1]
  int gx = 0, gy = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      gx += kx[dy + 1][dx + 1] * lum(dx, dy);
      gy += kx[dx + 1][dy + 1] * lum(dx, dy);  // the transpose: rows below minus rows above
    }
  return edgesMagnitude(int64_t(gx) * gx + int64_t(gy) * gy);
}

HostImage edgesFilter(const HostImage& in, const EdgesParams& p) {
  HostImage out(in.width(), in.height());
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x) {
      const uchar4 v = in.at(x, y);
      const int m = edgesMagnitudeAt(in, x, y);
      if (!p.overlay)
        out.at(x, y) = make_uchar4(uint8_t(m), uint8_t(m), uint8_t(m), v.w);
      else
        out.at(x, y) = m >= p.threshold ? make_uchar4(0, 0, 0, v.w) : v;
    }
  return out;
}

}  // namespace vp::test::ref
