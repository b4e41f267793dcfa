// The segmentation views on the CPU (common/segment_view.h): the kernel's per-pixel function, rows in parallel.
#include "gpu/filters/common/segment_view.h"

namespace vp {

namespace {

template <class Label>
void paintView(SegmentView view, ConstRgbaView in, const Label* labels, RgbaView out) {
  if (view == SegmentView::Colour) return;
#pragma omp parallel for schedule(static)
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) tiles::storePixel(out, x, y, segmentViewPixel(view, labels, in, x, y));
}

}  // namespace

void segmentViewCpu(SegmentView view, ConstRgbaView in, const uint8_t* labels, RgbaView out) {
  paintView(view, in, labels, out);
}
void segmentViewCpu(SegmentView view, ConstRgbaView in, const uint32_t* labels, RgbaView out) {
  paintView(view, in, labels, out);
}

}  // namespace vp
