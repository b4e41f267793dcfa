// vidproc on OpenCV images (target vidproc::opencv, header only): cv::Mat in host memory,
// 8-bit with 1, 3 or 4 channels, in OpenCV's BGR order unless told it is RGB.
//
//   vp::Chain chain("blur=r=2,kmeans=k=6");
//   cv::Mat out = vp::opencv::process(chain, cv::imread("frame.png"));
//
// Row-padded and ROI matrices work as they are (their step is the pitch); the output is
// allocated (or reused) with the input's size and type. Other depths throw
// std::invalid_argument naming the type.
#pragma once

#include <vidproc/vidproc.h>

#include <opencv2/core.hpp>

#include <stdexcept>
#include <string>

namespace vp::opencv {

// The view of `m` that vp::Chain takes (no copy).
inline Image imageOf(const cv::Mat& m, bool rgbOrder = false) {
  if (m.depth() != CV_8U || m.dims != 2)
    throw std::invalid_argument("vidproc: a cv::Mat of 8-bit pixels is needed, not " + cv::typeToString(m.type()));
  PixelLayout layout;
  switch (m.channels()) {
    case 1: layout = PixelLayout::GRAY; break;
    case 3: layout = rgbOrder ? PixelLayout::RGB : PixelLayout::BGR; break;
    case 4: layout = rgbOrder ? PixelLayout::RGBA : PixelLayout::BGRA; break;
    default: throw std::invalid_argument("vidproc: 1, 3 or 4 channels are needed, not " + cv::typeToString(m.type()));
  }
  return Image{m.data, m.step[0], m.cols, m.rows, layout, MemoryKind::Host, 0};
}

// Runs the chain on `in` into `out` (created with in's size and type when it differs).
// `out` may be `in` (in place).
inline void process(Chain& chain, const cv::Mat& in, cv::Mat& out, bool rgbOrder = false) {
  if (out.data != in.data) out.create(in.size(), in.type());
  chain.process(imageOf(in, rgbOrder), imageOf(out, rgbOrder));
}

inline cv::Mat process(Chain& chain, const cv::Mat& in, bool rgbOrder = false) {
  cv::Mat out(in.size(), in.type());
  process(chain, in, out, rgbOrder);
  return out;
}

}  // namespace vp::opencv
