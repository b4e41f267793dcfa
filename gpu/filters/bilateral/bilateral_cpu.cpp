// CPU twin of the bilateral filter (see bilateral.h for the definition and what both
// backends compute).
//
// Method: rows split over OpenMP threads (static schedule); per output pixel the
// (2r+1)^2 taps in raster order, each weight from bilateral_math.h's tapWeight and added
// with addTap, as the kernel adds them. The squared RGB distance is computed in integers:
// the kernel's float steps give the same exact integer (bilateral_tiles.h). The border
// extension is looked up in two index lists built once per call. O(r^2) per pixel.
#include "gpu/filters/bilateral/bilateral.h"
#include "gpu/filters/bilateral/bilateral_math.h"

#include <cstring>

// The row loop built twice and chosen when the library loads: with FMA instructions where
// the CPU has them (std::fma inlined instead of a libm call per operation), else with
// libm's fma calls. Both round each fma once, correctly: the bytes do not depend on the choice.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VP_BILATERAL_FMA_CLONES __attribute__((target_clones("default", "fma")))
#else
#define VP_BILATERAL_FMA_CLONES
#endif

namespace vp {

struct BilateralCpuScratchAccess {
  static int* cols(BilateralCpuScratch& s) { return s.cols_.data(); }
  static int* rows(BilateralCpuScratch& s) { return s.rows_.data(); }
};

BilateralCpuScratch::BilateralCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxBilateralDimension, "BilateralCpuScratch");
  cols_.resize(size_t(maxWidth) + 2 * kMaxBilateralRadius);
  rows_.resize(size_t(maxHeight) + 2 * kMaxBilateralRadius);
}

namespace {

// Output row y. cols[x + i] / rows[y + j]: the source column / row of offset index i / j
// (offset i - r), -1 for a zero sample.
VP_BILATERAL_FMA_CLONES void bilateralRow(ConstRgbaView in, RgbaView out, int y, const bilateral::Tables& tab, const int* cols,
                  const int* rows) {
  const int r = tab.radius, side = 2 * r + 1;
  const uchar4* src = in.row(y);
  uchar4* dst = out.row(y);
  for (int x = 0; x < in.width; ++x) {
    const uchar4 p = src[x];
    bilateral::Sums s;
    for (int j = 0; j < side; ++j) {
      const int sy = rows[y + j];
      const uchar4* line = sy >= 0 ? in.row(sy) : nullptr;
      const float ay = tab.spatial[j];
      for (int i = 0; i < side; ++i) {
        const int sx = cols[x + i];
        const uchar4 q = (line && sx >= 0) ? line[sx] : make_uchar4(0, 0, 0, 0);
        const int dr = int(q.x) - int(p.x), dg = int(q.y) - int(p.y), db = int(q.z) - int(p.z);
        const float d2 = float(dr * dr + dg * dg + db * db);  // exact: <= 195075
        bilateral::addTap(s, bilateral::tapWeight(d2, tab.spatial[i], ay, tab.rangeScale), float(q.x),
                          float(q.y), float(q.z));
      }
    }
    const uint32_t word = bilateral::outputPixel(s, p.w);
    std::memcpy(dst + x, &word, sizeof word);
  }
}

}  // namespace

void bilateralCpu(ConstRgbaView in, RgbaView out, const BilateralParams& params, BilateralCpuScratch& scratch) {
  if (!bilateral::checkBilateralArgs(in, out, params, scratch.maxWidth(), scratch.maxHeight(), "bilateralCpu"))
    return;
  const bilateral::Tables tab = bilateral::makeTables(params);
  const int r = params.radius;
  int* cols = BilateralCpuScratchAccess::cols(scratch);
  int* rows = BilateralCpuScratchAccess::rows(scratch);
  for (int i = 0; i < in.width + 2 * r; ++i) cols[i] = extendIndex(i - r, in.width, params.border);
  for (int j = 0; j < in.height + 2 * r; ++j) rows[j] = extendIndex(j - r, in.height, params.border);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < in.height; ++y) bilateralRow(in, out, y, tab, cols, rows);
}

}  // namespace vp
