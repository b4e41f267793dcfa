#include "gpu/color/pixel_format.h"

#include <stdexcept>

namespace vp {
namespace {

size_t roundUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

struct PlaneShape {
  size_t widthBytes;
  int rows;
};

int planeShapes(PixelFormat f, int w, int h, PlaneShape out[kMaxPlanes]) {
  const size_t cw = size_t(w + 1) / 2;  // chroma width for horizontally subsampled formats
  const int ch = (h + 1) / 2;
  const size_t uw = size_t(w);
  switch (f) {
    case PixelFormat::Yuv420p10: out[0] = {2 * uw, h}; out[1] = {2 * cw, ch}; out[2] = {2 * cw, ch}; return 3;
    case PixelFormat::Yuv422p10: out[0] = {2 * uw, h}; out[1] = {2 * cw, h}; out[2] = {2 * cw, h}; return 3;
    case PixelFormat::Yuv444p10:
    case PixelFormat::Yuv444p16: out[0] = {2 * uw, h}; out[1] = {2 * uw, h}; out[2] = {2 * uw, h}; return 3;
    case PixelFormat::P010: out[0] = {2 * uw, h}; out[1] = {4 * cw, ch}; return 2;
    case PixelFormat::Yuv420p: out[0] = {uw, h}; out[1] = {cw, ch}; out[2] = {cw, ch}; return 3;
    case PixelFormat::Nv12: out[0] = {uw, h}; out[1] = {2 * cw, ch}; return 2;
    case PixelFormat::Yuv422p: out[0] = {uw, h}; out[1] = {cw, h}; out[2] = {cw, h}; return 3;
    case PixelFormat::Yuv444p: out[0] = {uw, h}; out[1] = {uw, h}; out[2] = {uw, h}; return 3;
    case PixelFormat::Yuyv422: out[0] = {4 * cw, h}; return 1;
    case PixelFormat::Gray: out[0] = {uw, h}; return 1;
    case PixelFormat::Rgb24:
    case PixelFormat::Bgr24: out[0] = {3 * uw, h}; return 1;
    case PixelFormat::Rgba:
    case PixelFormat::Bgra: out[0] = {4 * uw, h}; return 1;
  }
  throw std::invalid_argument("unknown pixel format");
}

constexpr struct {
  PixelFormat format;
  std::string_view name;
} kNames[] = {
    {PixelFormat::Yuv420p, "yuv420p"}, {PixelFormat::Nv12, "nv12"},   {PixelFormat::Yuv422p, "yuv422p"},
    {PixelFormat::Yuv444p, "yuv444p"}, {PixelFormat::Yuyv422, "yuyv422"}, {PixelFormat::Gray, "gray"},
    {PixelFormat::Rgb24, "rgb24"},     {PixelFormat::Bgr24, "bgr24"},   {PixelFormat::Rgba, "rgba"},
    {PixelFormat::Bgra, "bgra"},           {PixelFormat::Yuv420p10, "yuv420p10le"},
    {PixelFormat::Yuv422p10, "yuv422p10le"}, {PixelFormat::Yuv444p10, "yuv444p10le"},
    {PixelFormat::P010, "p010le"},         {PixelFormat::Yuv444p16, "yuv444p16le"},
};

}  // namespace

FrameLayout frameLayout(PixelFormat format, int width, int height, size_t rowAlign) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("frameLayout: empty frame");
  if (rowAlign == 0) rowAlign = 1;
  FrameLayout l;
  l.format = format;
  l.width = width;
  l.height = height;
  PlaneShape shapes[kMaxPlanes];
  l.planes = planeShapes(format, width, height, shapes);
  size_t offset = 0;
  for (int p = 0; p < l.planes; ++p) {
    PlaneLayout& pl = l.plane[p];
    pl.offset = roundUp(offset, rowAlign);
    pl.widthBytes = shapes[p].widthBytes;
    pl.pitch = roundUp(shapes[p].widthBytes, rowAlign);
    pl.rows = shapes[p].rows;
    offset = pl.offset + pl.pitch * size_t(pl.rows);
  }
  l.bytes = offset;
  return l;
}

PlanarView planarView(const FrameLayout& layout, const void* base) {
  PlanarView v;
  v.format = layout.format;
  v.width = layout.width;
  v.height = layout.height;
  for (int p = 0; p < layout.planes; ++p) {
    v.data[p] = static_cast<const uint8_t*>(base) + layout.plane[p].offset;
    v.pitch[p] = layout.plane[p].pitch;
  }
  return v;
}

int pixelFormatDepth(PixelFormat format) {
  switch (format) {
    case PixelFormat::Yuv420p10:
    case PixelFormat::Yuv422p10:
    case PixelFormat::Yuv444p10:
    case PixelFormat::P010:
    case PixelFormat::Yuv444p16: return 10;
    default: return 8;
  }
}

std::string_view colorMatrixName(ColorMatrix matrix) {
  switch (matrix) {
    case ColorMatrix::Bt601: return "bt601";
    case ColorMatrix::Bt709: return "bt709";
    case ColorMatrix::Bt2020: return "bt2020nc";
  }
  return "unknown";
}

std::string_view pixelFormatName(PixelFormat format) {
  for (const auto& n : kNames)
    if (n.format == format) return n.name;
  return "unknown";
}

bool parsePixelFormat(std::string_view name, PixelFormat& out) {
  for (const auto& n : kNames)
    if (n.name == name) {
      out = n.format;
      return true;
    }
  return false;
}

}  // namespace vp
