// The library's pixel layouts as the colour layer's packed formats (internal to app/api).
#pragma once

#include "app/api/vidproc.h"
#include "gpu/color/pixel_format.h"

#include <stdexcept>

namespace vp::api {

inline PixelFormat formatOf(PixelLayout layout) {
  switch (layout) {
    case PixelLayout::RGBA: return PixelFormat::Rgba;
    case PixelLayout::RGB: return PixelFormat::Rgb24;
    case PixelLayout::BGR: return PixelFormat::Bgr24;
    case PixelLayout::BGRA: return PixelFormat::Bgra;
    case PixelLayout::GRAY: return PixelFormat::Gray;
  }
  throw std::invalid_argument("unknown pixel layout");
}

}  // namespace vp::api
