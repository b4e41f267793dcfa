// The bilateral filter's parameters and bounds, apart from any kernel: what the filter
// table, the tests' reference and the benchmarks share. Contract: bilateral.h.
#pragma once

#include "gpu/filters/common/border.h"

namespace vp {

constexpr int kMinBilateralRadius = 1;
constexpr int kMaxBilateralRadius = 15;           // (2r+1)^2 <= 961 taps per window
constexpr float kMinBilateralSigmaSpace = 0.5f;   // pixels
constexpr float kMaxBilateralSigmaSpace = 20.f;   // pixels
constexpr float kMinBilateralSigmaRange = 1.f;    // levels (RGB distance, 0..255 per channel)
constexpr float kMaxBilateralSigmaRange = 255.f;  // levels
// Largest width and height a workspace or scratch accepts (pixels).
constexpr int kMaxBilateralDimension = 8192;

struct BilateralParams {
  int radius = 5;           // pixels, kMinBilateralRadius..kMaxBilateralRadius: the window is (2r+1)^2
  float sigmaSpace = 3.f;   // pixels: the spatial Gaussian's sigma
  float sigmaRange = 30.f;  // levels: the colour Gaussian's sigma (Euclidean RGB distance)
  BorderMode border = BorderMode::Replicate;
};

// Output columns one GPU thread computes (bilateral.h): the kernels exist for these.
constexpr int kBilateralColumnChoices[] = {4, 8};
// The launcher's choice at radius r (BM_BilateralGpuColumns, docs/design/bilateral.md): 8 (a
// staged sample loaded once serves up to 8 windows); 4 at r = 1, where staging and the table
// weigh more than the taps, and from r = 12, where K = 4's smaller tile fits more blocks an SM
// (3 against 2 at r = 12, 2 against 1 at r = 15) and that outweighs its extra sample loads.
constexpr int selectBilateralColumns(int r) { return r <= 1 || r >= 12 ? 4 : 8; }

}  // namespace vp
