// The argument checks every stateless filter's CPU twin shares, beside the filter's own:
// a frame larger than the scratch is refused, and so is a scratch of a size outside
// 1..maxDimension. `checks(in, out, run)` is the filter's own (its parameter bounds, the
// view checks of support/view_checks.h), calling run(in, out, params);
// `call(in, out, params, scratch)` is the twin.
#pragma once

#include "gpu/image.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vp::test {

template <class Params, class Scratch, class Checks, class Call>
void expectCpuArgumentChecks(int maxDimension, Checks&& checks, Call&& call) {
  HostImage a = makeRandom(16, 8, 1), b(16, 8), big(17, 9), big2(17, 9);
  Scratch scratch(16, 8);
  checks(a.view(), b.view(), [&](ConstRgbaView in, RgbaView out, const Params& p) { call(in, out, p, scratch); });
  EXPECT_THROW(call(big.cview(), big2.view(), Params{}, scratch), std::invalid_argument);
  EXPECT_THROW(Scratch(0, 5), std::invalid_argument);
  EXPECT_THROW(Scratch(5, maxDimension + 1), std::invalid_argument);
}

}  // namespace vp::test
