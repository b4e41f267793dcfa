// Box blur of RGBA8 images on CUDA and its bit-exact CPU twin.
//
// One pass: out(x,y) = round_half_up(S / (2r+1)^2), S the integer sum of R, G or B
// over the (2r+1)x(2r+1) window centred on (x,y), samples outside the image taken
// through the border extension (per axis, so the 2-D sample is v(extX(x), extY(y))).
// Alpha is copied from the input pixel. `passes` repeats the pass on the previous
// pass's 8-bit output (3 passes ~ a Gaussian). Both backends do O(1) work per pixel
// whatever the radius (prefix sums), in integers, so they agree bit for bit.
#pragma once

#include "gpu/filters/blur/box_blur_policy.h"
#include "gpu/filters/common/border.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace vp {

// Largest radius: a window row sum (2r+1)*255 must fit the uint16 intermediate.
constexpr int kMaxBlurRadius = 128;
constexpr int kMaxBlurPasses = 3;
// Largest width and height a workspace accepts (pixels).
constexpr int kMaxBlurDimension = 8192;

struct BlurParams {
  int radius = 5;  // pixels, 0..kMaxBlurRadius (0: identity)
  int passes = 1;  // 1..kMaxBlurPasses
  BorderMode border = BorderMode::Replicate;
};

// Device scratch for boxBlurGpu, for frames up to the largest: the column sums (ushort4 per
// pixel: R, G, B sums and alpha) of the two-pass configurations and a ping-pong image for
// passes > 1. Each is allocated, for the largest frame, by the first call that needs it: a
// one-pass fused or strip blur (the default radius) never does, which saves 100 MB per stream
// at 4K.
class BoxBlurWorkspace {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxBlurDimension (or beyond
  // what the current device's shared memory allows), vp::CudaError on CUDA failure.
  BoxBlurWorkspace(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }
  // The configuration boxBlurGpu runs for a width x height frame at radius >= 1.
  BoxBlurPolicy policy(int width, int height, int radius) const {
    return selectBoxBlurPolicy(columnSharedBytes_, width, height, radius);
  }

 private:
  friend struct BoxBlurWorkspaceAccess;
  int maxWidth_ = 0;              // pixels
  int maxHeight_ = 0;             // pixels
  DevicePitchedBuffer sums_;      // ushort4 per pixel: vertical window sums + alpha (empty until needed)
  DeviceImage pingPong_;          // intermediate image between passes (empty until needed)
  size_t columnSharedBytes_ = 0;  // bytes of dynamic shared memory a whole-column block may use
  bool pdl_ = false;              // device supports programmatic dependent launch (sm_90+)
  int smCount_ = 1;               // multiprocessors: the fused pass sizes its grid by them
  size_t fusedSharedBytes_ = 0;   // bytes of dynamic shared memory a stacked fused block may use
};

// Blurs `in` into `out` (same size, must not overlap) on `stream` with the passes
// selectBoxBlurPolicy chooses (box_blur_policy.h). Asynchronous; allocates only the
// workspace's buffers a configuration uses for the first time (see above). Throws
// std::invalid_argument for bad parameters, sizes larger than the workspace, mismatched or
// overlapping views; vp::CudaError when a launch fails.
void boxBlurGpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
                cudaStream_t stream);

namespace detail {
// boxBlurGpu with the pass configuration `pass` instead of the policy's choice (the row pass
// still goes by width), so tests can hold every shipped configuration to the CPU twin at
// any size. Same arguments, checks and results.
void boxBlurGpuWithPass(ConstRgbaView in, RgbaView out, const BlurParams& params, BlurPass pass,
                        BoxBlurWorkspace& ws, cudaStream_t stream);
}  // namespace detail

// Host scratch for boxBlurCpu, sized once: the row sums, the ping-pong image and one
// prefix-sum buffer per OpenMP thread.
class BoxBlurCpuScratch {
 public:
  BoxBlurCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct BoxBlurCpuScratchAccess;
  int maxWidth_ = 0;                 // pixels
  int maxHeight_ = 0;                // pixels
  int threads_ = 1;                  // OpenMP threads the buffers are sized for
  std::vector<ushort4> sums_;        // maxWidth * maxHeight: horizontal window sums + alpha
  std::vector<uchar4> pingPong_;     // maxWidth * maxHeight: intermediate image between passes
  std::vector<uint64_t> rowPrefix_;  // threads * (maxWidth + 1): packed R|G|B row prefix
  std::vector<uint32_t> colPrefix_;  // threads * 3 * kStrip * (maxHeight + 1): column prefixes
};

// The CPU twin of boxBlurGpu: same result bit for bit; multi-threaded with OpenMP,
// deterministic. Same argument checks.
void boxBlurCpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurCpuScratch& scratch);

}  // namespace vp
