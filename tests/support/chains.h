// Test helpers for the filter chain: one-filter ProcessParams (what --mode and its
// shorthands give) and typed access to a chain's first element of a filter.
#pragma once

#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/processor.h"

namespace vp::test {

inline ProcessParams kmeansParams(const KmeansParams& k = {}, bool warm = true) {
  ProcessParams p;
  p.chain.add(kmeansElement(k, warm));
  return p;
}

inline ProcessParams blurParams(const BlurParams& b = {}) {
  ProcessParams p;
  p.chain.add(blurElement(b));
  return p;
}

// The first element of `filter` in the chain, or nullptr.
inline const FilterElement* firstOf(const ProcessParams& p, const FilterInfo& filter) {
  const int i = p.chain.find(filter.name);
  return i < 0 ? nullptr : &p.chain[i];
}

// The one-filter chain's filter name ("kmeans", "blur"), "none" when empty, "chain" when longer.
inline std::string chainMode(const ProcessParams& p) {
  if (p.chain.empty()) return "none";
  return p.chain.size() == 1 ? std::string(p.chain[0].name()) : "chain";
}

}  // namespace vp::test
