// Median filter as a chain element (`median=r=2:border=replicate`): its option table,
// commands and keys, and the typed view of an element's values. Kernels and contract:
// median.h.
#pragma once

#include "gpu/filters/filter.h"
#include "gpu/filters/median/median_params.h"

namespace vp {

extern const FilterInfo kMedianFilter;

MedianParams medianParamsOf(const FilterElement& element);
FilterElement medianElement(const MedianParams& params);

}  // namespace vp
