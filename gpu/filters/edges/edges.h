// Sobel edges of RGBA8 images on CUDA and its bit-exact CPU twin.
//
// Definition, all in integers (both backends compute exactly this):
//   Y(x, y) = (2126 R + 7152 G + 722 B + 5000) / 10000, integer division: the BT.709 luma
//             0.2126 R + 0.7152 G + 0.0722 B rounded half up, 0..255; coordinates outside
//             the image are clamped to it (border replicate);
//   Gx = [Y(x+1,y-1) + 2 Y(x+1,y) + Y(x+1,y+1)] - [Y(x-1,y-1) + 2 Y(x-1,y) + Y(x-1,y+1)],
//   Gy = [Y(x-1,y+1) + 2 Y(x,y+1) + Y(x+1,y+1)] - [Y(x-1,y-1) + 2 Y(x,y-1) + Y(x+1,y-1)]
//        (y grows downwards; |Gx|, |Gy| <= 1020);
//   M = min(255, round(sqrt(Gx^2 + Gy^2))), where for an integer n, round(sqrt(n)) = m + 1
//        if n - m^2 > m else m, m = floor(sqrt(n)) (exact on both backends: one correctly
//        rounded float root, rounded to an integer, is that value for every n; edges_math.h);
//   overlay = 0: out = (M, M, M, alpha);
//   overlay = 1: out = (0, 0, 0, alpha) where M >= t, the input pixel elsewhere.
// Alpha is copied from the input pixel. t = 0..255 (default 80); `kmeans=k=6,edges=overlay=1`
// draws black outlines over flat colours (the cartoon look).
//
// GPU (docs/design/edges.md): one kernel; a warp owns 30 columns x 8 rows, a lane one column
// (the outer two lanes the halo): its luma and vertical sums in registers, the horizontal
// neighbours' by shuffle, no shared memory.
#pragma once

#include "gpu/filters/edges/edges_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace vp {

// Writes the edges of `in` into `out` (same size, must not overlap) on `stream`.
// Asynchronous; no allocation, no scratch. Throws std::invalid_argument for a threshold
// outside 0..255, sizes beyond kMaxEdgesDimension, mismatched, misaligned or overlapping
// views; vp::CudaError when the launch fails.
void edgesGpu(ConstRgbaView in, RgbaView out, const EdgesParams& params, cudaStream_t stream);

// Host scratch for edgesCpu, sized once: the luma plane.
class EdgesCpuScratch {
 public:
  // Throws std::invalid_argument for sizes outside 1..kMaxEdgesDimension.
  EdgesCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct EdgesCpuScratchAccess;
  int maxWidth_ = 0;           // pixels
  int maxHeight_ = 0;          // pixels
  std::vector<uint8_t> luma_;  // maxWidth * maxHeight
};

// The CPU twin of edgesGpu: the same bytes; multi-threaded with OpenMP, deterministic.
// Same argument checks.
void edgesCpu(ConstRgbaView in, RgbaView out, const EdgesParams& params, EdgesCpuScratch& scratch);

}  // namespace vp
