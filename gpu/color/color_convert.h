// Colour conversion between the native decoder layouts and the RGBA8 work format.
//
// Forward: any PixelFormat (planar / semi-planar / packed YUV, grey, RGB) -> pitched
// RGBA8, alpha 255 unless the source has alpha. YUV uses the BT.601, BT.709 or BT.2020
// (non-constant luminance) matrix, limited or full range, 8- or 10-bit samples, in the
// fixed-point arithmetic of color_math.h (nearest chroma siting: pixel x reads chroma
// sample x/2; 10-bit samples go straight to RGBA8 with one rounding). Grey is
// range-expanded when limited.
// Inverse (encoder path): RGBA8 -> yuv420p, chroma = rounded mean of each 2x2 block
// (only the pixels that exist at odd edges).
// Output packing: RGBA8 -> packed RGB24 rows. Alpha is always 255 in the work format,
// so the frames leave the device without it: a quarter fewer bytes over PCIe, whose
// device-to-host rate bounds the pipeline.
//
// GPU: each thread converts a 4-pixel row segment (two rows for 4:2:0, sharing chroma)
// with wide loads and one 16-byte store per row where the planes are aligned, byte
// loads elsewhere. O(w*h), memory bound. The CPU twins give the same bytes (OpenMP
// over rows). Every pixel is written for any width and height.
//
// Launchers and twins throw std::invalid_argument for empty or mismatched sizes, null
// planes or too-small pitches, and (inverse) a layout that is not yuv420p. Nothing is
// allocated per call.
#pragma once

#include "gpu/image.h"
#include "gpu/color/pixel_format.h"

#include <cuda_runtime_api.h>

namespace vp {

// src: planes in device memory (PlanarView); dst: device RGBA view of the same size.
void convertToRgbaGpu(const PlanarView& src, RgbaView dst, ColorSpace color, cudaStream_t stream);
// CPU twin: host planes and host RGBA, bit-identical to the GPU result.
void convertToRgbaCpu(const PlanarView& src, RgbaView dst, ColorSpace color);

// dst planes in device memory laid out as `layout` (format must be Yuv420p, size that of
// src) starting at dstBase, e.g. frameLayout(PixelFormat::Yuv420p, w, h).
void rgbaToYuv420pGpu(ConstRgbaView src, const FrameLayout& layout, void* dstBase, ColorSpace color,
                      cudaStream_t stream);
// CPU twin: host RGBA and host planes, bit-identical to the GPU result.
void rgbaToYuv420pCpu(ConstRgbaView src, const FrameLayout& layout, void* dstBase, ColorSpace color);

// dst: `src.height` rows of 3 * src.width bytes, `dstPitch` bytes apart (device memory).
void rgbaToRgb24Gpu(ConstRgbaView src, uint8_t* dst, size_t dstPitch, cudaStream_t stream);
// CPU twin (host memory), the same bytes.
void rgbaToRgb24Cpu(ConstRgbaView src, uint8_t* dst, size_t dstPitch);

namespace detail {
// Argument checks shared by the launchers and the twins (throw std::invalid_argument).
void checkToRgbaArgs(const PlanarView& src, const RgbaView& dst, const char* who);
void checkToYuv420pArgs(const ConstRgbaView& src, const FrameLayout& layout, const void* dstBase, const char* who);
void checkToRgb24Args(const ConstRgbaView& src, const uint8_t* dst, size_t dstPitch, const char* who);
}  // namespace detail

}  // namespace vp
