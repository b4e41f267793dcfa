// The K-means views on the CPU (kmeans_view.h): the kernel's per-pixel function, rows in parallel.
#include "gpu/filters/kmeans/kmeans_view.h"

namespace vp {

void segmentViewCpu(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out) {
  if (view == SegmentView::Colour) return;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) {
      const uchar4 p = in.at(x, y);
      const uint32_t word = uint32_t(p.x) | uint32_t(p.y) << 8 | uint32_t(p.z) << 16 | uint32_t(p.w) << 24;
      const uint32_t v = segmentViewPixel(view, labels, in.width, in.height, x, y, word);
      out.at(x, y) = make_uchar4(uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24));
    }
}

}  // namespace vp
