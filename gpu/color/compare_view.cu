#include "gpu/color/compare_view.h"

#include "gpu/cuda/cuda_check.h"

#include <cstdint>

namespace vp {
namespace {

constexpr int kTileW = 4;   // output pixels per thread
constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// One thread writes 4 output pixels; each picks its source as the contract says, so the
// view costs what rgbaToRgb24 costs. A tile that lies wholly on one side, off the line,
// takes the pack's wide path when aligned (one 16-byte load, three 4-byte stores); tiles
// at the line, at the right edge or unaligned go pixel by pixel.
template <bool Wide>
__global__ void composeCompareKernel(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, int column,
                                     int outW, uint8_t* dst, size_t dstPitch) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kTileW;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x0 >= outW || y >= original.height) return;
  const int w = original.width;
  uint8_t* out = dst + size_t(y) * dstPitch + 3 * size_t(x0);
  const int x1 = x0 + kTileW - 1;  // the tile's last column
  const bool fromProcessed = detail::compareTakesProcessed(mode, x0, w, column);
  const int sx = mode == CompareMode::Side && fromProcessed ? x0 - w : x0;  // source column of x0
  if (Wide && x1 < outW && fromProcessed == detail::compareTakesProcessed(mode, x1, w, column) &&
      !detail::compareIsLine(mode, x0, column) && !detail::compareIsLine(mode, x1, column) && sx % kTileW == 0) {
    const uchar4* in = (fromProcessed ? processed : original).row(y) + sx;
    const uint4 v = *reinterpret_cast<const uint4*>(in);  // RGBA RGBA RGBA RGBA, little endian
    uint32_t* o = reinterpret_cast<uint32_t*>(out);
    o[0] = (v.x & 0xFFFFFFu) | (v.y << 24);
    o[1] = ((v.y >> 8) & 0xFFFFu) | (v.z << 16);
    o[2] = ((v.z >> 16) & 0xFFu) | (v.w << 8);
    return;
  }
  for (int i = 0; i < kTileW && x0 + i < outW; ++i) {
    const uchar4 p = detail::comparePixel(original, processed, mode, x0 + i, y, column);
    out[3 * i] = p.x;
    out[3 * i + 1] = p.y;
    out[3 * i + 2] = p.z;
  }
}

bool aligned(const void* p, size_t pitch, size_t a) { return ((reinterpret_cast<uintptr_t>(p) | pitch) % a) == 0; }

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

}  // namespace

void composeCompareGpu(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                       uint8_t* dst, size_t dstPitch, cudaStream_t stream) {
  detail::checkCompareArgs(original, processed, mode, split, dst, dstPitch, "composeCompareGpu");
  const int outW = compareWidth(mode, original.width);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceilDiv(outW, kTileW * kBlockX), ceilDiv(original.height, kBlockY));
  const int column = splitColumn(split, original.width);
  const bool wide = aligned(original.data, original.pitch, 16) && aligned(processed.data, processed.pitch, 16) &&
                    aligned(dst, dstPitch, 4);
  if (wide)
    composeCompareKernel<true><<<grid, block, 0, stream>>>(original, processed, mode, column, outW, dst, dstPitch);
  else
    composeCompareKernel<false><<<grid, block, 0, stream>>>(original, processed, mode, column, outW, dst, dstPitch);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
