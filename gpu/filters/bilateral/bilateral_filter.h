// The bilateral filter as a chain element (`bilateral=r=5:sigma_s=3:sigma_r=30`): its
// option table, commands and keys, and the typed view of an element's values. Kernels
// and contract: bilateral.h.
#pragma once

#include "gpu/filters/bilateral/bilateral_params.h"
#include "gpu/filters/filter.h"

namespace vp {

extern const FilterInfo kBilateralFilter;

BilateralParams bilateralParamsOf(const FilterElement& element);
FilterElement bilateralElement(const BilateralParams& params);

}  // namespace vp
