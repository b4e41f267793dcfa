#include "support/bilateral_reference.h"

#include "support/blur_reference.h"  // extend(): the border extension written plainly

#include <cmath>
#include <string>

namespace vp::test::ref {

std::array<double, 3> bilateralExact(const HostImage& in, int x, int y, const BilateralParams& p) {
  const double s2 = 2.0 * double(p.sigmaSpace) * double(p.sigmaSpace);
  const double v2 = 2.0 * double(p.sigmaRange) * double(p.sigmaRange);
  const uchar4 c = in.at(x, y);
  double sum[3] = {0, 0, 0}, weights = 0;
  for (int dy = -p.radius; dy <= p.radius; ++dy) {
    const int sy = extend(y + dy, in.height(), p.border);
    for (int dx = -p.radius; dx <= p.radius; ++dx) {
      const int sx = extend(x + dx, in.width(), p.border);
      const uchar4 q = (sx < 0 || sy < 0) ? make_uchar4(0, 0, 0, 0) : in.at(sx, sy);
      const double dr = double(q.x) - c.x, dg = double(q.y) - c.y, db = double(q.z) - c.z;
      const double w = std::exp(-double(dx * dx + dy * dy) / s2) * std::exp(-(dr * dr + dg * dg + db * db) / v2);
      sum[0] += w * q.x;
      sum[1] += w * q.y;
      sum[2] += w * q.z;
      weights += w;
    }
  }
  return {sum[0] / weights, sum[1] / weights, sum[2] / weights};
}

HostImage bilateralFilter(const HostImage& in, const BilateralParams& p) {
  HostImage out(in.width(), in.height());
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x) {
      const std::array<double, 3> v = bilateralExact(in, x, y, p);
      const auto level = [](double c) { return uint8_t(std::lround(c)); };
      out.at(x, y) = make_uchar4(level(v[0]), level(v[1]), level(v[2]), in.at(x, y).w);
    }
  return out;
}

double bilateralError(const HostImage& got, const HostImage& in, const BilateralParams& p, std::string* where) {
  double worst = 0;
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x) {
      const uchar4 g = got.at(x, y);
      if (g.w != in.at(x, y).w) {
        if (where) *where = "at (" + std::to_string(x) + "," + std::to_string(y) + "): alpha changed";
        return 1000;
      }
      const std::array<double, 3> v = bilateralExact(in, x, y, p);
      const uint8_t c[3] = {g.x, g.y, g.z};
      for (int k = 0; k < 3; ++k)
        if (std::fabs(c[k] - v[size_t(k)]) > worst) {
          worst = std::fabs(c[k] - v[size_t(k)]);
          if (where)
            *where = "at (" + std::to_string(x) + "," + std::to_string(y) + ") channel " + std::to_string(k) +
                     ": got " + std::to_string(int(c[k])) + ", exact " + std::to_string(v[size_t(k)]);
        }
    }
  return worst;
}

}  // namespace vp::test::ref
