// Gaussian blur as a chain element (`gauss=sigma=2:border=replicate`): its option table,
// commands and keys, and the typed view of an element's values. Kernels and contract:
// gauss.h.
#pragma once

#include "gpu/filters/filter.h"
#include "gpu/filters/gauss/gauss_params.h"

namespace vp {

extern const FilterInfo kGaussFilter;

GaussParams gaussParamsOf(const FilterElement& element);
FilterElement gaussElement(const GaussParams& params);

}  // namespace vp
