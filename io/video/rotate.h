// Turning frames upright (autorotate): quarter turns of tightly packed native
// layouts on the CPU, in the decode thread. One extra pass over the frame's
// bytes, far cheaper than decoding it; GPU kernels stay rotation-free.
#pragma once

#include "gpu/color/pixel_format.h"

#include <cstdint>

namespace vp {

// True for layouts whose planes can be turned as they are: every format but the
// 4:2:2 ones (yuv422p, yuv422p10, yuyv422), whose chroma would no longer be 4:2:2.
bool canRotate(PixelFormat format);

// The layout of a `src` frame turned clockwise by `degrees` (0, 90, 180, 270).
FrameLayout rotatedLayout(const FrameLayout& src, int degrees);

// Writes the planes of `src` (at `s`) turned clockwise by `degrees` into `d`,
// laid out as rotatedLayout(src, degrees). Throws std::invalid_argument for
// other angles or formats canRotate refuses.
void rotateFrame(const FrameLayout& src, const uint8_t* s, int degrees, uint8_t* d);

}  // namespace vp
