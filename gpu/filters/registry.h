// The filters vidproc knows, one line each in registry.cpp, in the order help lists them.
#pragma once

#include "gpu/filters/filter.h"

#include <string_view>
#include <vector>

namespace vp {

const std::vector<const FilterInfo*>& filterRegistry();
// The filter called `name`, or nullptr.
const FilterInfo* findFilter(std::string_view name);

}  // namespace vp
