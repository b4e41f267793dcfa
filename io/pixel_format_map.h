// Maps decoded AVFrames onto vp's native frame layouts (gpu/color/pixel_format.h)
// and writes them tightly packed (rowAlign 1) into host memory.
//
// Native formats are copied plane by plane. Anything else goes through swscale
// once, into the nearest native 8-bit format: YUV 4:4:4 -> yuv444p, 4:2:2 ->
// yuv422p, other YUV (10-bit 4:2:0, p010, yuv410p ...) -> yuv420p, high-depth
// gray -> gray, RGB-like (gbrp, rgb48, pal8, bayer ...) -> rgb24, or rgba when
// the source has alpha. No YUV<->RGB matrix is applied on the CPU, so the
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

// The native 8-bit format a non-native one is converted into.
AVPixelFormat conversionTarget(AVPixelFormat f);

// yuvj*: full-range YUV whatever the frame says.
bool isJpegFormat(AVPixelFormat f);

// BT.709 when the frame says so, else BT.601; range from the frame (or the
// yuvj format), unspecified = limited for YUV, full for gray and RGB.
ColorSpace frameColorSpace(const AVFrame& f, const NativeFormat& native);

// Writes decoded frames into tightly packed native layouts. Owns the swscale
// context (reused while the source format and size stay the same).
class FrameWriter {
 public:
  // The layout `f` will have in host memory (bytes to reserve) and its colour.
  // forRotation: the planes will be turned (io/rotate.h), so 4:2:2 layouts, whose
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
