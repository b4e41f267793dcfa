// Maps decoded AVFrames onto vp's native frame layouts (gpu/color/pixel_format.h)
// and writes them tightly packed (rowAlign 1) into host memory.
//
// Native formats (8-bit ones, yuv420p10le / yuv422p10le / yuv444p10le and p010le)
// are copied plane by plane. Anything else goes through swscale once, into the
// nearest native format: deeper YUV (12-bit, 16-bit ...) -> the 10-bit layout of
// its subsampling, 8-bit YUV 4:4:4 -> yuv444p, 4:2:2 -> yuv422p, other YUV
// (yuv410p, yuv411p ...) -> yuv420p, high-depth gray -> gray, RGB-like (gbrp,
// rgb48, pal8, bayer ...) -> rgb24, or rgba when the source has alpha. No YUV<->RGB matrix is applied on the CPU, so the
// frame's ColorSpace stays valid for the GPU converter.
#pragma once

#include "gpu/color/pixel_format.h"
#include "io/av_util.h"

namespace vp::av {

// The native layout for a AVPixelFormat, if it has one.
struct NativeFormat {
  PixelFormat format = PixelFormat::Yuv420p;
  bool fullRange = false;    // a yuvj* format: full range whatever the frame says
  bool opaqueAlpha = false;  // rgb0/bgr0: the 4th byte is padding, written as 255
};
bool nativeFormat(AVPixelFormat f, NativeFormat& out);

// The native format a non-native one is converted into.
AVPixelFormat conversionTarget(AVPixelFormat f);

// yuvj*: full-range YUV whatever the frame says.
bool isJpegFormat(AVPixelFormat f);

// The YUV matrix a frame is converted with, and how it was chosen.
struct MatrixChoice {
  enum How : uint8_t {
    Tagged,        // the stream names a supported matrix (BT.601 / 709 / 2020 NCL)
    Guessed,       // unspecified: guessed from the frame size (guessMatrix)
    Approximated,  // a close relative (FCC -> 601, SMPTE 240M -> 709, BT.2020 CL -> 2020 NCL)
    Unsupported,   // another matrix (YCgCo, ICtCp, RGB ...): guessed from the size
  };
  ColorMatrix matrix = ColorMatrix::Bt601;
  How how = Tagged;
};
// What players guess for an unspecified matrix: BT.709 for HD (width >= 1280 or
// height > 576, mpv's rule), else BT.601.
ColorMatrix guessMatrix(int width, int height);
MatrixChoice frameMatrix(const AVFrame& f);

// Matrix from frameMatrix; range from the frame (or the yuvj format), unspecified =
// limited for YUV, full for gray and RGB.
ColorSpace frameColorSpace(const AVFrame& f, const NativeFormat& native);

// Writes decoded frames into tightly packed native layouts. Owns the swscale
// context (reused while the source format and size stay the same).
class FrameWriter {
 public:
  // The layout `f` will have in host memory (bytes to reserve) and its colour.
  // forRotation: the planes will be turned (io/video/rotate.h), so 4:2:2 layouts, whose
  // chroma is not square, become yuv444p.
  void plan(const AVFrame& f, FrameLayout& layout, ColorSpace& color, bool forRotation = false);
  // Writes `f` into `dst` (at least layout.bytes) as planned for it by the last plan().
  void write(const AVFrame& f, const FrameLayout& layout, uint8_t* dst);

 private:
  AVPixelFormat target_ = AV_PIX_FMT_NONE;  // swscale's output for the planned frame; NONE = copy
  SwsPtr sws_;
  struct SwsKey {
    int format = -1, target = -1, width = 0, height = 0, fullRange = 0;
    bool operator==(const SwsKey& o) const {
      return format == o.format && target == o.target && width == o.width && height == o.height &&
             fullRange == o.fullRange;
    }
  };
  SwsKey swsKey_;  // what sws_ was last set up for (its range is set once per key)
  int loggedFrom_ = AV_PIX_FMT_NONE;  // last conversion logged, so it is logged once
};

}  // namespace vp::av
