// From a run's radius to a kernel's template radius: launchers instantiate their kernel for
// each radius of a fixed range and pick one at run time. Host code, for .cpp and .cu alike.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace vp {

namespace detail {
template <int Lo, class F, int... I>
bool withRadiusIn(int r, F& f, std::integer_sequence<int, I...>) {
  return ((r == Lo + I && ((void)f(std::integral_constant<int, Lo + I>{}), true)) || ...);
}
}  // namespace detail

// Calls f(std::integral_constant<int, R>{}) for R == r; instantiates f for every R in Lo..Hi.
// Throws std::invalid_argument("<what>: radius <r> outside <Lo>..<Hi>") for any other r.
template <int Lo, int Hi, class F>
void withRadius(int r, const char* what, F&& f) {
  static_assert(Lo <= Hi, "an empty radius range");
  if (!detail::withRadiusIn<Lo>(r, f, std::make_integer_sequence<int, Hi - Lo + 1>{}))
    throw std::invalid_argument(std::string(what) + ": radius " + std::to_string(r) + " outside " +
                                std::to_string(Lo) + ".." + std::to_string(Hi));
}

}  // namespace vp
