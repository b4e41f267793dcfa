#include "support/color_reference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace vp::test::ref {
namespace {

struct Coeffs {
  double kr, kb, kg;
};
Coeffs coeffs(Colour c) {
  const double kr = c.bt709 ? 0.2126 : 0.299, kb = c.bt709 ? 0.0722 : 0.114;
  return {kr, kb, 1.0 - kr - kb};
}

uint8_t toByte(double v) { return uint8_t(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

std::array<double, 3> rgbToYuv(double r, double g, double b, Colour c) {
  const Coeffs k = coeffs(c);
  r /= 255.0, g /= 255.0, b /= 255.0;
  const double ey = k.kr * r + k.kg * g + k.kb * b;
  const double pb = (b - ey) / (2.0 * (1.0 - k.kb)), pr = (r - ey) / (2.0 * (1.0 - k.kr));
  if (c.full) return {255.0 * ey, 128.0 + 255.0 * pb, 128.0 + 255.0 * pr};
  return {16.0 + 219.0 * ey, 128.0 + 224.0 * pb, 128.0 + 224.0 * pr};
}

std::array<double, 3> yuvToRgb(double y, double cb, double cr, Colour c) {
  const Coeffs k = coeffs(c);
  const double ey = c.full ? y / 255.0 : (y - 16.0) / 219.0;
  const double pb = (cb - 128.0) / (c.full ? 255.0 : 224.0), pr = (cr - 128.0) / (c.full ? 255.0 : 224.0);
  const double r = ey + 2.0 * (1.0 - k.kr) * pr, b = ey + 2.0 * (1.0 - k.kb) * pb;
  const double g = (ey - k.kr * r - k.kb * b) / k.kg;
  return {255.0 * r, 255.0 * g, 255.0 * b};
}

std::vector<uint8_t> yuv420pToRgb24(const std::vector<uint8_t>& frame, int width, int height, Colour c) {
  const size_t w = size_t(width), h = size_t(height), cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (frame.size() < w * h + 2 * cw * ch) throw std::invalid_argument("yuv420pToRgb24: frame too small");
  const uint8_t *yp = frame.data(), *up = yp + w * h, *vp = up + cw * ch;
  std::vector<uint8_t> rgb(w * h * 3);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x) {
      const size_t ci = (y / 2) * cw + x / 2;
      const auto p = yuvToRgb(yp[y * w + x], up[ci], vp[ci], c);
      for (int i = 0; i < 3; ++i) rgb[(y * w + x) * 3 + size_t(i)] = toByte(p[size_t(i)]);
    }
  return rgb;
}

ByteDiff diffBytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("diffBytes: sizes differ");
  ByteDiff d;
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int e = std::abs(int(a[i]) - int(b[i]));
    sum += e;
    if (e > d.max) d.max = e, d.at = i;
  }
  d.mean = a.empty() ? 0 : sum / double(a.size());
  return d;
}

}  // namespace vp::test::ref
