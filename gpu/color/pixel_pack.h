// RGBA8 work format -> a caller's packed 8-bit layout: RGB24, BGR24, RGBA, BGRA or grey.
//
// Grey is the rounded luma (77 R + 150 G + 29 B + 128) >> 8: the weights sum to 256, so a
// grey pixel (R = G = B) comes back unchanged and a grey image survives the trip through
// the RGBA chain byte for byte. RGBA copies, BGRA swaps R and B, RGB24/BGR24 drop alpha.
//
// GPU: one thread per pixel, byte stores (RGB24 uses the 16-byte path of
// rgbaToRgb24Gpu). The CPU twin gives the same bytes. Both throw std::invalid_argument for
// an empty source, a null destination, a pitch below width * channels or a format that
// is not one of the five.
#pragma once

#include "gpu/color/pixel_format.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace vp {

// Bytes per pixel of the five packed 8-bit formats (Gray 1, Rgb24/Bgr24 3, Rgba/Bgra 4); 0 otherwise.
int packedChannels(PixelFormat format);

void rgbaToPackedGpu(ConstRgbaView src, PixelFormat format, uint8_t* dst, size_t dstPitch, cudaStream_t stream);
void rgbaToPackedCpu(ConstRgbaView src, PixelFormat format, uint8_t* dst, size_t dstPitch);

namespace detail {
void checkToPackedArgs(const ConstRgbaView& src, PixelFormat format, const uint8_t* dst, size_t dstPitch,
                       const char* who);

// One pixel in `format` (packedChannels bytes at `out`): the arithmetic both sides share.
__host__ __device__ inline void packPixel(uchar4 p, PixelFormat format, uint8_t* out) {
  switch (format) {
    case PixelFormat::Gray: out[0] = uint8_t((77u * p.x + 150u * p.y + 29u * p.z + 128u) >> 8); break;
    case PixelFormat::Rgb24: out[0] = p.x, out[1] = p.y, out[2] = p.z; break;
    case PixelFormat::Bgr24: out[0] = p.z, out[1] = p.y, out[2] = p.x; break;
    case PixelFormat::Rgba: out[0] = p.x, out[1] = p.y, out[2] = p.z, out[3] = p.w; break;
    case PixelFormat::Bgra: out[0] = p.z, out[1] = p.y, out[2] = p.x, out[3] = p.w; break;
    default: break;
  }
}
}  // namespace detail

}  // namespace vp
