// CPU twin of the Gaussian blur (gauss.h): the same integer sums, so the same bytes.
//
// Method: (1) rows, split over OpenMP threads: the row, border-extended by R samples each
// side, in three uint32 planes; each tap pair adds the two samples and multiplies once,
// x innermost (vectorised); H rounded into three uint16 planes. (2) columns, rows of output
// split over threads: per output row, the pairs of H rows at +-j accumulated the same way;
// one rounding to 8 bits. O(R) per pixel and pass; no allocation per call.
#include "gpu/filters/gauss/gauss.h"
#include "gpu/filters/gauss/gauss_math.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace vp {

struct GaussCpuScratchAccess {
  static std::vector<uint16_t>& sums(GaussCpuScratch& s) { return s.sums_; }
  static std::vector<uint32_t>& rows(GaussCpuScratch& s) { return s.rows_; }
  static std::vector<uint32_t>& acc(GaussCpuScratch& s) { return s.acc_; }
  static int threads(const GaussCpuScratch& s) { return s.threads_; }
  static void updateTaps(GaussCpuScratch& s, double sigma) {
    if (s.sigma_ == sigma) return;
    s.rowTaps_ = makeGaussTaps(sigma, kGaussRowBits);
    s.columnTaps_ = makeGaussTaps(sigma, kGaussColumnBits);
    s.sigma_ = sigma;
  }
  static const GaussTaps& rowTaps(const GaussCpuScratch& s) { return s.rowTaps_; }
  static const GaussTaps& columnTaps(const GaussCpuScratch& s) { return s.columnTaps_; }
};

namespace {
size_t extendedLength(int maxWidth) { return size_t(maxWidth) + 2 * kMaxGaussRadius; }
}  // namespace

GaussCpuScratch::GaussCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxGaussDimension, "GaussCpuScratch");
  threads_ = std::max(1, omp_get_max_threads());
  sums_.resize(3 * size_t(maxWidth) * size_t(maxHeight));
  rows_.resize(size_t(threads_) * 3 * extendedLength(maxWidth));
  acc_.resize(size_t(threads_) * 3 * size_t(maxWidth));
}

namespace {

// acc[x] = sum over i = -R..R of q[|i|] * e[x + R + i], x < w (e: w + 2R samples).
void firRow(const uint32_t* e, uint32_t* acc, int w, const GaussTaps& taps) {
  const int r = taps.radius;
  const uint32_t q0 = taps.q[0];
  for (int x = 0; x < w; ++x) acc[x] = q0 * e[x + r];
  for (int i = 1; i <= r; ++i) {
    const uint32_t q = taps.q[i];
    const uint32_t* lo = e + r - i;
    const uint32_t* hi = e + r + i;
    for (int x = 0; x < w; ++x) acc[x] += q * (lo[x] + hi[x]);
  }
}

// acc[x] += q * row[x] (row may be null: a zero-border row outside the image).
void addRow(uint32_t* acc, const uint16_t* row, uint32_t q, int w) {
  if (row)
    for (int x = 0; x < w; ++x) acc[x] += q * row[x];
}
void addRowPair(uint32_t* acc, const uint16_t* a, const uint16_t* b, uint32_t q, int w) {
  if (a && b) {
    for (int x = 0; x < w; ++x) acc[x] += q * (uint32_t(a[x]) + uint32_t(b[x]));
  } else {
    addRow(acc, a, q, w);
    addRow(acc, b, q, w);
  }
}

}  // namespace

void gaussCpu(ConstRgbaView in, RgbaView out, const GaussParams& params, GaussCpuScratch& scratch) {
  if (!gauss::checkGaussArgs(in, out, params, scratch.maxWidth(), scratch.maxHeight(), "gaussCpu")) return;
  GaussCpuScratchAccess::updateTaps(scratch, params.sigma);
  const GaussTaps& rowTaps = GaussCpuScratchAccess::rowTaps(scratch);
  const GaussTaps& columnTaps = GaussCpuScratchAccess::columnTaps(scratch);
  const int w = in.width, h = in.height, r = rowTaps.radius;
  const int threads = GaussCpuScratchAccess::threads(scratch);
  const size_t plane = size_t(w) * size_t(h);
  const size_t extLen = extendedLength(scratch.maxWidth());
  const size_t accLen = size_t(scratch.maxWidth());
  uint16_t* sums = GaussCpuScratchAccess::sums(scratch).data();
  uint32_t* rowsAll = GaussCpuScratchAccess::rows(scratch).data();
  uint32_t* accAll = GaussCpuScratchAccess::acc(scratch).data();
  const BorderMode border = params.border;

#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; ++y) {
    uint32_t* e = rowsAll + size_t(omp_get_thread_num()) * 3 * extLen;
    uint32_t* acc = accAll + size_t(omp_get_thread_num()) * 3 * accLen;
    const uchar4* src = in.row(y);
    for (int t = 0; t < w + 2 * r; ++t) {
      const int sx = extendIndex(t - r, w, border);
      const uchar4 v = sx < 0 ? make_uchar4(0, 0, 0, 0) : src[sx];
      e[t] = v.x;
      e[extLen + t] = v.y;
      e[2 * extLen + t] = v.z;
    }
    for (int c = 0; c < 3; ++c) {
      firRow(e + c * extLen, acc + c * accLen, w, rowTaps);
      uint16_t* dst = sums + c * plane + size_t(y) * w;
      const uint32_t* a = acc + c * accLen;
      for (int x = 0; x < w; ++x) dst[x] = static_cast<uint16_t>(gauss::roundRowSum(a[x]));
    }
  }

#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; ++y) {
    uint32_t* acc = accAll + size_t(omp_get_thread_num()) * 3 * accLen;
    auto rowOf = [&](int c, int yy) -> const uint16_t* {  // H row yy of channel c through the border
      const int sy = extendIndex(yy, h, border);
      return sy < 0 ? nullptr : sums + c * plane + size_t(sy) * w;
    };
    for (int c = 0; c < 3; ++c) {
      uint32_t* a = acc + c * accLen;
      std::fill(a, a + w, 0u);
      addRow(a, rowOf(c, y), columnTaps.q[0], w);
      for (int j = 1; j <= r; ++j) addRowPair(a, rowOf(c, y - j), rowOf(c, y + j), columnTaps.q[j], w);
    }
    const uchar4* src = in.row(y);
    uchar4* dst = out.row(y);
    for (int x = 0; x < w; ++x)
      dst[x] = make_uchar4(static_cast<unsigned char>(gauss::roundColumnSum(acc[x])),
                           static_cast<unsigned char>(gauss::roundColumnSum(acc[accLen + x])),
                           static_cast<unsigned char>(gauss::roundColumnSum(acc[2 * accLen + x])), src[x].w);
  }
}

}  // namespace vp
