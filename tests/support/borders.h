// The four border extensions (gpu/filters/common/border.h's BorderMode) by name, for the
// filter tests' loops and messages and the references that read an element's choice.
#pragma once

#include "gpu/filters/common/border.h"

namespace vp::test {

constexpr BorderMode kBorderModes[] = {BorderMode::Zero, BorderMode::Replicate, BorderMode::Reflect,
                                       BorderMode::Wrap};

// "zero", "replicate", "reflect", "wrap": the names the filters' border option takes.
constexpr const char* borderName(BorderMode mode) {
  constexpr const char* kNames[] = {"zero", "replicate", "reflect", "wrap"};
  return kNames[int(mode)];
}

}  // namespace vp::test
