// The filters vidproc knows, one line each in registry.cpp, in the order help lists them.
#pragma once

#include "gpu/filters/filter.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace vp {

const std::vector<const FilterInfo*>& filterRegistry();
// The filter called `name`, or nullptr.
const FilterInfo* findFilter(std::string_view name);
// Its position in filterRegistry() (tables kept per registered filter are indexed by it).
size_t registryIndex(const FilterInfo& filter);
// The registered names joined by `separator`: "kmeans, blur, median".
std::string filterNames(std::string_view separator);

}  // namespace vp
