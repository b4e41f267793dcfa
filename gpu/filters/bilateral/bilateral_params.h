// The bilateral filter's parameters and bounds, apart from any kernel: what the filter
// table, the tests' reference and the benchmarks share. Contract: bilateral.h.
#pragma once

#include "gpu/filters/common/border.h"

namespace vp {

constexpr int kMinBilateralRadius = 1;
constexpr int kMaxBilateralRadius = 15;  // (2r+1)^2 <= 961 taps per window
constexpr float kMinBilateralSigmaSpace = 0.5f;  // pixels
constexpr float kMaxBilateralSigmaSpace = 20.f;  // pixels
constexpr float kMinBilateralSigmaRange = 1.f;   // levels (RGB distance, 0..255 per channel)
constexpr float kMaxBilateralSigmaRange = 255.f; // levels
// Largest width and height a workspace or scratch accepts (pixels).
constexpr int kMaxBilateralDimension = 8192;

struct BilateralParams {
  int radius = 5;            // pixels, kMinBilateralRadius..kMaxBilateralRadius: the window is (2r+1)^2
  float sigmaSpace = 3.f;    // pixels: the spatial Gaussian's sigma
  float sigmaRange = 30.f;   // levels: the colour Gaussian's sigma (Euclidean RGB distance)
  BorderMode border = BorderMode::Replicate;
};

// Output rows one GPU thread computes (bilateral.h): the kernels exist for these.
constexpr int kBilateralRowChoices[] = {1, 2, 4};
// The launcher's choice at radius r: 4 rows (a loaded sample serves up to 4 outputs) while
// the unrolled row loop stays small, 2 beyond (its body grows as 2r+1 times the rows); a
// first guess, to be checked against BM_BilateralGpuRows, which times every variant.
constexpr int selectBilateralRows(int r) { return r <= 7 ? 4 : 2; }

}  // namespace vp
