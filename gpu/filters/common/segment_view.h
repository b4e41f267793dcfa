// The views of a segmentation (`kmeans=...:view=colour|labels|boundaries`, and slic's):
// what the element paints, from a label per pixel: K-means's final assignment (uint8
// labels) or SLIC's region ids (uint32, slic.h).
//
//   colour      each pixel its segment's colour (what the filter writes; no pass here);
//   labels      each pixel its label's colour from a fixed palette (labelColour of
//               paletteIndex(label)), the same colour for the same label on every frame
//               and backend;
//   boundaries  the input pixel, or yellow (255, 255, 0) where its label differs from its
//               right or lower neighbour's: one-pixel segment borders over the frame.
// Alpha is the input's. One per-pixel function (integers only) serves the kernel and the
// CPU twin, so both backends give the same bytes.
#pragma once

#include "gpu/filters/common/tile_access.h"  // loadPixel: a pixel as one word
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp {

enum class SegmentView : uint8_t { Colour, Labels, Boundaries };

constexpr uint32_t kBoundaryColour = 0x00FFFFu;  // R | G << 8 | B << 16: yellow

// The labels view's colour of `label` (R | G << 8 | B << 16): hues 137.5 degrees apart (the
// golden angle, so neighbouring labels differ most), saturation 200/255, value 250 or 190
// for even and odd labels; integer HSV.
__host__ __device__ inline uint32_t labelColour(int label) {
  const int hue = (label * 1375) % 3600;  // tenths of a degree
  const int s = 200, v = (label & 1) ? 190 : 250;
  const int region = hue / 600, rem = (hue % 600) * 255 / 600;
  const int p = v * (255 - s) / 255, q = v * (255 - s * rem / 255) / 255, t = v * (255 - s * (255 - rem) / 255) / 255;
  int r = v, g = p, b = q;  // region 5
  switch (region) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: break;
  }
  return uint32_t(r) | uint32_t(g) << 8 | uint32_t(b) << 16;
}

// The palette entry of a label: a K-means label (0..31) is its own entry; a SLIC region id
// (a raster index, slic.h) is hashed to 0..255 (the top byte of id * 2654435761 mod 2^32,
// Knuth's multiplicative hash), so neighbouring regions get unrelated colours.
__host__ __device__ inline int paletteIndex(uint8_t label) { return label; }
__host__ __device__ inline int paletteIndex(uint32_t region) { return int((region * 2654435761u) >> 24); }

// The view's pixel (x, y) as R | G << 8 | B << 16 | A << 24; `labels`: in's width x height
// labels (uint8_t or uint32_t), row-major, pitch = width. View Colour returns the input pixel.
template <class Label>
__host__ __device__ inline uint32_t segmentViewPixel(SegmentView view, const Label* labels, ConstRgbaView src,
                                                     int x, int y) {
  const int width = src.width, height = src.height;
  const uint32_t in = tiles::loadPixel(src, x, y);
  const size_t at = size_t(y) * size_t(width) + size_t(x);
  const uint32_t alpha = in & 0xFF000000u;
  switch (view) {
    case SegmentView::Labels: return labelColour(paletteIndex(labels[at])) | alpha;
    case SegmentView::Boundaries: {
      const Label l = labels[at];
      const bool border = (x + 1 < width && labels[at + 1] != l) || (y + 1 < height && labels[at + size_t(width)] != l);
      return border ? kBoundaryColour | alpha : in;
    }
    case SegmentView::Colour: break;
  }
  return in;
}

// `out` = the view of `labels` over `in` (same size, distinct buffers). GPU: device
// pointers, stream-ordered; CPU: host memory, OpenMP rows. View Colour does nothing.
void segmentViewGpu(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out, cudaStream_t stream);
void segmentViewCpu(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out);
void segmentViewGpu(SegmentView view, ConstRgbaView in, const uint32_t* labels, RgbaView out, cudaStream_t stream);
void segmentViewCpu(SegmentView view, ConstRgbaView in, const uint32_t* labels, RgbaView out);

}  // namespace vp
