// The K-means views on the GPU (kmeans_view.h): one thread a pixel.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/kmeans/kmeans_view.h"

namespace vp {
namespace {

__global__ void viewKernel(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y);
  if (x >= in.width) return;
  const uchar4 p = in.at(x, y);
  const uint32_t word = uint32_t(p.x) | uint32_t(p.y) << 8 | uint32_t(p.z) << 16 | uint32_t(p.w) << 24;
  const uint32_t v = segmentViewPixel(view, labels, in.width, in.height, x, y, word);
  out.at(x, y) = make_uchar4(uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24));
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
