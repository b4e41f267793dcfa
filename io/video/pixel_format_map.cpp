#include "io/video/pixel_format_map.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include <cstring>
#include <stdexcept>

namespace vp::av {

bool nativeFormat(AVPixelFormat f, NativeFormat& out) {
  out = NativeFormat{};
  switch (f) {
    case AV_PIX_FMT_YUVJ420P: out.fullRange = true; [[fallthrough]];
    case AV_PIX_FMT_YUV420P: out.format = PixelFormat::Yuv420p; return true;
    case AV_PIX_FMT_NV12: out.format = PixelFormat::Nv12; return true;
    case AV_PIX_FMT_YUVJ422P: out.fullRange = true; [[fallthrough]];
    case AV_PIX_FMT_YUV422P: out.format = PixelFormat::Yuv422p; return true;
    case AV_PIX_FMT_YUVJ444P: out.fullRange = true; [[fallthrough]];
    case AV_PIX_FMT_YUV444P: out.format = PixelFormat::Yuv444p; return true;
    case AV_PIX_FMT_YUYV422: out.format = PixelFormat::Yuyv422; return true;
    case AV_PIX_FMT_GRAY8: out.format = PixelFormat::Gray; return true;
    case AV_PIX_FMT_RGB24: out.format = PixelFormat::Rgb24; return true;
    case AV_PIX_FMT_BGR24: out.format = PixelFormat::Bgr24; return true;
    case AV_PIX_FMT_RGB0: out.opaqueAlpha = true; [[fallthrough]];
    case AV_PIX_FMT_RGBA: out.format = PixelFormat::Rgba; return true;
    case AV_PIX_FMT_BGR0: out.opaqueAlpha = true; [[fallthrough]];
    case AV_PIX_FMT_BGRA: out.format = PixelFormat::Bgra; return true;
    case AV_PIX_FMT_YUV420P10LE: out.format = PixelFormat::Yuv420p10; return true;
    case AV_PIX_FMT_YUV422P10LE: out.format = PixelFormat::Yuv422p10; return true;
    case AV_PIX_FMT_YUV444P10LE: out.format = PixelFormat::Yuv444p10; return true;
    case AV_PIX_FMT_P010LE: out.format = PixelFormat::P010; return true;
    default: return false;
  }
}

AVPixelFormat conversionTarget(AVPixelFormat f) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
  if (!d) return AV_PIX_FMT_YUV420P;
  if (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BAYER))
    return (d->flags & (AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_PAL)) ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24;
  if (d->nb_components <= 2) return AV_PIX_FMT_GRAY8;  // gray, gray+alpha
  const bool deep = d->comp[0].depth > 8;  // keep 10 bits of 12- and 16-bit YUV
  if (d->log2_chroma_w == 0 && d->log2_chroma_h == 0) return deep ? AV_PIX_FMT_YUV444P10LE : AV_PIX_FMT_YUV444P;
  if (d->log2_chroma_w == 1 && d->log2_chroma_h == 0) return deep ? AV_PIX_FMT_YUV422P10LE : AV_PIX_FMT_YUV422P;
  if (deep && d->log2_chroma_w == 1 && d->log2_chroma_h == 1) return AV_PIX_FMT_YUV420P10LE;
  return AV_PIX_FMT_YUV420P;
}

bool isJpegFormat(AVPixelFormat f) {
  return f == AV_PIX_FMT_YUVJ420P || f == AV_PIX_FMT_YUVJ422P || f == AV_PIX_FMT_YUVJ444P ||
         f == AV_PIX_FMT_YUVJ411P || f == AV_PIX_FMT_YUVJ440P;
}

ColorMatrix guessMatrix(int width, int height) {
  return width >= 1280 || height > 576 ? ColorMatrix::Bt709 : ColorMatrix::Bt601;
}

MatrixChoice frameMatrix(const AVFrame& f) {
  switch (enumValue(f.colorspace)) {
    case AVCOL_SPC_BT709: return {ColorMatrix::Bt709, MatrixChoice::Tagged};
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M: return {ColorMatrix::Bt601, MatrixChoice::Tagged};
    case AVCOL_SPC_BT2020_NCL: return {ColorMatrix::Bt2020, MatrixChoice::Tagged};
    // Close relatives, read with the nearest supported matrix.
    case AVCOL_SPC_FCC: return {ColorMatrix::Bt601, MatrixChoice::Approximated};
    case AVCOL_SPC_SMPTE240M: return {ColorMatrix::Bt709, MatrixChoice::Approximated};
    case AVCOL_SPC_BT2020_CL: return {ColorMatrix::Bt2020, MatrixChoice::Approximated};
    case AVCOL_SPC_UNSPECIFIED:
    case AVCOL_SPC_RESERVED: return {guessMatrix(f.width, f.height), MatrixChoice::Guessed};
    default: return {guessMatrix(f.width, f.height), MatrixChoice::Unsupported};
  }
}

ColorSpace frameColorSpace(const AVFrame& f, const NativeFormat& native) {
  ColorSpace c;
  c.matrix = frameMatrix(f).matrix;
  const int range = enumValue(f.color_range);
  const PixelFormat p = native.format;
  const bool rgb = p == PixelFormat::Rgb24 || p == PixelFormat::Bgr24 || p == PixelFormat::Rgba ||
                   p == PixelFormat::Bgra;
  if (native.fullRange || isJpegFormat(AVPixelFormat(f.format)) || range == AVCOL_RANGE_JPEG || rgb)
    c.range = ColorRange::Full;
  else if (range == AVCOL_RANGE_MPEG)
    c.range = ColorRange::Limited;
  else  // unspecified: gray is full range (as swscale treats it), YUV limited
    c.range = p == PixelFormat::Gray ? ColorRange::Full : ColorRange::Limited;
  return c;
}

void FrameWriter::plan(const AVFrame& f, FrameLayout& layout, ColorSpace& color, bool forRotation) {
  const auto src = AVPixelFormat(f.format);
  NativeFormat native;
  const bool direct = nativeFormat(src, native);
  AVPixelFormat target = direct ? src : conversionTarget(src);
  if (forRotation &&
      (target == AV_PIX_FMT_YUV422P || target == AV_PIX_FMT_YUVJ422P || target == AV_PIX_FMT_YUYV422))
    target = AV_PIX_FMT_YUV444P;
  if (forRotation && target == AV_PIX_FMT_YUV422P10LE) target = AV_PIX_FMT_YUV444P10LE;
  target_ = target == src ? AV_PIX_FMT_NONE : target;
  if (target_ != AV_PIX_FMT_NONE) {
    const bool full = native.fullRange;
    nativeFormat(target_, native);
    native.fullRange = full;  // yuvj422p turned into yuv444p stays full range
    if (loggedFrom_ != src) {
      const char* from = av_get_pix_fmt_name(src);
      spdlog::info("converting {} to {} on the CPU", from ? from : "?", av_get_pix_fmt_name(target_));
      loggedFrom_ = src;
    }
  }
  layout = frameLayout(native.format, f.width, f.height);
  color = frameColorSpace(f, native);
}

void FrameWriter::write(const AVFrame& f, const FrameLayout& layout, uint8_t* dst) {
  const auto src = AVPixelFormat(f.format);
  NativeFormat native;
  if (target_ == AV_PIX_FMT_NONE && nativeFormat(src, native)) {
    for (int p = 0; p < layout.planes; ++p) {
      const PlaneLayout& pl = layout.plane[p];
      for (int y = 0; y < pl.rows; ++y) {
        const uint8_t* s = f.data[p] + ptrdiff_t(y) * f.linesize[p];  // linesize may be negative
        uint8_t* d = dst + pl.offset + size_t(y) * pl.pitch;
        std::memcpy(d, s, pl.widthBytes);
        if (native.opaqueAlpha)
          for (size_t x = 3; x < pl.widthBytes; x += 4) d[x] = 255;
      }
    }
    return;
  }
  const AVPixelFormat target = target_ != AV_PIX_FMT_NONE ? target_ : conversionTarget(src);
  const int full = enumValue(f.color_range) == AVCOL_RANGE_JPEG || isJpegFormat(src) ? 1 : 0;
  sws_.reset(sws_getCachedContext(sws_.release(), f.width, f.height, src, f.width, f.height, target,
                                  SWS_BICUBIC | SWS_ACCURATE_RND, nullptr, nullptr, nullptr));
  if (!sws_) throw std::runtime_error(std::string("cannot convert ") + av_get_pix_fmt_name(src));
  const SwsKey key{int(src), int(target), f.width, f.height, full};
  if (!(key == swsKey_)) {
    // Keep the range: a YUV -> YUV or gray -> gray conversion changes only bit depth
    // and chroma siting, so the frame's matrix and range still describe the result.
    const int* coeffs = sws_getCoefficients(SWS_CS_DEFAULT);
    sws_setColorspaceDetails(sws_.get(), coeffs, full, coeffs, full, 0, 1 << 16, 1 << 16);
    swsKey_ = key;
  }
  uint8_t* planes[4] = {};
  int strides[4] = {};
  for (int p = 0; p < layout.planes; ++p) {
    planes[p] = dst + layout.plane[p].offset;
    strides[p] = int(layout.plane[p].pitch);
  }
  sws_scale(sws_.get(), f.data, f.linesize, 0, f.height, planes, strides);
}

}  // namespace vp::av
