// Sobel edges on CUDA (edges.h): the kernel, the per-lane stages of edges_tiles.h joined by
// warp shuffles, and its launcher.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/edges/edges.h"
#include "gpu/filters/edges/edges_math.h"
#include "gpu/filters/edges/edges_tiles.h"

#include <cuda_runtime.h>

namespace vp {
namespace {

__global__ void __launch_bounds__(kStripThreads)
    edgesKernel(ConstRgbaView in, RgbaView out, EdgesParams params) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  const edges::Lane l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  edges::Column c;
  edges::columnOf(in, l, c);
  const bool owner = l.ownsColumn(in.width);
#pragma unroll
  for (int i = 0; i < edges::kRows; ++i) {
    const int smoothL = __shfl_up_sync(kFullWarp, c.smooth[i], 1),
              smoothR = __shfl_down_sync(kFullWarp, c.smooth[i], 1);
    const int diffL = __shfl_up_sync(kFullWarp, c.diff[i], 1),
              diffR = __shfl_down_sync(kFullWarp, c.diff[i], 1);
    const int y = l.y0 + i;
    if (owner && y < in.height)
      tiles::storePixel(out, l.x, y,
                        edges::stripOutput(smoothL, smoothR, diffL, c.diff[i], diffR, c.pixel[i], params));
  }
}

}  // namespace

void edgesGpu(ConstRgbaView in, RgbaView out, const EdgesParams& params, cudaStream_t stream) {
  if (!edges::checkEdgesArgs(in, out, params, "edgesGpu")) return;
  const dim3 grid(stripBlocksAcross<1>(in.width), stripBlocksDown(in.height, edges::kRows));
  launchKernel(edgesKernel, grid, dim3(kStripThreads), 0, stream, pdlAvailable(), in, out, params);
}

}  // namespace vp
