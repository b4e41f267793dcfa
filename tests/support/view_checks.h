// The view checks every RGBA-to-RGBA filter makes (box blur, median, gauss, edges), for
// their argument-check tests on both backends.
#pragma once

#include "gpu/image.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vp::test {

// `run(in, out)` calls the filter with valid parameters; `a` (input) and `b` (output) are
// distinct images of one size, at least 2x2. In place, overlapping rows, sizes that differ,
// a pitch shorter than a row, a misaligned output and a null output must throw
// std::invalid_argument; empty views are nothing to do.
template <class Run>
void expectViewChecks(RgbaView a, RgbaView b, Run&& run) {
  EXPECT_THROW(run(a, a), std::invalid_argument) << "in place";
  RgbaView shifted = a, top = a;
  shifted.data = a.row(1);
  shifted.height = a.height - 1;
  top.height = a.height - 1;
  EXPECT_THROW(run(top, shifted), std::invalid_argument) << "overlapping by rows";
  RgbaView narrower = b, shorter = b;
  narrower.width -= 1;
  shorter.height -= 1;
  EXPECT_THROW(run(a, narrower), std::invalid_argument) << "widths differ";
  EXPECT_THROW(run(a, shorter), std::invalid_argument) << "heights differ";
  RgbaView badPitch = b;
  badPitch.pitch = size_t(b.width) * 4 - 4;
  EXPECT_THROW(run(a, badPitch), std::invalid_argument) << "pitch shorter than a row";
  RgbaView misaligned = b, aNarrow = a;  // same sizes: only the alignment is wrong
  misaligned.data = reinterpret_cast<uchar4*>(reinterpret_cast<char*>(b.data) + 1);
  misaligned.width -= 1;
  aNarrow.width -= 1;
  EXPECT_THROW(run(aNarrow, misaligned), std::invalid_argument) << "misaligned output";
  RgbaView null = b;
  null.data = nullptr;
  EXPECT_THROW(run(a, null), std::invalid_argument) << "null output";
  RgbaView empty = b, emptyIn = a;
  empty.width = 0;
  emptyIn.width = 0;
  EXPECT_NO_THROW(run(emptyIn, empty)) << "empty views: nothing to do";
}

}  // namespace vp::test
