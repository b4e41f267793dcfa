// Sobel edges on CUDA (edges.h): the kernel, a thin wrapper of the per-thread phases in
// edges_tiles.h, and its launcher.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/edges/edges.h"
#include "gpu/filters/edges/edges_math.h"
#include "gpu/filters/edges/edges_tiles.h"

#include <cuda_runtime.h>

namespace vp {
namespace {

__global__ void __launch_bounds__(edges::kThreads) edgesKernel(ConstRgbaView in, RgbaView out, EdgesParams params) {
  __shared__ uint8_t luma[edges::kLumaBytes];
  const edges::EdgesBlock b(luma, int(blockIdx.x), int(blockIdx.y));
  edges::edgesStage(b, in, int(threadIdx.x));
  __syncthreads();
  edges::edgesOutputs(b, in, out, params, int(threadIdx.x));
}

}  // namespace

void edgesGpu(ConstRgbaView in, RgbaView out, const EdgesParams& params, cudaStream_t stream) {
  if (!edges::checkEdgesArgs(in, out, params, "edgesGpu")) return;
  const dim3 grid((in.width + edges::kTileCols - 1) / edges::kTileCols,
                  (in.height + edges::kTileRows - 1) / edges::kTileRows);
  edgesKernel<<<grid, edges::kThreads, 0, stream>>>(in, out, params);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
