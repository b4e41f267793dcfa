// The Gaussian blur by its definitions, for tests (contract: gpu/filters/gauss/gauss.h). No
// code shared with gpu/filters/gauss beyond the parameter types; the border extension is
// blur_reference.h's plain one.
//   gaussExact / gaussDouble: the definition in double precision (normalised sampled
//       weights, rows then columns in double, one rounding at the end): what the filter
//       must stay within 1 level of.
//   gaussFixed: the integer fixed-point computation gauss.h specifies, written as plain
//       loops: the bytes both backends must produce exactly.
#pragma once

#include "gpu/filters/gauss/gauss_params.h"
#include "gpu/image.h"

#include <cstdint>
#include <vector>

namespace vp::test::ref {

// R = ceil(3 sigma) and the normalised weights w(x), x = -R..R, at index x + R.
int gaussRadiusOf(double sigma);
std::vector<double> gaussWeights(double sigma);

// Per pixel and channel (R, G, B) the unrounded double-precision blur.
struct GaussExact {
  int width = 0, height = 0;
  std::vector<double> rgb;  // (y * width + x) * 3 + channel
  double at(int x, int y, int channel) const { return rgb[(size_t(y) * width + x) * 3 + channel]; }
};
GaussExact gaussExact(const HostImage& in, const GaussParams& p);
// gaussExact rounded half up to 8 bits, alpha copied.
HostImage gaussDouble(const HostImage& in, const GaussParams& p);

// The integer taps of gauss.h summing to 2^bits: q[0..R] (q[x] the weight of +-x).
std::vector<uint32_t> gaussFixedTaps(double sigma, int bits);
// gauss.h's fixed point: H = (sum qr v + 2^16) >> 17 along rows, out = (sum qc H + 2^23) >> 24
// along columns (qr: 2^24, qc: 2^17), border extension per axis, alpha copied.
HostImage gaussFixed(const HostImage& in, const GaussParams& p);

}  // namespace vp::test::ref
