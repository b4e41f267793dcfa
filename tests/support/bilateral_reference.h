// The bilateral filter by its definition, in double precision, for tests: for each pixel p
// and each q of the (2r+1)^2 window (the border extension written plainly; a zero sample
// is black and takes part with its weight),
//   w(p, q) = exp(-|q - p|^2 / 2 sigmaSpace^2) * exp(-||I(q) - I(p)||^2 / 2 sigmaRange^2)
// with ||.|| the Euclidean distance of the RGB vectors, and channel c of the output
// sum w * I_c(q) / sum w, not rounded; alpha is the input's. No code shared with
// gpu/filters/bilateral beyond the parameter type.
#pragma once

#include "gpu/filters/bilateral/bilateral_params.h"
#include "gpu/image.h"

#include <array>
#include <string>

namespace vp::test::ref {

// One output pixel's r, g, b before rounding.
std::array<double, 3> bilateralExact(const HostImage& in, int x, int y, const BilateralParams& p);
// The whole filter, each channel rounded to nearest (alpha copied).
HostImage bilateralFilter(const HostImage& in, const BilateralParams& p);
// The largest |got - exact| over every pixel's r, g, b, in levels (alpha must be the
// input's: 1000 when one differs), and where it is ("at (x,y) channel c: got G, exact E").
double bilateralError(const HostImage& got, const HostImage& in, const BilateralParams& p, std::string* where = nullptr);

}  // namespace vp::test::ref
