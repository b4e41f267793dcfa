#include "support/gauss_reference.h"

#include "support/blur_reference.h"  // extend: the border extension written plainly

#include <cmath>

namespace vp::test::ref {

int gaussRadiusOf(double sigma) { return int(std::ceil(3.0 * sigma)); }

std::vector<double> gaussWeights(double sigma) {
  const int r = gaussRadiusOf(sigma);
  std::vector<double> w(size_t(2 * r + 1));
  double sum = 0;
  for (int x = -r; x <= r; ++x) sum += w[size_t(x + r)] = std::exp(-double(x) * x / (2 * sigma * sigma));
  for (double& v : w) v /= sum;
  return w;
}

GaussExact gaussExact(const HostImage& in, const GaussParams& p) {
  const int w = in.width(), h = in.height(), r = gaussRadiusOf(p.sigma);
  const std::vector<double> k = gaussWeights(p.sigma);
  std::vector<double> rows(size_t(w) * h * 3, 0.0);  // the row pass, unrounded
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int i = -r; i <= r; ++i) {
        const int sx = extend(x + i, w, p.border);
        if (sx < 0) continue;
        const uchar4 v = in.at(sx, y);
        double* d = &rows[(size_t(y) * w + x) * 3];
        d[0] += k[size_t(i + r)] * v.x;
        d[1] += k[size_t(i + r)] * v.y;
        d[2] += k[size_t(i + r)] * v.z;
      }
  GaussExact out;
  out.width = w, out.height = h;
  out.rgb.assign(size_t(w) * h * 3, 0.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int j = -r; j <= r; ++j) {
        const int sy = extend(y + j, h, p.border);
        if (sy < 0) continue;
        for (int c = 0; c < 3; ++c)
          out.rgb[(size_t(y) * w + x) * 3 + c] += k[size_t(j + r)] * rows[(size_t(sy) * w + x) * 3 + c];
      }
  return out;
}

HostImage gaussDouble(const HostImage& in, const GaussParams& p) {
  const GaussExact e = gaussExact(in, p);
  HostImage out(in.width(), in.height());
  auto level = [](double v) { return uint8_t(std::fmin(255.0, std::fmax(0.0, std::floor(v + 0.5)))); };
  for (int y = 0; y < in.height(); ++y)
    for (int x = 0; x < in.width(); ++x)
      out.at(x, y) = make_uchar4(level(e.at(x, y, 0)), level(e.at(x, y, 1)), level(e.at(x, y, 2)), in.at(x, y).w);
  return out;
}

std::vector<uint32_t> gaussFixedTaps(double sigma, int bits) {
  // As gauss.h states it: e(x) = exp(-(x x) / d), d = (2 sigma) sigma; s = e(0) + 2 t with
  // t = e(1) + .. + e(R) in that order; q[x] = floor(e(x) / s 2^bits + 1/2); the residue on q[0].
  const int r = gaussRadiusOf(sigma);
  const double d = 2.0 * sigma * sigma;
  std::vector<double> e(size_t(r + 1));
  double t = 0;
  for (int x = 0; x <= r; ++x) e[size_t(x)] = std::exp(-double(x * x) / d);
  for (int x = 1; x <= r; ++x) t += e[size_t(x)];
  const double s = e[0] + 2.0 * t;
  std::vector<uint32_t> q(size_t(r + 1));
  int64_t rest = int64_t(1) << bits;
  for (int x = 1; x <= r; ++x) {
    q[size_t(x)] = uint32_t(std::floor(e[size_t(x)] / s * std::ldexp(1.0, bits) + 0.5));
    rest -= 2 * int64_t(q[size_t(x)]);
  }
  q[0] = uint32_t(rest);
  return q;
}

HostImage gaussFixed(const HostImage& in, const GaussParams& p) {
  const int w = in.width(), h = in.height(), r = gaussRadiusOf(p.sigma);
  const std::vector<uint32_t> qr = gaussFixedTaps(p.sigma, 24), qc = gaussFixedTaps(p.sigma, 17);
  std::vector<uint64_t> rows(size_t(w) * h * 3);  // H, 7 fractional bits
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint64_t s[3] = {0, 0, 0};  // 64-bit: the reference does not rely on the uint32 bound
      for (int i = -r; i <= r; ++i) {
        const int sx = extend(x + i, w, p.border);
        if (sx < 0) continue;
        const uchar4 v = in.at(sx, y);
        const uint64_t q = qr[size_t(std::abs(i))];
        s[0] += q * v.x, s[1] += q * v.y, s[2] += q * v.z;
      }
      for (int c = 0; c < 3; ++c) rows[(size_t(y) * w + x) * 3 + c] = (s[c] + (1u << 16)) >> 17;
    }
  HostImage out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint64_t s[3] = {0, 0, 0};
      for (int j = -r; j <= r; ++j) {
        const int sy = extend(y + j, h, p.border);
        if (sy < 0) continue;
        for (int c = 0; c < 3; ++c) s[c] += qc[size_t(std::abs(j))] * rows[(size_t(sy) * w + x) * 3 + c];
      }
      uint8_t v[3];
      for (int c = 0; c < 3; ++c) v[c] = uint8_t((s[c] + (1u << 23)) >> 24);
      out.at(x, y) = make_uchar4(v[0], v[1], v[2], in.at(x, y).w);
    }
  return out;
}

}  // namespace vp::test::ref
