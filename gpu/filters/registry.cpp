#include "gpu/filters/registry.h"

#include <algorithm>

#include "gpu/filters/bilateral/bilateral_filter.h"
#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/edges/edges_filter.h"
#include "gpu/filters/gauss/gauss_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/median/median_filter.h"
#include "gpu/filters/slic/slic_filter.h"

namespace vp {

const std::vector<const FilterInfo*>& filterRegistry() {
  static const std::vector<const FilterInfo*> kFilters = {
      &kKmeansFilter,
      &kBlurFilter,
      &kMedianFilter,
      &kGaussFilter,
      &kEdgesFilter,
      &kSlicFilter,
      &kBilateralFilter,
  };
  return kFilters;
}

const FilterInfo* findFilter(std::string_view name) {
  for (const FilterInfo* f : filterRegistry())
    if (name == f->name) return f;
  return nullptr;
}

size_t registryIndex(const FilterInfo& filter) {
  const auto& all = filterRegistry();
  return size_t(std::find(all.begin(), all.end(), &filter) - all.begin());
}

std::string filterNames(std::string_view separator) {
  std::string out;
  for (const FilterInfo* f : filterRegistry()) out += (out.empty() ? "" : std::string(separator)) + f->name;
  return out;
}

}  // namespace vp
