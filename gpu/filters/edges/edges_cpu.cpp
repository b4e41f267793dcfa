// CPU twin of the edge filter (edges.h): the luma plane, then per pixel the 3x3 Sobel on
// clamped coordinates, the same integer magnitude and output pixel as the kernel
// (edges_math.h). Rows split over OpenMP threads; no allocation per call.
#include "gpu/filters/edges/edges.h"
#include "gpu/filters/edges/edges_math.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace vp {

struct EdgesCpuScratchAccess {
  static std::vector<uint8_t>& luma(EdgesCpuScratch& s) { return s.luma_; }
};

EdgesCpuScratch::EdgesCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxEdgesDimension, "EdgesCpuScratch");
  luma_.resize(size_t(maxWidth) * size_t(maxHeight));
}

namespace {
uint32_t wordOf(uchar4 v) { return uint32_t(v.x) | uint32_t(v.y) << 8 | uint32_t(v.z) << 16 | uint32_t(v.w) << 24; }
uchar4 pixelOf(uint32_t p) {
  return make_uchar4(static_cast<unsigned char>(p), static_cast<unsigned char>(p >> 8),
                     static_cast<unsigned char>(p >> 16), static_cast<unsigned char>(p >> 24));
}
}  // namespace

void edgesCpu(ConstRgbaView in, RgbaView out, const EdgesParams& params, EdgesCpuScratch& scratch) {
  if (!edges::checkEdgesArgs(in, out, params, "edgesCpu", scratch.maxWidth(), scratch.maxHeight())) return;
  const int w = in.width, h = in.height;
  uint8_t* luma = EdgesCpuScratchAccess::luma(scratch).data();
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y) {
    const uchar4* src = in.row(y);
    uint8_t* dst = luma + size_t(y) * w;
    for (int x = 0; x < w; ++x) dst[x] = static_cast<uint8_t>(edges::lumaOf(wordOf(src[x])));
  }
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y) {
    const uint8_t* rows[3] = {luma + size_t(std::max(y - 1, 0)) * w, luma + size_t(y) * w,
                              luma + size_t(std::min(y + 1, h - 1)) * w};
    const uchar4* src = in.row(y);
    uchar4* dst = out.row(y);
    for (int x = 0; x < w; ++x) {
      const int cols[3] = {std::max(x - 1, 0), x, std::min(x + 1, w - 1)};
      uint32_t n[3][3];
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) n[dy][dx] = rows[dy][cols[dx]];
      dst[x] = pixelOf(edges::edgePixel(edges::sobelAt(n), wordOf(src[x]), params));
    }
  }
}

}  // namespace vp
