// The per-element implementations a processor holds for its chain's shape, rebuilt when
// the shape changes. An element keeps its implementation (and so its state: K-means warm
// starts, scene-cut history) when the new chain has the same filter at the same place
// among that filter's elements: inserting a blur before a kmeans keeps the kmeans warm.
#pragma once

#include "gpu/filters/chain.h"

#include <memory>
#include <vector>

namespace vp::detail {

template <class Impl>
struct ChainElements {
  FilterChain shape;                         // the chain the implementations were made for
  std::vector<std::unique_ptr<Impl>> impls;  // one per element of shape

  // Makes `chain` the shape. `make(info)` creates an implementation; `fresh(impl)` is
  // called for each new one (the backend sizes it). Keeps the old ones that match.
  template <class Make, class Fresh>
  void reshape(const FilterChain& chain, Make make, Fresh fresh) {
    std::vector<std::unique_ptr<Impl>> next;
    for (int i = 0; i < chain.size(); ++i) {
      const FilterInfo* info = &chain[i].filter();
      int occurrence = 0;  // how many elements of this filter come before i
      for (int j = 0; j < i; ++j) occurrence += &chain[j].filter() == info;
      std::unique_ptr<Impl> kept;
      for (int j = 0, seen = 0; j < shape.size() && !kept; ++j)
        if (&shape[j].filter() == info && seen++ == occurrence) kept = std::move(impls[size_t(j)]);
      if (!kept) {
        kept = make(*info);
        fresh(*kept);
      }
      next.push_back(std::move(kept));
    }
    impls = std::move(next);
    shape = chain;
  }
};

}  // namespace vp::detail
