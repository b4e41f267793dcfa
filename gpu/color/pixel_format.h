// Native frame layouts the GPU converter takes, independent of libav.
//
// A decoded frame travels host -> device in its native layout: up to three
// planes packed one after another in one buffer (so one copy moves the frame).
// io/ maps AVPixelFormat onto PixelFormat; gpu/ never sees libav types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vp {

enum class PixelFormat : uint8_t {
  Yuv420p,  // 3 planes Y, U, V; chroma (w+1)/2 x (h+1)/2
  Nv12,     // 2 planes Y, interleaved UV; chroma (w+1)/2 x (h+1)/2
  Yuv422p,  // 3 planes; chroma (w+1)/2 x h
  Yuv444p,  // 3 planes, full-size chroma
  Yuyv422,  // 1 plane, Y0 U Y1 V per 2 pixels, row = 2*((w+1)/2)*2 bytes
  Gray,     // 1 plane, 1 byte per pixel
  Rgb24,    // 1 plane, R G B
  Bgr24,    // 1 plane, B G R
  Rgba,     // 1 plane, R G B A
  Bgra,     // 1 plane, B G R A
  // 10-bit YUV, one little-endian 16-bit word per sample (2 bytes), planes as their
  // 8-bit twins. LSB-aligned (libav's *p10le: value in bits 0..9, bits 10..15 ignored)
  // or MSB-aligned (p010le, yuv444p16le as NVDEC writes them: value in bits 6..15,
  // bits 0..5 ignored, so 10 bits of precision are used).
  Yuv420p10,  // 3 planes; chroma (w+1)/2 x (h+1)/2
  Yuv422p10,  // 3 planes; chroma (w+1)/2 x h
  Yuv444p10,  // 3 planes, full-size chroma
  P010,       // 2 planes Y, interleaved UV (MSB-aligned); chroma (w+1)/2 x (h+1)/2
  Yuv444p16,  // 3 planes, full-size chroma, MSB-aligned 10-bit (NVDEC's 4:4:4 10-bit surface)
};

// Bits per sample the converter uses: 10 for the 10-bit formats above, else 8.
int pixelFormatDepth(PixelFormat format);

// YUV matrices: BT.601, BT.709, BT.2020 non-constant luminance (BT.2020 constant
// luminance is not supported: io/ reads it as BT.2020 NCL and says so once).
enum class ColorMatrix : uint8_t { Bt601, Bt709, Bt2020 };
std::string_view colorMatrixName(ColorMatrix matrix);  // "bt601", "bt709", "bt2020nc"
enum class ColorRange : uint8_t { Limited, Full };  // limited = Y 16..235, C 16..240

struct ColorSpace {
  ColorMatrix matrix = ColorMatrix::Bt601;
  ColorRange range = ColorRange::Limited;
};

constexpr int kMaxPlanes = 3;

struct PlaneLayout {
  size_t offset = 0;      // bytes from the start of the frame buffer
  size_t pitch = 0;       // bytes between rows
  size_t widthBytes = 0;  // meaningful bytes per row
  int rows = 0;
};

// Where each plane of a width x height frame lives inside one buffer.
struct FrameLayout {
  PixelFormat format = PixelFormat::Rgba;
  int width = 0;
  int height = 0;
  int planes = 0;
  PlaneLayout plane[kMaxPlanes];
  size_t bytes = 0;  // total buffer size
};

// Layout with each row padded to `rowAlign` bytes (1 = tightly packed) and
// each plane starting at a multiple of `rowAlign`.
FrameLayout frameLayout(PixelFormat format, int width, int height, size_t rowAlign = 1);

// Read-only pointers to the planes of one frame (host or device memory).
struct PlanarView {
  PixelFormat format = PixelFormat::Rgba;
  int width = 0;
  int height = 0;
  const uint8_t* data[kMaxPlanes] = {};
  size_t pitch[kMaxPlanes] = {};
};

// The planes of `layout` inside the buffer starting at `base`.
PlanarView planarView(const FrameLayout& layout, const void* base);

std::string_view pixelFormatName(PixelFormat format);
// Parses the names pixelFormatName prints (libav's: "yuv420p", "nv12", ...); false if unknown.
bool parsePixelFormat(std::string_view name, PixelFormat& out);

}  // namespace vp
