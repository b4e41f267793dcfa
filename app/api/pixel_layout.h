// The library's pixel layouts as the colour layer's packed formats, and the checks of a
// caller's image (internal to app/api).
#pragma once

#include "app/api/vidproc.h"
#include "gpu/color/pixel_format.h"

#include <stdexcept>
#include <string>

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

inline size_t rowBytes(const Image& im) { return size_t(im.width) * size_t(channelsOf(im.layout)); }

// A caller's image: data, a size, a known layout, a pitch that holds a row; else
// std::invalid_argument naming `which` ("input", "output").
inline void checkImage(const Image& im, const char* which) {
  const std::string w(which);
  if (!im.data) throw std::invalid_argument(w + " image: null data");
  if (im.width <= 0 || im.height <= 0)
    throw std::invalid_argument(w + " image: empty (" + std::to_string(im.width) + "x" + std::to_string(im.height) + ")");
  if (channelsOf(im.layout) == 0) throw std::invalid_argument(w + " image: unknown pixel layout");
  if (im.pitch < rowBytes(im))
    throw std::invalid_argument(w + " image: pitch " + std::to_string(im.pitch) + " is below its row of " +
                                std::to_string(rowBytes(im)) + " bytes (" + std::string(layoutName(im.layout)) + ")");
}

}  // namespace vp::api
