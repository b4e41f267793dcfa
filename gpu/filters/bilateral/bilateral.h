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
// What both backends compute, byte for byte (bilateral_math.h): each weight as
// 2^x, x = (d2 * kr + a[dx]) + a[dy] in float, d2 the exact integer squared RGB distance,
// kr = -log2(e) / 2V^2 and a[i] = -i^2 log2(e) / 2S^2 rounded to float once on the host;
// 2^x by one range reduction and a degree-3 polynomial; four float sums (weight, R, G, B)
// over the window in raster order (dy, then dx, increasing); one IEEE division per channel.
// Every step is one IEEE float operation rounded to nearest (exact_float.h), so the GPU
// equals the twin bit for bit. The output is within 1 level of the definition at every
// pixel: the computed quotient is within 0.05 of the exact one (docs/design/bilateral.md).
//
// GPU (docs/design/bilateral.md): one kernel per radius and rows per thread; a 256-thread
// block stages its border-extended input as floats (R, G, B, R^2 + G^2 + B^2) in shared
// memory and computes 32 x (8 * rows) outputs, each thread `rows` outputs of one column,
// so that a sample loaded once serves up to `rows` windows. About 18 float operations per
// tap, no table lookups: O(r^2) per pixel.
#pragma once

#include "gpu/filters/bilateral/bilateral_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace vp {

// What bilateralGpu needs besides the images: the sizes it accepts and the kernels'
// shared memory allowance, set once. No device memory (the weights travel as kernel
// parameters, computed on the host per call). Immutable after construction, so slots may
// share one.
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
// The kernel variant the tests and benchmarks force: output rows per thread (one of
// kBilateralRowChoices; 0: selectBilateralRows). Every variant gives the same bytes.
struct BilateralTuning {
  int rowsPerThread = 0;
};
// bilateralGpu with `tuning`. Same checks, plus std::invalid_argument for rows per
// thread outside kBilateralRowChoices and 0.
void bilateralGpuTuned(ConstRgbaView in, RgbaView out, const BilateralParams& params,
                       const BilateralTuning& tuning, BilateralWorkspace& ws, cudaStream_t stream);
}  // namespace detail

// Host scratch for bilateralCpu, sized once: the border-extended column and row indices.
class BilateralCpuScratch {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxBilateralDimension.
  BilateralCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct BilateralCpuScratchAccess;
  int maxWidth_ = 0;        // pixels
  int maxHeight_ = 0;       // pixels
  std::vector<int> cols_;   // maxWidth + 2 kMaxBilateralRadius: source column of x - r .. (-1: zero)
  std::vector<int> rows_;   // maxHeight + 2 kMaxBilateralRadius: source row of y - r .. (-1: zero)
};

// The CPU twin of bilateralGpu: the same bytes; multi-threaded with OpenMP (rows split
// statically), deterministic. Same argument checks.
void bilateralCpu(ConstRgbaView in, RgbaView out, const BilateralParams& params, BilateralCpuScratch& scratch);

}  // namespace vp
