// CPU twins of the colour conversion kernels and the argument checks they share.
// Per pixel they run the same integer arithmetic (color_math.h) as the kernels' edge
// path, so their bytes are the kernels' bytes; rows are split over OpenMP threads and
// each output byte depends on its inputs only (deterministic).
#include "gpu/color/color_convert.h"

#include "gpu/color/color_math.h"

#include <stdexcept>
#include <string>

namespace vp {

namespace detail {

void checkToRgbaArgs(const PlanarView& src, const RgbaView& dst, const char* who) {
  auto fail = [&](const char* what) { throw std::invalid_argument(std::string(who) + ": " + what); };
  if (src.width <= 0 || src.height <= 0) fail("empty frame");
  if (src.width != dst.width || src.height != dst.height) fail("source and destination sizes differ");
  if (!dst.data) fail("null destination");
  if (dst.pitch < size_t(dst.width) * sizeof(uchar4)) fail("destination pitch below width * 4");
  const FrameLayout tight = frameLayout(src.format, src.width, src.height);
  for (int p = 0; p < tight.planes; ++p) {
    if (!src.data[p]) fail("null source plane");
    if (src.pitch[p] < tight.plane[p].widthBytes) fail("source plane pitch below its row width");
  }
}

void checkToYuv420pArgs(const ConstRgbaView& src, const FrameLayout& layout, const void* dstBase, const char* who) {
  auto fail = [&](const char* what) { throw std::invalid_argument(std::string(who) + ": " + what); };
  if (layout.format != PixelFormat::Yuv420p || layout.planes != 3) fail("destination layout is not yuv420p");
  if (src.width <= 0 || src.height <= 0) fail("empty frame");
  if (src.width != layout.width || src.height != layout.height) fail("source and destination sizes differ");
  if (!src.data) fail("null source");
  if (src.pitch < size_t(src.width) * sizeof(uchar4)) fail("source pitch below width * 4");
  if (!dstBase) fail("null destination");
  const FrameLayout tight = frameLayout(PixelFormat::Yuv420p, src.width, src.height);
  for (int p = 0; p < 3; ++p)
    if (layout.plane[p].pitch < tight.plane[p].widthBytes || layout.plane[p].rows < tight.plane[p].rows)
      fail("destination plane smaller than the frame");
}

void checkToRgb24Args(const ConstRgbaView& src, const uint8_t* dst, size_t dstPitch, const char* who) {
  auto fail = [&](const char* what) { throw std::invalid_argument(std::string(who) + ": " + what); };
  if (src.width <= 0 || src.height <= 0) fail("empty frame");
  if (!src.data) fail("null source");
  if (src.pitch < size_t(src.width) * sizeof(uchar4)) fail("source pitch below width * 4");
  if (!dst) fail("null destination");
  if (dstPitch < size_t(src.width) * 3) fail("destination pitch below width * 3");
}

}  // namespace detail

namespace {

template <PixelFormat F>
void toRgbaRows(const PlanarView& src, const RgbaView& dst, const color::YuvToRgbCoeffs& c) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    uchar4* row = dst.row(y);
    for (int x = 0; x < dst.width; ++x) row[x] = color::unpackRgba(color::pixelAt<F>(src, x, y, c));
  }
}

}  // namespace

void convertToRgbaCpu(const PlanarView& src, RgbaView dst, ColorSpace color) {
  detail::checkToRgbaArgs(src, dst, "convertToRgbaCpu");
  const color::YuvToRgbCoeffs c = color::yuvToRgbCoeffs(color, pixelFormatDepth(src.format));
  switch (src.format) {
    case PixelFormat::Yuv420p10: return toRgbaRows<PixelFormat::Yuv420p10>(src, dst, c);
    case PixelFormat::Yuv422p10: return toRgbaRows<PixelFormat::Yuv422p10>(src, dst, c);
    case PixelFormat::Yuv444p10: return toRgbaRows<PixelFormat::Yuv444p10>(src, dst, c);
    case PixelFormat::P010: return toRgbaRows<PixelFormat::P010>(src, dst, c);
    case PixelFormat::Yuv444p16: return toRgbaRows<PixelFormat::Yuv444p16>(src, dst, c);
    case PixelFormat::Yuv420p: return toRgbaRows<PixelFormat::Yuv420p>(src, dst, c);
    case PixelFormat::Nv12: return toRgbaRows<PixelFormat::Nv12>(src, dst, c);
    case PixelFormat::Yuv422p: return toRgbaRows<PixelFormat::Yuv422p>(src, dst, c);
    case PixelFormat::Yuv444p: return toRgbaRows<PixelFormat::Yuv444p>(src, dst, c);
    case PixelFormat::Yuyv422: return toRgbaRows<PixelFormat::Yuyv422>(src, dst, c);
    case PixelFormat::Gray: return toRgbaRows<PixelFormat::Gray>(src, dst, c);
    case PixelFormat::Rgb24: return toRgbaRows<PixelFormat::Rgb24>(src, dst, c);
    case PixelFormat::Bgr24: return toRgbaRows<PixelFormat::Bgr24>(src, dst, c);
    case PixelFormat::Rgba: return toRgbaRows<PixelFormat::Rgba>(src, dst, c);
    case PixelFormat::Bgra: return toRgbaRows<PixelFormat::Bgra>(src, dst, c);
  }
  throw std::invalid_argument("convertToRgbaCpu: unknown pixel format");
}

void rgbaToYuv420pCpu(ConstRgbaView src, const FrameLayout& layout, void* dstBase, ColorSpace color) {
  detail::checkToYuv420pArgs(src, layout, dstBase, "rgbaToYuv420pCpu");
  const color::RgbToYuvCoeffs c = color::rgbToYuvCoeffs(color);
  uint8_t* base = static_cast<uint8_t*>(dstBase);
  const color::Yuv420pPlanes d{base + layout.plane[0].offset, base + layout.plane[1].offset,
                               base + layout.plane[2].offset, layout.plane[0].pitch,
                               layout.plane[1].pitch,         layout.plane[2].pitch};
  const int cw = (src.width + 1) / 2, ch = (src.height + 1) / 2;
#pragma omp parallel for schedule(static)
  for (int cy = 0; cy < ch; ++cy)
    for (int cx = 0; cx < cw; ++cx) color::rgbaBlockToYuv420p(src, d, cx, cy, c);
}

void rgbaToRgb24Cpu(ConstRgbaView src, uint8_t* dst, size_t dstPitch) {
  detail::checkToRgb24Args(src, dst, dstPitch, "rgbaToRgb24Cpu");
#pragma omp parallel for schedule(static)
  for (int y = 0; y < src.height; ++y) {
    const uchar4* in = src.row(y);
    uint8_t* out = dst + size_t(y) * dstPitch;
    for (int x = 0; x < src.width; ++x) {
      out[3 * x] = in[x].x;
      out[3 * x + 1] = in[x].y;
      out[3 * x + 2] = in[x].z;
    }
  }
}

}  // namespace vp
