#include "io/video/rotate.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace vp {
namespace {

// Bytes per sample of plane `p` (an NV12 UV pair counts as one sample).
size_t sampleBytes(PixelFormat f, int p) {
  switch (f) {
    case PixelFormat::Nv12:
      return p == 0 ? 1 : 2;
    case PixelFormat::P010:
      return p == 0 ? 2 : 4;
    case PixelFormat::Yuv420p10:
    case PixelFormat::Yuv422p10:
    case PixelFormat::Yuv444p10:
    case PixelFormat::Yuv444p16:
      return 2;
    case PixelFormat::Rgb24:
    case PixelFormat::Bgr24:
      return 3;
    case PixelFormat::Rgba:
    case PixelFormat::Bgra:
      return 4;
    default:
      return 1;
  }
}

// Source sample (x, y) of a cols x rows plane goes to destination (dx, dy).
template <int Degrees>
void rotatePlane(const uint8_t* s, size_t sPitch, int cols, int rows, size_t bytes, uint8_t* d,
                 size_t dPitch) {
  if (Degrees == 180) {
    for (int y = 0; y < rows; ++y) {
      const uint8_t* src = s + size_t(y) * sPitch;
      uint8_t* dst = d + size_t(rows - 1 - y) * dPitch;
      for (int x = 0; x < cols; ++x)
        std::memcpy(dst + size_t(cols - 1 - x) * bytes, src + size_t(x) * bytes, bytes);
    }
    return;
  }
  // A quarter turn is a transpose: tiles keep both sides' rows in cache.
  constexpr int kTile = 32;
  for (int ty = 0; ty < rows; ty += kTile)
    for (int tx = 0; tx < cols; tx += kTile)
      for (int y = ty; y < std::min(rows, ty + kTile); ++y)
        for (int x = tx; x < std::min(cols, tx + kTile); ++x) {
          const int dx = Degrees == 90 ? rows - 1 - y : y;
          const int dy = Degrees == 90 ? x : cols - 1 - x;
          std::memcpy(d + size_t(dy) * dPitch + size_t(dx) * bytes,
                      s + size_t(y) * sPitch + size_t(x) * bytes, bytes);
        }
}

}  // namespace

bool canRotate(PixelFormat format) {
  return format != PixelFormat::Yuv422p && format != PixelFormat::Yuyv422 && format != PixelFormat::Yuv422p10;
}

FrameLayout rotatedLayout(const FrameLayout& src, int degrees) {
  const bool quarter = degrees == 90 || degrees == 270;
  return frameLayout(src.format, quarter ? src.height : src.width, quarter ? src.width : src.height);
}

void rotateFrame(const FrameLayout& src, const uint8_t* s, int degrees, uint8_t* d) {
  if (degrees != 0 && degrees != 90 && degrees != 180 && degrees != 270)
    throw std::invalid_argument("rotateFrame: not a quarter turn: " + std::to_string(degrees));
  if (!canRotate(src.format)) throw std::invalid_argument("rotateFrame: 4:2:2 layouts cannot be turned");
  const FrameLayout dst = rotatedLayout(src, degrees);
  for (int p = 0; p < src.planes; ++p) {
    const PlaneLayout& sp = src.plane[p];
    const PlaneLayout& dp = dst.plane[p];
    const size_t bytes = sampleBytes(src.format, p);
    const int cols = int(sp.widthBytes / bytes);
    const uint8_t* sb = s + sp.offset;
    uint8_t* db = d + dp.offset;
    switch (degrees) {
      case 0:
        for (int y = 0; y < sp.rows; ++y)
          std::memcpy(db + size_t(y) * dp.pitch, sb + size_t(y) * sp.pitch, sp.widthBytes);
        break;
      case 90:
        rotatePlane<90>(sb, sp.pitch, cols, sp.rows, bytes, db, dp.pitch);
        break;
      case 180:
        rotatePlane<180>(sb, sp.pitch, cols, sp.rows, bytes, db, dp.pitch);
        break;
      default:
        rotatePlane<270>(sb, sp.pitch, cols, sp.rows, bytes, db, dp.pitch);
        break;
    }
  }
}

}  // namespace vp
