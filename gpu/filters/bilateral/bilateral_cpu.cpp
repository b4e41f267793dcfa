// CPU twin of the bilateral filter (see bilateral.h for the definition and what both
// backends compute).
//
// Method: the weight tables built once per call with the kernel's functions (bilateral_math.h:
// highEntry, lowSpatialEntry); rows split over OpenMP threads (static schedule); per output
// pixel the (2r+1)^2 taps in raster order, each weight the product of the same two table
// entries as in the kernel, added with addTap. The squared RGB distance is the same exact
// integer (squaredDistance). The border extension is looked up in two index lists built once
// per call. O(r^2) per pixel.
#include "gpu/filters/bilateral/bilateral.h"
#include "gpu/filters/bilateral/bilateral_math.h"

#include <cstring>

// The row loop built twice and chosen when the library loads: with FMA instructions where
// the CPU has them (std::fma inlined instead of a libm call per operation), else with
// libm's fma calls. Both round each fma once, correctly: the bytes do not depend on the
// choice. (The tables, built outside it, use libm's fma, as the kernel's host emulation does.)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VP_BILATERAL_FMA_CLONES __attribute__((target_clones("default", "fma")))
#else
#define VP_BILATERAL_FMA_CLONES
#endif

namespace vp {

struct BilateralCpuScratchAccess {
  static int* cols(BilateralCpuScratch& s) { return s.cols_.data(); }
  static int* rows(BilateralCpuScratch& s) { return s.rows_.data(); }
  static float* high(BilateralCpuScratch& s) { return s.high_.data(); }
  static float* lowSpatial(BilateralCpuScratch& s) { return s.lowSpatial_.data(); }
};

BilateralCpuScratch::BilateralCpuScratch(int maxWidth, int maxHeight)
    : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxBilateralDimension, "BilateralCpuScratch");
  cols_.resize(size_t(maxWidth) + 2 * kMaxBilateralRadius);
  rows_.resize(size_t(maxHeight) + 2 * kMaxBilateralRadius);
  high_.resize(bilateral::kHighEntries);
  lowSpatial_.resize(size_t(bilateral::lowSpatialEntries(kMaxBilateralRadius)));
}

namespace {

// Output row y. cols[x + i] / rows[y + j]: the source column / row of offset index i / j
// (offset i - r), -1 for a zero sample.
VP_BILATERAL_FMA_CLONES void bilateralRow(ConstRgbaView in, RgbaView out, int y, int r, const float* high,
                                          const float* lowSpatial, const int* cols, const int* rows) {
  const int side = 2 * r + 1;
  const uchar4* src = in.row(y);
  uchar4* dst = out.row(y);
  for (int x = 0; x < in.width; ++x) {
    const uint32_t p = bilateral::packedRgb(src[x]);
    bilateral::Sums s;
    for (int j = 0; j < side; ++j) {
      const int sy = rows[y + j];
      const uchar4* line = sy >= 0 ? in.row(sy) : nullptr;
      const int lowRow = bilateral::lowSpatialBase(r, bilateral::axisOffset(j, r), 0);
      for (int i = 0; i < side; ++i) {
        const int sx = cols[x + i];
        const uchar4 q = (line && sx >= 0) ? line[sx] : make_uchar4(0, 0, 0, 0);
        const uint32_t d2 = bilateral::squaredDistance(bilateral::packedRgb(q), p);
        const float* low = lowSpatial + lowRow + bilateral::lowSpatialBase(r, 0, bilateral::axisOffset(i, r));
        const float w = mulRn(high[bilateral::highIndex(d2)], low[bilateral::lowIndex(d2)]);
        bilateral::addTap(s, w, float(q.x), float(q.y), float(q.z));
      }
    }
    const uint32_t word = bilateral::outputPixel(s, src[x].w);
    std::memcpy(dst + x, &word, sizeof word);
  }
}

}  // namespace

void bilateralCpu(ConstRgbaView in, RgbaView out, const BilateralParams& params,
                  BilateralCpuScratch& scratch) {
  if (!bilateral::checkBilateralArgs(in, out, params, scratch.maxWidth(), scratch.maxHeight(),
                                     "bilateralCpu"))
    return;
  const bilateral::Tables tab = bilateral::makeTables(params);
  const int r = params.radius;
  int* cols = BilateralCpuScratchAccess::cols(scratch);
  int* rows = BilateralCpuScratchAccess::rows(scratch);
  float* high = BilateralCpuScratchAccess::high(scratch);
  float* lowSpatial = BilateralCpuScratchAccess::lowSpatial(scratch);
  for (int e = 0; e < bilateral::kHighEntries; ++e) high[e] = bilateral::highEntry(e, tab.rangeScale);
  for (int e = 0; e < bilateral::lowSpatialEntries(r); ++e)
    lowSpatial[e] = bilateral::lowSpatialEntry(e, r, tab);
  for (int i = 0; i < in.width + 2 * r; ++i) cols[i] = extendIndex(i - r, in.width, params.border);
  for (int j = 0; j < in.height + 2 * r; ++j) rows[j] = extendIndex(j - r, in.height, params.border);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < in.height; ++y) bilateralRow(in, out, y, r, high, lowSpatial, cols, rows);
}

}  // namespace vp
