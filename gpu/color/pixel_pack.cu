// RGBA8 -> packed 8-bit layouts on the GPU: one thread per pixel, the arithmetic of
// detail::packPixel, so the bytes equal the CPU twin's. Memory bound (4 bytes read, 1..4
// written per pixel); RGB24 takes rgbaToRgb24Gpu's wide stores.
#include "gpu/color/pixel_pack.h"

#include "gpu/color/color_convert.h"
#include "gpu/cuda/cuda_check.h"

namespace vp {
namespace {

template <PixelFormat F>
__global__ void packKernel(ConstRgbaView src, uint8_t* dst, size_t dstPitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  constexpr int c = F == PixelFormat::Gray ? 1 : (F == PixelFormat::Bgr24 ? 3 : 4);
  detail::packPixel(src.at(x, y), F, dst + size_t(y) * dstPitch + size_t(x) * c);
}

template <PixelFormat F>
void launch(ConstRgbaView src, uint8_t* dst, size_t dstPitch, cudaStream_t stream) {
  const dim3 block(64, 4);
  const dim3 grid((src.width + block.x - 1) / block.x, (src.height + block.y - 1) / block.y);
  packKernel<F><<<grid, block, 0, stream>>>(src, dst, dstPitch);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace

void rgbaToPackedGpu(ConstRgbaView src, PixelFormat format, uint8_t* dst, size_t dstPitch, cudaStream_t stream) {
  detail::checkToPackedArgs(src, format, dst, dstPitch, "rgbaToPackedGpu");
  switch (format) {
    case PixelFormat::Rgb24: rgbaToRgb24Gpu(src, dst, dstPitch, stream); break;
    case PixelFormat::Gray: launch<PixelFormat::Gray>(src, dst, dstPitch, stream); break;
    case PixelFormat::Bgr24: launch<PixelFormat::Bgr24>(src, dst, dstPitch, stream); break;
    case PixelFormat::Rgba: launch<PixelFormat::Rgba>(src, dst, dstPitch, stream); break;
    case PixelFormat::Bgra: launch<PixelFormat::Bgra>(src, dst, dstPitch, stream); break;
    default: break;  // rejected by the check
  }
}

}  // namespace vp
