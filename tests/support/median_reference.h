// The median filter by its definition, for tests: the border extension written plainly
// and, per pixel and channel, the (2r+1)^2 window samples sorted and the middle one taken.
// No code shared with gpu/filters/median beyond the parameter types.
#pragma once

#include "gpu/filters/median/median_params.h"
#include "gpu/image.h"

namespace vp::test::ref {

// One output pixel (alpha kept from the input).
uchar4 medianPixel(const HostImage& in, int x, int y, int r, BorderMode mode);
// The whole filter.
HostImage medianFilter(const HostImage& in, const MedianParams& p);

}  // namespace vp::test::ref
