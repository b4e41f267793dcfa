// Box blur of RGBA8 images on CUDA and its bit-exact CPU twin.
//
// One pass: out(x,y) = round_half_up(S / (2r+1)^2), S the integer sum of R, G or B
// over the (2r+1)x(2r+1) window centred on (x,y), samples outside the image taken
// through the border extension (per axis, so the 2-D sample is v(extX(x), extY(y))).
// Alpha is copied from the input pixel. `passes` repeats the pass on the previous
// pass's 8-bit output (3 passes ~ a Gaussian). Both backends do O(1) work per pixel
// whatever the radius (prefix sums), in integers, so they agree bit for bit.
#pragma once

#include "gpu/cuda_resources.h"
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

// How samples outside the image are taken, per axis of length n.
enum class BorderMode {
  Zero,       // 0 outside; the divisor stays (2r+1)^2 (zero-padded convolution)
  Replicate,  // clamp to [0, n-1]
  Reflect,    // mirror without repeating the edge: 2 1 | 0 1 2 .. n-1 | n-2 (period 2n-2)
  Wrap,       // modulo n
};

struct BlurParams {
  int radius = 5;  // pixels, 0..kMaxBlurRadius (0: identity)
  int passes = 1;  // 1..kMaxBlurPasses
  BorderMode border = BorderMode::Replicate;
};

// Device scratch for boxBlurGpu, sized once for the largest frame: the column sums
// (ushort4 per pixel: R, G, B sums and alpha) and a ping-pong image for passes > 1.
class BoxBlurWorkspace {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxBlurDimension (or beyond
  // what the current device's shared memory allows), vp::CudaError on CUDA failure.
  BoxBlurWorkspace(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct BoxBlurWorkspaceAccess;
  int maxWidth_ = 0;             // pixels
  int maxHeight_ = 0;            // pixels
  DevicePitchedBuffer sums_;     // ushort4 per pixel: vertical window sums + alpha
  DeviceImage pingPong_;         // intermediate image between passes
  size_t sharedOptinBytes_ = 0;  // bytes of dynamic shared memory a column-pass block may use
  bool pdl_ = false;             // device supports programmatic dependent launch (sm_90+)
  int smCount_ = 1;              // multiprocessors: the fused pass sizes its grid by them
};

// Blurs `in` into `out` (same size, must not overlap) on `stream`. Asynchronous; no
// allocation. Throws std::invalid_argument for bad parameters, sizes larger than the
// workspace, mismatched or overlapping views; vp::CudaError when a launch fails.
void boxBlurGpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
                cudaStream_t stream);

// Host scratch for boxBlurCpu, sized once: the row sums, the ping-pong image and one
// prefix-sum buffer per OpenMP thread.
class BoxBlurCpuScratch {
 public:
  BoxBlurCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct BoxBlurCpuScratchAccess;
  int maxWidth_ = 0;                  // pixels
  int maxHeight_ = 0;                 // pixels
  int threads_ = 1;                   // OpenMP threads the buffers are sized for
  std::vector<ushort4> sums_;         // maxWidth * maxHeight: horizontal window sums + alpha
  std::vector<uchar4> pingPong_;      // maxWidth * maxHeight: intermediate image between passes
  std::vector<uint64_t> rowPrefix_;   // threads * (maxWidth + 1): packed R|G|B row prefix
  std::vector<uint32_t> colPrefix_;   // threads * 3 * kStrip * (maxHeight + 1): column prefixes
};

// The CPU twin of boxBlurGpu: same result bit for bit; multi-threaded with OpenMP,
// deterministic. Same argument checks.
void boxBlurCpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurCpuScratch& scratch);

namespace detail {
// Launch choices of boxBlurGpu, exposed so benchmarks and tests can compare versions.
struct BoxBlurTuning {
  bool pdl = true;          // programmatic dependent launch between the kernels (sm_90+)
  int columnVersion = 0;    // column pass: 1 whole-column blocks, 2 bands of rows, 3 sliding window;
                            // 0: by size and radius
  int rowVersion = 0;       // row pass: 1 read-modify-write scan, 2 register scan; 0: by width
  int verticalColumns = 0;  // version 1: columns per block (1, 2, 4, 8); 0: chosen by height
  int bandRows = 0;         // version 2: output rows per block; 0: chosen by radius
  int slideRows = 0;        // version 3: output rows per thread; 0: chosen by size and radius
  int slideBatch = 0;       // version 3: rows whose loads a thread issues together, 4 or 8; 0: by radius
  int slideFirstBatch = 0;  // version 3, a segment's first window: 16 or 32 rows of loads at a time, plain rows
                            // when inside the image; the slide batch: folded rows, as the slide; 0: 16 past
                            // r = 32, else the slide batch
  int rowThreads = 0;       // row version 2: threads per block (256, 512, 1024); 0: chosen by width
  bool rowUnrolled = true;  // row version 2's outputs: unrolled with compile-time strides, or a strided loop
                            // (measured: 4K r 100 100 against 101 us, row pass alone ~1 us faster)
  int stages = 3;           // bit 0: column pass, bit 1: row pass (benchmarks time one alone)
  int fused = -1;           // 1: one kernel per pass for both axes (no sums buffer), ignoring the column
                            // and row choices above and `stages`; 0: column and row passes; -1: by
                            // size and radius when no column / row version or stage is chosen
  int fusedRows = 0;        // fused: output rows per block; 0: by size, radius and SM count
};
void boxBlurGpuTuned(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurWorkspace& ws,
                     const BoxBlurTuning& tuning, cudaStream_t stream);
}  // namespace detail

}  // namespace vp
