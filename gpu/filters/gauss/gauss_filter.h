// Gaussian blur as a chain element (`gauss=sigma=2:border=replicate`): its option table and
// the typed view of an element's values. Kernels and contract: gauss.h.
#pragma once

#include "gpu/filters/filter.h"
#include "gpu/filters/gauss/gauss_params.h"

namespace vp {

// Option indices, in table order.
namespace gauss_option {
enum : int { Sigma, Border };
}

extern const FilterInfo kGaussFilter;

GaussParams gaussParamsOf(const FilterElement& element);
FilterElement gaussElement(const GaussParams& params);

}  // namespace vp
