// SLIC superpixels of RGBA8 frames (Achanta et al. 2012, in the gSLICr layout of Ren,
// Prisacariu & Reid 2015): the CUDA launcher and its CPU twin.
//
// Method, on the R, G, B of the pixels (alpha carried through) and their x, y:
//  - Grid (slicFrameOf, slic_math.h): S = sqrt(width * height / N); cols = round(width / S)
//    within 1..width, rows = round(height / S) within 1..height; centre c = row * cols + col
//    of cell (col, row); pixel (x, y) lies in cell (floor(x cols / width), floor(y rows /
//    height)). Cell col spans x in [ceil(col width / cols), ceil((col + 1) width / cols)).
//  - Init: centre c at its cell's middle pixel (floor((first + last) / 2) on each axis),
//    with that pixel's colour. No gradient perturbation.
//  - Assignment: each pixel takes, among the centres of the 3 x 3 cells around its own
//    (clipped at the grid's edges), the least D = dc^2 + w ds^2 (dc: RGB distance, ds: x-y
//    distance in pixels, w = m^2 / S^2 rounded to float once per frame), in float with the
//    operation order of slic::distance; ties to the lowest centre index.
//  - Update: per centre, 64-bit integer sums of r, g, b, x, y and the count of its pixels;
//    each component becomes (float)((double)sum / count); an empty centre keeps its values.
//  - `iterations` rounds of (assignment, update), then a final assignment: the superpixel
//    map. iterations = 0 is the assignment to the initial centres.
//  - Connectivity: the 4-connected components of the superpixel map, each named by its
//    root, the least raster index of its pixels. A component of fewer than minRegion =
//    max(1, floor(width height / (4 N))) pixels, other than the one holding pixel 0, merges
//    into the component of the pixel left of its root (root - 1) when the root's x > 0, else
//    of the pixel above it (root - width); merges are followed until a kept component (the
//    roots strictly decrease, so chains end). A region = a kept component and everything
//    merged into it: it is 4-connected, and its id is the kept component's root (the least
//    raster index of the region). Large second fragments of one superpixel stay regions of
//    their own.
//  - Output (view colour): every pixel its region's mean colour, per channel the integer sum
//    over the region's pixels rounded half up to a byte, (2 sum + count) / (2 count);
//    alpha copied from the input. Views labels and boundaries (common/segment_view.h) paint from
//    the region ids: labelColour(paletteIndex(id)), or yellow borders over the input.
//  - regions (the metric "superpixels") = the number of regions.
// GPU and CPU results (output bytes, region ids, centres, counts) are equal bit for bit.
//
// Parameters: N (superpixels) 1..16384 (more than the pixels: the grid clamps), m
// (compactness) 1..80, iterations 0..50; frames up to 16384 pixels a side.
// Complexity: O(9 width height) per assignment; connectivity O(width height alpha).
//
// GPU (slic.cu), stream-ordered, no host synchronisation; docs/design/slic.md has the
// reasoning. slicGpu: one persistent cooperative kernel runs the init, every round and the
// final assignment (grid.sync between phases; a thread walks one pixel column of its
// block's items, keeps its 3 x 3 candidate centres in registers and adds runs of equal
// labels, per warp and then per block in shared memory, into 64-bit sums), then
// connectivity by union-find with atomicMin hooking (Playne & Hawick 2018), whose roots are
// the least indices whatever the scheduling, and region ranks by a scan over 1024-pixel
// chunks: 7 launches a frame.
#pragma once

#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/common/segment_view.h"
#include "gpu/filters/slic/slic_math.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace vp {

struct SlicParams {
  int superpixels = 400;    // N: superpixels asked for, 1..kMaxSuperpixels
  float compactness = 40;   // m: weight of distance in space against distance in colour, 1..80
  int iterations = 10;      // update rounds, 0..kMaxSlicIterations
};

// What a run found (device memory for the GPU).
struct SlicStats {
  uint32_t regions = 0;  // regions after connectivity
  uint32_t centres = 0;  // superpixels of the grid (cols * rows)
};

// Bounds on the centres the grid of any frame up to width x height can have for any N in
// 1..kMaxSuperpixels, and on the regions it can end with (kept components hold minRegion
// pixels or more, except one): what a workspace sized for width x height holds.
int slicMaxCentres(int width, int height);
int64_t slicMaxRegions(int width, int height);

// Device memory for slicGpu, sized once for frames up to maxWidth x maxHeight (about 12
// bytes a pixel plus the centres), and the persistent kernel's grid for the current device.
// Not for concurrent use on two streams.
class SlicWorkspace {
 public:
  // Throws std::invalid_argument, vp::CudaError, std::runtime_error where the device has no
  // cooperative launch.
  SlicWorkspace(int maxWidth, int maxHeight);
  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }
  // After a run (device pointers): each pixel's region id (width x height, pitch = width),
  // the final centres (cols * rows), the stats.
  const uint32_t* regions() const { return parent_.as<uint32_t>(); }
  const SlicCentre* centres() const { return centres_.as<SlicCentre>(); }
  const SlicStats* stats() const { return stats_.as<SlicStats>(); }

 private:
  friend struct SlicGpuAccess;
  int maxWidth_ = 0, maxHeight_ = 0;  // pixels
  int persistentBlocks_ = 0;  // co-resident blocks of the persistent superpixel kernel
  bool pdl_ = false;          // programmatic dependent launch for the connectivity kernels (sm_90 on)
  DeviceBuffer centres_;     // SlicCentre per centre
  DeviceBuffer sums_;        // SlicSums per centre
  DeviceBuffer labels_;      // uint32 a pixel: superpixel; after connectivity, a kept root's region rank
  DeviceBuffer parent_;      // uint32 a pixel: union-find parent; at the end the region id
  DeviceBuffer link_;        // uint32 a pixel: a root's component size, then its merge target
  DeviceBuffer chunkCount_;  // uint32 a 1024-pixel chunk: kept roots in it
  DeviceBuffer chunkStart_;  //   and their exclusive prefix sum
  DeviceBuffer regionSums_;  // SlicRegionSums a region (by rank)
  DeviceBuffer stats_;       // SlicStats
  DeviceBuffer decided_;     // uint32: blocks of the decide kernel done (its last one scans), 0 between calls
};

// GPU: in/out device views of the same size (distinct buffers). Stream-ordered; no host
// synchronisation. Throws std::invalid_argument on bad arguments, vp::CudaError on launch
// failure. One cooperative launch for the superpixels, six for connectivity and the output.
void slicGpu(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicWorkspace& ws,
             cudaStream_t stream);

// Host memory for slicCpu, sized once for frames up to maxWidth x maxHeight.
class SlicCpuScratch {
 public:
  SlicCpuScratch(int maxWidth, int maxHeight);  // throws std::invalid_argument
  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }
  // After a run: the superpixel of each pixel (the final assignment, before connectivity),
  // each pixel's region id, the final centres, the stats.
  const std::vector<uint32_t>& labels() const { return labels_; }
  const std::vector<uint32_t>& regions() const { return regions_; }
  const std::vector<SlicCentre>& centres() const { return centres_; }
  const SlicStats& stats() const { return stats_; }

 private:
  friend struct SlicCpuAccess;
  int maxWidth_ = 0, maxHeight_ = 0;       // pixels
  std::vector<SlicCentre> centres_;        // cols * rows used
  std::vector<SlicSums> partial_;          // per OpenMP thread, maxCentres each
  std::vector<uint32_t> labels_, parent_, regions_, rank_;  // a pixel each
  std::vector<SlicRegionSums> regionSums_; // by region rank
  SlicStats stats_;
};

// CPU twin (OpenMP, deterministic): the same results in host memory. No allocation.
void slicCpu(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicCpuScratch& scratch);

namespace detail {
// The parameter checks, and those and the frame's (both backends); throw std::invalid_argument.
void checkSlicParams(const SlicParams& params, const char* who);
// The argument checks of both backends; false when there is nothing to do (empty frame).
bool checkSlicArgs(ConstRgbaView in, ConstRgbaView out, const SlicParams& params, int maxWidth, int maxHeight,
                   const char* who);
// slicGpu with the superpixel kernel's grid capped at `blocks` (> 0; 0: the co-resident
// count, as slicGpu), for the tests: several items a block.
void slicGpuPersistent(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicWorkspace& ws,
                       cudaStream_t stream, int blocks = 0);
// The superpixels alone (init, iterations, final assignment) on the CPU: scratch.labels()
// and scratch.centres() hold them after; no connectivity, no output.
void slicSuperpixelsCpu(ConstRgbaView in, const SlicParams& params, SlicCpuScratch& scratch);
}  // namespace detail

}  // namespace vp
