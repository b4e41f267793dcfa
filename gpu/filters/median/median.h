// Median filter of RGBA8 images on CUDA and its bit-exact CPU twin.
//
// out(x,y).c = the median of the (2r+1)^2 samples v(extX(x+i), extY(y+j)).c, i, j in
// [-r, r], for each of c = R, G, B on its own: the ((2r+1)^2+1)/2-th smallest, which is
// one of the samples (the count is odd: no averaging, no approximation). Samples outside
// the image are taken through the border extension, per axis (common/border.h's BorderMode:
// replicate, reflect, wrap, or zero: a sample 0). Alpha is copied from the input pixel.
// r = 1..15. Both backends compute this order statistic exactly, so they agree byte for
// byte whatever method each uses.
//
// GPU methods (median_params.h, docs/design/median.md), two outputs per 32-bit word in
// 16-bit lanes (median_select.h): r = 1 a forgetful selection network on samples in
// registers, shuffled between the lanes of a warp strip; r = 2 the window's columns sorted
// and merged, each sort and merge shared by the windows that overlap it (median_sorted.h);
// r = 3 the forgetful network on samples staged in shared memory; larger r sliding
// per-column histograms in shared memory (one thread per column and channel, O(r) counter
// updates per output row, an O(1) coarse-to-fine search for the median).
#pragma once

#include "gpu/filters/median/median_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace vp {

// What medianGpu needs besides the images: the device's multiprocessor count and the
// histogram kernels' occupancy, read once. No device memory: every method works in
// registers and shared memory. Immutable after construction, so slots may share one.
class MedianWorkspace {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxMedianDimension, or when the
  // device has too little shared memory per block; vp::CudaError on CUDA failure.
  MedianWorkspace(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }
  // The method medianGpu runs at radius r.
  MedianMethod method(int radius) const { return selectMedianMethod(radius); }

 private:
  friend struct MedianWorkspaceAccess;
  int maxWidth_ = 0;         // pixels
  int maxHeight_ = 0;        // pixels
  int smCount_ = 1;          // multiprocessors
  int blocksPerSm_[4] = {};  // resident histogram blocks per SM: [wide * 2 + plainUpdates]
};

// Filters `in` into `out` (same size, must not overlap) on `stream` with the method
// selectMedianMethod(r) names. Asynchronous; no allocation. Throws std::invalid_argument
// for bad parameters, sizes larger than the workspace, mismatched, misaligned or
// overlapping views; vp::CudaError when a launch fails.
void medianGpu(ConstRgbaView in, RgbaView out, const MedianParams& params, MedianWorkspace& ws,
               cudaStream_t stream);

namespace detail {
// Knobs the tests and benchmarks turn: a forced method (every method is held to the CPU
// twin at every r it supports) and the histogram kernels' variants.
struct MedianTuning {
  MedianMethod method = MedianMethod::Network;
  bool plainUpdates = false;      // histogram: counters by load-add-store, not shared-memory atomics
  int rowsPerSegment = 0;         // histogram: output rows per thread; 0: the launcher's choice
  bool channelsTogether = false;  // network: the three channels' selections interleaved, not in turn
};
// medianGpu with `tuning` instead of the policy's choice. Same checks, plus
// std::invalid_argument when the method does not support the radius.
void medianGpuTuned(ConstRgbaView in, RgbaView out, const MedianParams& params, const MedianTuning& tuning,
                    MedianWorkspace& ws, cudaStream_t stream);
}  // namespace detail

// Host scratch for medianCpu, sized once: one set of histograms per OpenMP thread.
class MedianCpuScratch {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxMedianDimension.
  MedianCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct MedianCpuScratchAccess;
  int maxWidth_ = 0;            // pixels
  int maxHeight_ = 0;           // pixels
  int threads_ = 1;             // OpenMP threads the buffers are sized for
  std::vector<uint16_t> hist_;  // threads * kCpuHistWords: 3 x (256 fine + 16 coarse) counters
  std::vector<int> rows_;       // threads * (2 * kMaxMedianRadius + 1): a window's source rows
};

// The CPU twin of medianGpu: the same bytes; multi-threaded with OpenMP (rows split
// statically), deterministic. Same argument checks.
void medianCpu(ConstRgbaView in, RgbaView out, const MedianParams& params, MedianCpuScratch& scratch);

}  // namespace vp
