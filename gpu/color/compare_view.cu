#include "gpu/color/compare_view.h"

#include "gpu/cuda/cuda_check.h"

namespace vp {
namespace {

constexpr int kTileW = 4;   // output pixels per thread
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// One thread writes 4 output pixels; each picks its source as the contract says. The
// view costs what rgbaToRgb24 costs: one read of one source pixel per output pixel.
__global__ void composeCompareKernel(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, int column,
                                     int outW, uint8_t* dst, size_t dstPitch) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kTileW;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x0 >= outW || y >= original.height) return;
  const int w = original.width;
  uint8_t* out = dst + size_t(y) * dstPitch + 3 * size_t(x0);
  for (int i = 0; i < kTileW && x0 + i < outW; ++i) {
    const int x = x0 + i;
    uchar4 p;
    if (detail::compareIsLine(mode, x, column)) p = make_uchar4(kCompareLine, kCompareLine, kCompareLine, 255);
    else if (detail::compareTakesProcessed(mode, x, w, column)) p = processed.row(y)[mode == CompareMode::Side ? x - w : x];
    else p = original.row(y)[x];
    out[3 * i] = p.x;
    out[3 * i + 1] = p.y;
    out[3 * i + 2] = p.z;
  }
}

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

}  // namespace

void composeCompareGpu(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                       uint8_t* dst, size_t dstPitch, cudaStream_t stream) {
  detail::checkCompareArgs(original, processed, mode, split, dst, dstPitch, "composeCompareGpu");
  const int outW = compareWidth(mode, original.width);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceilDiv(outW, kTileW * kBlockX), ceilDiv(original.height, kBlockY));
  composeCompareKernel<<<grid, block, 0, stream>>>(original, processed, mode, splitColumn(split, original.width), outW,
                                                   dst, dstPitch);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
