// The processing chain: the filters each frame goes through, in order, and the text
// form users write, ffmpeg's filtergraph syntax for a linear chain:
//
//   CHAIN   := "none" | "" | ELEMENT ("," ELEMENT)*
//   ELEMENT := NAME ["=" OPTION (":" OPTION)*]
//   OPTION  := KEY "=" VALUE | VALUE          (a bare VALUE fills the next option in table order)
//
// e.g. "blur=r=3,kmeans=k=6", "kmeans=6", "blur=r=2:border=wrap". Blanks around names and
// values are ignored; a value may be quoted with '...' to hold ',' ':' or '='. Options not
// given take the defaults the caller passes (the registry's, or those set by the
// --mode/-k/-r shorthands). Elements are labelled by filter and position: "blur#1",
// "kmeans#2".
//
// Fixed capacity (kMaxChainLength) so that copying a chain with each frame allocates
// nothing.
#pragma once

#include "gpu/filters/filter.h"

#include <array>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vp {

class FilterChain {
 public:
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const FilterElement& operator[](int i) const { return elements_[size_t(i)]; }
  FilterElement& operator[](int i) { return elements_[size_t(i)]; }
  const FilterElement* begin() const { return elements_.data(); }
  const FilterElement* end() const { return elements_.data() + size_; }
  // Appends; throws std::invalid_argument when the chain is full.
  void add(const FilterElement& element);
  // Removes element i (0-based).
  void remove(int i);
  void clear() { size_ = 0; }
  // Elements that run (not toggled off).
  int enabledCount() const;
  // True when both chains use the same filters in the same order (options and enabled
  // flags aside): the processor keeps its per-element state across such a change.
  bool sameShape(const FilterChain& o) const;
  // Index of the first element of filter `name` (at or after `from`), or -1.
  int find(std::string_view name, int from = 0) const;

  bool operator==(const FilterChain& o) const;
  bool operator!=(const FilterChain& o) const { return !(*this == o); }

 private:
  std::array<FilterElement, kMaxChainLength> elements_{};
  int size_ = 0;
};

// A bad chain string: what() names the position (0-based character offset) and what was
// expected there, e.g. "at 7: unknown option 'q' of kmeans (k, iterations, ...)".
class ChainError : public std::invalid_argument {
 public:
  ChainError(size_t position, const std::string& what);
  size_t position() const { return position_; }

 private:
  size_t position_;
};

// The element a filter name starts with, its options at their defaults; the caller may
// supply other defaults (the shorthands). nullptr: the registry's.
using ElementDefaults = std::function<FilterElement(const FilterInfo&)>;

// Parses chain text; throws ChainError.
FilterChain parseChain(std::string_view text, const ElementDefaults& defaults = nullptr);
// Parses one element ("kmeans=k=6"); throws ChainError.
FilterElement parseElement(std::string_view text, const ElementDefaults& defaults = nullptr);

// Canonical text: every option, in table order ("kmeans=k=8:iterations=20:..."); "none"
// for the empty chain. parseChain(formatChain(c)) == c for enabled elements.
std::string formatChain(const FilterChain& chain);
std::string formatElement(const FilterElement& element);
// The options that differ from the registry defaults ("kmeans=k=6", "blur"): for logs.
std::string describeElement(const FilterElement& element);
std::string describeChain(const FilterChain& chain);
// "kmeans#2": the element's filter and its 1-based position.
std::string elementLabel(const FilterChain& chain, int i);

// Finds the element a command addresses: "" (the first element that has `option`),
// "2" (position, 1-based), "kmeans" (the first of that filter) or "kmeans#2" (position 2,
// which must be a kmeans). Returns its index; throws std::invalid_argument saying why
// there is none.
int resolveElement(const FilterChain& chain, std::string_view target, std::string_view option);

}  // namespace vp
