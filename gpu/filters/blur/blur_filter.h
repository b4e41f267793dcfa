// Box blur as a chain element (`blur=r=5:passes=1:border=replicate`): its option table,
// commands and keys, and the typed view of an element's values. Kernels and contract:
// box_blur.h.
#pragma once

#include "gpu/filters/blur/box_blur.h"
#include "gpu/filters/filter.h"

namespace vp {

extern const FilterInfo kBlurFilter;

BlurParams blurParamsOf(const FilterElement& element);
FilterElement blurElement(const BlurParams& params);

}  // namespace vp
