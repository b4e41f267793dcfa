#include "gpu/filters/registry.h"

#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/median/median_filter.h"

namespace vp {

const std::vector<const FilterInfo*>& filterRegistry() {
  static const std::vector<const FilterInfo*> kFilters = {
      &kKmeansFilter,
      &kBlurFilter,
      &kMedianFilter,
  };
  return kFilters;
}

const FilterInfo* findFilter(std::string_view name) {
  for (const FilterInfo* f : filterRegistry())
    if (name == f->name) return f;
  return nullptr;
}

}  // namespace vp
