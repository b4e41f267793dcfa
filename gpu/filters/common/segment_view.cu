// The segmentation views on the GPU (common/segment_view.h): one thread a pixel.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/common/segment_view.h"

namespace vp {
namespace {

template <class Label>
__global__ void viewKernel(SegmentView view, ConstRgbaView in, const Label* labels, RgbaView out) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y);
  if (x < in.width) tiles::storePixel(out, x, y, segmentViewPixel(view, labels, in, x, y));
}

template <class Label>
void launchView(SegmentView view, ConstRgbaView in, const Label* labels, RgbaView out, cudaStream_t stream) {
  if (view == SegmentView::Colour || in.empty()) return;
  constexpr int kThreads = 256;
  viewKernel<<<dim3(unsigned(in.width + kThreads - 1) / kThreads, unsigned(in.height)), kThreads, 0, stream>>>(
      view, in, labels, out);
  VP_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void segmentViewGpu(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out, cudaStream_t stream) {
  launchView(view, in, labels, out, stream);
}
void segmentViewGpu(SegmentView view, ConstRgbaView in, const uint32_t* labels, RgbaView out, cudaStream_t stream) {
  launchView(view, in, labels, out, stream);
}

}  // namespace vp
