// Sobel edges as a chain element (`edges=t=80:overlay=0`): its option table, commands
// and keys, and the typed view of an element's values. Kernel and contract: edges.h.
#pragma once

#include "gpu/filters/edges/edges_params.h"
#include "gpu/filters/filter.h"

namespace vp {

extern const FilterInfo kEdgesFilter;

EdgesParams edgesParamsOf(const FilterElement& element);
FilterElement edgesElement(const EdgesParams& params);

}  // namespace vp
