#include "support/sub_views.h"

#include "support/images.h"

#include <cstring>
#include <stdexcept>

namespace vp::test {
namespace {

constexpr int kInX = 5, kInY = 13, kOutX = 61, kOutY = 40;

}  // namespace

SubViewCase::SubViewCase(const HostImage& whole)
    : sub_(kViewWidth, kViewHeight), din_(upload(whole)), dout_(kWidth, kHeight) {
  if (whole.width() != kWidth || whole.height() != kHeight) throw std::invalid_argument("SubViewCase: 301x157 input");
  test::poison(dout_);
  in_ = {din_.view().row(kInY) + kInX, din_.pitch(), kViewWidth, kViewHeight};
  out_ = {dout_.view().row(kOutY) + kOutX, dout_.pitch(), kViewWidth, kViewHeight};
  for (int y = 0; y < kViewHeight; ++y)
    for (int x = 0; x < kViewWidth; ++x) sub_.at(x, y) = whole.at(kInX + x, kInY + y);
}

void SubViewCase::poison() const { test::poison(dout_); }

size_t SubViewCase::mismatches(const HostImage& want) const {
  const HostImage got = download(dout_);
  const uchar4 poisoned = make_uchar4(kPoison, kPoison, kPoison, kPoison);
  size_t bad = 0;
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) {
      const bool inside = x >= kOutX && x < kOutX + kViewWidth && y >= kOutY && y < kOutY + kViewHeight;
      const uchar4 g = got.at(x, y);
      const uchar4 e = inside ? want.at(x - kOutX, y - kOutY) : poisoned;
      bad += std::memcmp(&g, &e, sizeof g) != 0;
    }
  return bad;
}

}  // namespace vp::test
