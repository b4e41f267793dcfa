// CPU twin of the median (see median.h for the definition).
//
// Method: rows are split over OpenMP threads (static schedule); each thread slides a
// window histogram along its row (Huang): per channel 256 fine counters and 16 coarse
// ones (one per 16 values), the row's first window added sample by sample, then per step
// right the leaving column's 2r+1 samples removed and the entering column's added. The
// median is the value where the running count first reaches rank ((2r+1)^2+1)/2, found
// on the coarse counters and then inside one coarse bin. O(r) per pixel plus a search of
// at most 32 counters; exact integer counts, so it agrees with any exact method (the GPU's
// networks and histograms) byte for byte. Scratch is owned by the caller.
#include "gpu/filters/median/median.h"
#include "gpu/filters/median/median_math.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace vp {

namespace {
constexpr int kFine = 256;   // one counter per value
constexpr int kCoarse = 16;  // one counter per 16 values
constexpr int kChannelCounters = kFine + kCoarse;
constexpr int kCpuHistWords = 3 * kChannelCounters;  // R, G, B
constexpr int kMaxSide = 2 * kMaxMedianRadius + 1;
}  // namespace

struct MedianCpuScratchAccess {
  static uint16_t* hist(MedianCpuScratch& s, int thread) {
    return s.hist_.data() + size_t(thread) * kCpuHistWords;
  }
  static int* rows(MedianCpuScratch& s, int thread) { return s.rows_.data() + size_t(thread) * kMaxSide; }
  static int threads(const MedianCpuScratch& s) { return s.threads_; }
};

MedianCpuScratch::MedianCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxMedianDimension, "MedianCpuScratch");
  threads_ = std::max(1, omp_get_max_threads());
  hist_.resize(size_t(threads_) * kCpuHistWords);
  rows_.resize(size_t(threads_) * kMaxSide);
}

namespace {

// The value holding rank k (1-based) in one channel's counters.
inline uint8_t rankValue(const uint16_t* fine, const uint16_t* coarse, uint32_t k) {
  uint32_t cum = 0;
  int bin = 0;
  while (cum + coarse[bin] < k) cum += coarse[bin++];
  int v = bin * 16;
  while (cum + fine[v] < k) cum += fine[v++];
  return static_cast<uint8_t>(v);
}

// Median of row y: a histogram slid from left to right.
void medianRow(ConstRgbaView in, RgbaView out, int y, const MedianParams& p, uint16_t* hist, int* rows) {
  const int w = in.width, h = in.height, r = p.radius, side = 2 * r + 1;
  const uint32_t k = (uint32_t(side * side) + 1) / 2;
  for (int j = 0; j < side; ++j) rows[j] = extendIndex(y - r + j, h, p.border);
  std::memset(hist, 0, sizeof(uint16_t) * kCpuHistWords);
  uint16_t* fine[3] = {hist, hist + kChannelCounters, hist + 2 * kChannelCounters};
  uint16_t* coarse[3] = {fine[0] + kFine, fine[1] + kFine, fine[2] + kFine};
  // Adds (delta 1) or removes (delta 0xFFFF) the samples of window column x.
  auto column = [&](int x, uint16_t delta) {
    const int sx = extendIndex(x, w, p.border);
    for (int j = 0; j < side; ++j) {
      uchar4 v = make_uchar4(0, 0, 0, 0);  // a zero-border sample
      if (sx >= 0 && rows[j] >= 0) v = in.row(rows[j])[sx];
      const uint8_t c[3] = {v.x, v.y, v.z};
      for (int ch = 0; ch < 3; ++ch) {
        fine[ch][c[ch]] = uint16_t(fine[ch][c[ch]] + delta);
        coarse[ch][c[ch] >> 4] = uint16_t(coarse[ch][c[ch] >> 4] + delta);
      }
    }
  };
  for (int i = -r; i <= r; ++i) column(i, 1);
  const uchar4* src = in.row(y);
  uchar4* dst = out.row(y);
  for (int x = 0; x < w; ++x) {
    if (x > 0) {
      column(x - 1 - r, 0xFFFF);
      column(x + r, 1);
    }
    dst[x] = make_uchar4(rankValue(fine[0], coarse[0], k), rankValue(fine[1], coarse[1], k),
                         rankValue(fine[2], coarse[2], k), src[x].w);
  }
}

}  // namespace

void medianCpu(ConstRgbaView in, RgbaView out, const MedianParams& params, MedianCpuScratch& scratch) {
  if (!median::checkMedianArgs(in, out, params, scratch.maxWidth(), scratch.maxHeight(), "medianCpu")) return;
  const int threads = MedianCpuScratchAccess::threads(scratch);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < in.height; ++y) {
    const int t = omp_get_thread_num();
    medianRow(in, out, y, params, MedianCpuScratchAccess::hist(scratch, t),
              MedianCpuScratchAccess::rows(scratch, t));
  }
}

}  // namespace vp
