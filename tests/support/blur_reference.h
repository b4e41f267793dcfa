// The box blur by its definition, for tests: the border extension written plainly and a
// direct (2r+1)^2 window sum per pixel, integer round half up. No code shared with
// gpu/blur beyond the parameter types.
#pragma once

#include "gpu/filters/blur/box_blur.h"
#include "gpu/image.h"

namespace vp::test::ref {

// The source index for index `i` of an axis of `n` samples under `mode`; -1: a zero sample.
int extend(int i, int n, BorderMode mode);
// One output pixel (alpha kept from the input).
uchar4 naivePixel(const HostImage& in, int x, int y, int r, BorderMode mode);
// The whole blur, `p.passes` times.
HostImage naiveBlur(HostImage img, const BlurParams& p);

}  // namespace vp::test::ref
