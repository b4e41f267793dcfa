// Bilateral filter of RGBA8 images on CUDA and its bit-exact CPU twin.
//
// Definition (what the tests' double-precision reference computes): for each pixel p and
// each q in the (2r+1)^2 window around it,
//   w(p, q) = exp(-|q - p|^2 / 2 S^2) * exp(-||I(q) - I(p)||^2 / 2 V^2),
// |q - p| the pixel distance, ||.|| the Euclidean distance of the RGB vectors; output
// channel c = sum w I_c(q) / sum w, rounded to the nearest level; alpha is copied from the
// input pixel. Samples outside the image are taken through the border extension per axis
// (common/border.h: replicate, reflect, wrap, or zero: a black (0, 0, 0) sample that keeps
// its weights, as the median's and the Gaussian's zero samples do). r = 1..15,
// S = sigmaSpace 0.5..20, V = sigmaRange 1..255 (bilateral_params.h).
//
// What both backends compute, byte for byte (bilateral_math.h): d2 = ||I(q) - I(p)||^2 as
// an exact integer; the range factor exp(-d2 / 2V^2) as the product of two table entries,
// high[d2 >> 5] = 2^(32 (d2 >> 5) kr) and low[d2 & 31] = 2^((d2 & 31) kr), each 2^x by one
// range reduction and a degree-3 polynomial on float arguments, kr = -log2(e) / 2V^2; the
// spatial factors a[i] = exp(-i^2 / 2S^2) (kr and a[] computed in double on the host and
// rounded to float once) folded into the low table, one per (|dy|, |dx|): lowSpatial =
// (a[|dy|] a[|dx|]) low; a tap's weight high * lowSpatial; four float sums (weight, R, G, B)
// over the window in raster order (dy, then dx, increasing); one IEEE division per channel.
// Every step is one IEEE float operation rounded to nearest (exact_float.h), so the GPU
// equals the twin bit for bit. The output is within 1 level of the definition at every
// pixel: the computed quotient is within 0.04 of the exact one (docs/design/bilateral.md).
//
// GPU (docs/design/bilateral.md): one kernel per radius and columns per thread; a
// 256-thread block stages its border-extended input as floats (R, G, B and the packed RGB
// word) in shared memory, builds the two weight tables there (about 29 KB at r = 5) and
// computes 8K x 32 outputs, each thread K = 8 (or 4) adjacent outputs of one row, so that a
// sample loaded once serves up to K windows. Per tap: two integer instructions for d2, two
// table indices, two shared loads, one multiplication and the four sums. O(r^2) per pixel.
#pragma once

#include "gpu/filters/bilateral/bilateral_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace vp {

// What bilateralGpu needs besides the images: the sizes it accepts and the kernels'
// shared memory allowance, set once. No device memory (each block builds its weight tables
// from the kernel parameters). Immutable after construction, so slots may share one.
class BilateralWorkspace {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxBilateralDimension, or when the
  // device has too little shared memory per block; vp::CudaError on CUDA failure.
  BilateralWorkspace(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  int maxWidth_ = 0;   // pixels
  int maxHeight_ = 0;  // pixels
};

// Filters `in` into `out` (same size, must not overlap) on `stream`. Asynchronous; no
// allocation, no host synchronisation. Throws std::invalid_argument for a radius or sigma
// out of range (or not finite), an unknown border, sizes larger than the workspace,
// mismatched, misaligned or overlapping views; vp::CudaError when a launch fails.
void bilateralGpu(ConstRgbaView in, RgbaView out, const BilateralParams& params, BilateralWorkspace& ws,
                  cudaStream_t stream);

namespace detail {
// The kernel variant the tests and benchmarks force: output columns per thread (one of
// kBilateralColumnChoices; 0: selectBilateralColumns). Every variant gives the same bytes.
struct BilateralTuning {
  int columnsPerThread = 0;
};
// bilateralGpu with `tuning`. Same checks, plus std::invalid_argument for columns per
// thread outside kBilateralColumnChoices and 0.
void bilateralGpuTuned(ConstRgbaView in, RgbaView out, const BilateralParams& params,
                       const BilateralTuning& tuning, BilateralWorkspace& ws, cudaStream_t stream);
}  // namespace detail

// Host scratch for bilateralCpu, sized once: the border-extended column and row indices
// and the weight tables (rebuilt per call).
class BilateralCpuScratch {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxBilateralDimension.
  BilateralCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct BilateralCpuScratchAccess;
  int maxWidth_ = 0;               // pixels
  int maxHeight_ = 0;              // pixels
  std::vector<int> cols_;          // maxWidth + 2 kMaxBilateralRadius: source column of x - r .. (-1: zero)
  std::vector<int> rows_;          // maxHeight + 2 kMaxBilateralRadius: source row of y - r .. (-1: zero)
  std::vector<float> high_;        // bilateral::kHighEntries
  std::vector<float> lowSpatial_;  // bilateral::lowSpatialEntries(kMaxBilateralRadius)
};

// The CPU twin of bilateralGpu: the same bytes; multi-threaded with OpenMP (rows split
// statically), deterministic. Same argument checks.
void bilateralCpu(ConstRgbaView in, RgbaView out, const BilateralParams& params,
                  BilateralCpuScratch& scratch);

}  // namespace vp
