// A filter's GPU call on sub-views, the case each filter's tests check: the input a view
// that starts mid-allocation (column 5, row 13 of a 301x157 image), the output a view at
// column 61, row 40 of a poisoned 301x157 image, both 211x97 with pitches wider than
// their rows. The output view must hold the CPU twin's bytes for the input's pixels and
// everything around it keep the poison.
#pragma once

#include "gpu/cuda/cuda_resources.h"
#include "gpu/image.h"

#include <cstddef>

namespace vp::test {

class SubViewCase {
 public:
  static constexpr int kWidth = 301, kHeight = 157;  // both allocations
  static constexpr int kViewWidth = 211, kViewHeight = 97;

  // `whole`: a kWidth x kHeight image, the input's allocation.
  explicit SubViewCase(const HostImage& whole);

  const HostImage& sub() const { return sub_; }  // the input view's pixels, for the twin
  ConstRgbaView in() const { return in_; }
  RgbaView out() const { return out_; }
  // Re-poisons the whole output allocation.
  void poison() const;
  // After the call has finished: pixels of the output allocation that differ from `want`
  // (kViewWidth x kViewHeight) inside the output view, or from the poison outside it.
  size_t mismatches(const HostImage& want) const;

 private:
  HostImage sub_;
  DeviceImage din_, dout_;
  ConstRgbaView in_;
  RgbaView out_;
};

}  // namespace vp::test
