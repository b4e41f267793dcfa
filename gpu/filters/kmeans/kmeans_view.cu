// The K-means views on the GPU (kmeans_view.h): one thread a pixel.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/kmeans/kmeans_view.h"

namespace vp {
namespace {

__global__ void viewKernel(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y);
  if (x < in.width) tiles::storePixel(out, x, y, segmentViewPixel(view, labels, in, x, y));
}

}  // namespace

void segmentViewGpu(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out, cudaStream_t stream) {
  if (view == SegmentView::Colour || in.empty()) return;
  constexpr int kThreads = 256;
  viewKernel<<<dim3(unsigned(in.width + kThreads - 1) / kThreads, unsigned(in.height)), kThreads, 0, stream>>>(
      view, in, labels, out);
  VP_CUDA_CHECK(cudaGetLastError());
}

}  // namespace vp
