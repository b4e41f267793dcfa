// The Gaussian blur's parameters, its fixed-point taps and its GPU paths, apart from any
// kernel: what the filter table, the CPU twin, the tests' references and the benchmarks
// share. The contract (what every output byte is): gauss.h.
#pragma once

#include "gpu/filters/common/border.h"

#include <cmath>
#include <cstdint>

namespace vp {

constexpr double kMinGaussSigma = 0.3;  // pixels: 3 taps, nearly the identity
constexpr double kMaxGaussSigma = 50;   // pixels: 301 taps
constexpr int kMaxGaussRadius = 150;    // ceil(3 * kMaxGaussSigma)
// Largest width and height a workspace or scratch accepts (pixels).
constexpr int kMaxGaussDimension = 8192;

// Fixed point (gauss.h): the row taps sum to 2^kGaussRowBits, the column taps to
// 2^kGaussColumnBits, the row pass keeps kGaussFracBits fractional bits (uint16 lanes).
constexpr int kGaussRowBits = 24;
constexpr int kGaussColumnBits = 17;
constexpr int kGaussFracBits = 7;
constexpr int kGaussRowShift = kGaussRowBits - kGaussFracBits;        // 17
constexpr int kGaussColumnShift = kGaussColumnBits + kGaussFracBits;  // 24
// Room for the taps q[0..R] padded with zeros (the kernels take pairs of taps in chunks).
constexpr int kGaussTapCapacity = 160;

struct GaussParams {
  double sigma = 2;  // pixels, kMinGaussSigma..kMaxGaussSigma
  BorderMode border = BorderMode::Replicate;
};

// The half-width of the kernel: R = ceil(3 sigma) (1 at sigma = 0.3, 150 at sigma = 50).
inline int gaussRadius(double sigma) { return static_cast<int>(std::ceil(3.0 * sigma)); }

// The integer taps of one pass, symmetric: q[i] is the weight of offsets +i and -i.
struct GaussTaps {
  int radius = 0;                       // R: q[i] = 0 for i > R
  uint32_t q[kGaussTapCapacity] = {};   // q[0] + 2 (q[1] + .. + q[R]) = 2^bits
};

// The taps gauss.h defines, for sigma in range and bits <= 24:
//   d = (2 sigma) sigma;  e(x) = exp(-(x x) / d) for x = 0..R (double);
//   s = e(0) + 2 t, t = e(1) + e(2) + .. + e(R) summed in that order (double);
//   q[x] = floor(e(x) / s * 2^bits + 0.5) for x = 1..R;  q[0] = 2^bits - 2 (q[1] + .. + q[R]).
inline GaussTaps makeGaussTaps(double sigma, int bits) {
  GaussTaps taps;
  taps.radius = gaussRadius(sigma);
  const double d = 2.0 * sigma * sigma;
  double e[kMaxGaussRadius + 1];
  double t = 0;
  for (int x = 0; x <= taps.radius; ++x) {
    e[x] = std::exp(-double(x * x) / d);
    if (x > 0) t += e[x];
  }
  const double s = e[0] + 2.0 * t, scale = double(uint32_t(1) << bits);
  uint32_t sides = 0;
  for (int x = 1; x <= taps.radius; ++x) {
    taps.q[x] = static_cast<uint32_t>(std::floor(e[x] / s * scale + 0.5));
    sides += taps.q[x];
  }
  taps.q[0] = (uint32_t(1) << bits) - 2 * sides;
  return taps;
}

// How the GPU runs one blur (gauss.h; docs/design/gauss.md).
enum class GaussPath : uint8_t {
  Mma,      // one kernel on the tensor cores (sm_80+, R <= 24): each pass as integer matrix products
  Fused,    // one kernel: a 64x32 or 64x64 output tile, its input and row sums in shared memory
  TwoPass,  // a row kernel writing uint16 row sums (8 bytes a pixel), then a column kernel
  Strips,   // one kernel, R <= 3: warp strips, the window in registers, neighbours by shuffles
};
// Largest radius the tensor-core path runs: two k-steps of 32 samples cover 16 outputs and
// their halo (R rounded up to 4) each side.
constexpr int kMaxMmaGaussRadius = 24;
// Largest radius the fused path runs (its halo is the radius rounded up to 4, each side).
constexpr int kMaxFusedGaussRadius = 16;
// Largest radius the strip path runs (an instantiation per radius; two columns a lane at
// R = 3, gauss_strips.h), where it measured faster than the tensor cores (sigma <= 1;
// docs/design/gauss.md has the radii it lost at).
constexpr int kMaxStripGaussRadius = 3;
// "mma", "fused", "two-pass", "strips": benchmark labels and test names.
constexpr const char* gaussPathName(GaussPath path) {
  return path == GaussPath::Mma     ? "mma"
         : path == GaussPath::Fused ? "fused"
         : path == GaussPath::Strips ? "strips"
                                     : "two-pass";
}

}  // namespace vp
