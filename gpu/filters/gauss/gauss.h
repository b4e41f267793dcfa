// Gaussian blur of RGBA8 images on CUDA and its bit-exact CPU twin.
//
// Definition (what the double-precision reference computes): the sampled Gaussian
// w(x) = exp(-x^2 / 2 sigma^2) for |x| <= R = ceil(3 sigma), normalised to sum 1, applied
// separably, rows then columns, to R, G and B; samples outside the image are taken through
// the border extension per axis (common/border.h's BorderMode: zero, replicate, reflect, wrap),
// so the 2-D sample is v(extX(x), extY(y)), and zero samples keep their weight. Alpha is
// copied from the input pixel. sigma = 0.3..50 (3 to 301 taps).
//
// What both backends compute, byte for byte (integer fixed point, gauss_params.h):
//   qr = makeGaussTaps(sigma, 24), qc = makeGaussTaps(sigma, 17): integer taps summing to
//        2^24 and 2^17 exactly (the rounding residue on the centre tap);
//   H(x, y) = (sum_i qr[|i|] v(extX(x+i), y) + 2^16) >> 17      per channel, 0..32640
//             (the row sum to 7 fractional bits, rounded half up; 0 on a zero-border row);
//   out(x, y) = (sum_j qc[|j|] H(x, extY(y+j)) + 2^23) >> 24   per channel, 0..255
//             (the one rounding to 8 bits, half up), i, j = -R..R.
// Every sum fits a uint32 (<= 255 * 2^24 + 2^23), so the order of the additions is free and
// the GPU equals the CPU twin bit for bit whatever the method. The output is within 1 level
// of the definition rounded to the nearest level, everywhere: |out - D| <= 0.30 + 0.5
// (docs/design/gauss.md proves the 0.30 for every sigma up to 50).
//
// GPU (docs/design/gauss.md): the taps are computed on the host when sigma changes and
// passed to the kernels by value (kernel parameters: no device buffer, no copy, no sync).
// R <= 3: one kernel of warp strips, the window in registers (gauss_strips.h); up to
// R = 24 on sm_80+: one kernel per 64x64 output tile on the tensor cores, each pass a
// product of byte matrices (gauss_mma.h); without tensor cores, R <= 16: one fused kernel
// per 64x32 or 64x64 tile on the integer units; larger R: a row kernel writing H (ushort4
// per pixel) and a column kernel reading it. The integer-unit kernels do about
// 3 (R + 1) multiply-adds per pixel and pass (the symmetric taps pair up): O(sigma).
#pragma once

#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/gauss/gauss_mma.h"
#include "gpu/filters/gauss/gauss_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace vp {

// Device scratch for gaussGpu, for frames up to the largest: the two-pass path's row sums
// (ushort4 per pixel: R, G, B to 7 fractional bits, alpha; allocated for the largest frame
// by the first two-pass call, so the one-kernel sigmas never hold them: 66 MB per stream at
// 4K), and the taps of the last sigma (host memory, recomputed only when sigma changes).
// One per stream: calls on one workspace must be ordered (one stream, or one after another).
class GaussWorkspace {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxGaussDimension, vp::CudaError on
  // CUDA failure.
  GaussWorkspace(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }
  // The path gaussGpu runs at `sigma` on this device.
  GaussPath path(double sigma) const;
  // Whether detail::gaussGpuWithPath can run `path` at `sigma` on this device.
  bool runs(GaussPath path, double sigma) const;

 private:
  friend struct GaussWorkspaceAccess;
  int maxWidth_ = 0;        // pixels
  int maxHeight_ = 0;       // pixels
  DevicePitchedBuffer sums_;  // ushort4 per pixel: the row pass's output (two-pass path; empty until needed)
  size_t sharedOptin_ = 0;  // bytes of dynamic shared memory a block may use on this device
  bool pdl_ = false;        // programmatic dependent launch (sm_90+): column kernel overlaps the row kernel's tail
  bool tensorCores_ = false;  // sm_80+: integer mma (the Mma path)
  double sigma_ = -1;       // the sigma the taps are for (-1: none yet)
  GaussTaps rowTaps_;       // makeGaussTaps(sigma_, kGaussRowBits)
  GaussTaps columnTaps_;    // makeGaussTaps(sigma_, kGaussColumnBits)
  gauss::MmaTaps mmaTaps_;  // makeMmaTaps(rowTaps_, columnTaps_)
};

// Blurs `in` into `out` (same size, must not overlap) on `stream`. Asynchronous; no host
// synchronisation; allocates only the row sums, at the workspace's first two-pass call.
// Throws std::invalid_argument for a sigma outside kMinGaussSigma..kMaxGaussSigma (or not
// finite), an unknown border, sizes larger than the workspace, mismatched, misaligned or
// overlapping views; vp::CudaError when a launch fails.
void gaussGpu(ConstRgbaView in, RgbaView out, const GaussParams& params, GaussWorkspace& ws,
              cudaStream_t stream);

namespace detail {
// gaussGpu on the path `path` instead of the policy's choice, so tests hold every path to
// the CPU twin. Same checks, plus std::invalid_argument when the path cannot run the radius
// on this device (GaussWorkspace::runs).
void gaussGpuWithPath(ConstRgbaView in, RgbaView out, const GaussParams& params, GaussPath path,
                      GaussWorkspace& ws, cudaStream_t stream);
}  // namespace detail

// Host scratch for gaussCpu, sized once: the row sums (three uint16 planes) and, per OpenMP
// thread, one border-extended row and its accumulators; the taps of the last sigma.
class GaussCpuScratch {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxGaussDimension.
  GaussCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct GaussCpuScratchAccess;
  int maxWidth_ = 0;            // pixels
  int maxHeight_ = 0;           // pixels
  int threads_ = 1;             // OpenMP threads the per-thread buffers are sized for
  std::vector<uint16_t> sums_;  // 3 * maxWidth * maxHeight: H per channel plane
  std::vector<uint32_t> rows_;  // threads * 3 * (maxWidth + 2 * kMaxGaussRadius): extended rows
  std::vector<uint32_t> acc_;   // threads * 3 * maxWidth: accumulators
  double sigma_ = -1;           // the sigma the taps are for (-1: none yet)
  GaussTaps rowTaps_, columnTaps_;
};

// The CPU twin of gaussGpu: the same bytes; multi-threaded with OpenMP (rows split
// statically, integer sums), deterministic. Same argument checks.
void gaussCpu(ConstRgbaView in, RgbaView out, const GaussParams& params, GaussCpuScratch& scratch);

}  // namespace vp
