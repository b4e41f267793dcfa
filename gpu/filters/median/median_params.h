// The median filter's parameters and its methods, apart from any kernel: what the
// filter table, the tests' reference and the benchmarks share. Contract: median.h.
#pragma once

#include "gpu/filters/common/border.h"

#include <cstdint>

namespace vp {

constexpr int kMinMedianRadius = 1;
constexpr int kMaxMedianRadius = 15;  // (2r+1)^2 <= 961 samples per window
// Largest width and height a workspace or scratch accepts (pixels).
constexpr int kMaxMedianDimension = 8192;

struct MedianParams {
  int radius = 1;  // pixels, kMinMedianRadius..kMaxMedianRadius: the window is (2r+1)^2
  BorderMode border = BorderMode::Replicate;
};

// How the GPU computes one window's median (median.h says which r each covers).
enum class MedianMethod : uint8_t {
  Network,        // forgetful selection, samples staged in shared memory; r <= kMaxNetworkRadius
  Histogram,      // per-column sliding histograms with 8-bit counters; (2r+1)^2 <= 255, r <= 7
  HistogramWide,  // the same with 16-bit counters; any r
  Strips,         // forgetful selection, samples in registers (warp strips); r <= kMaxStripMedianRadius
  Sorted,         // sorted columns merged, samples in registers (warp strips); r 2..3
};
constexpr int kMaxNetworkRadius = 3;      // the network kernels exist for r = 1..3
constexpr int kMaxHistogramRadius = 7;    // 8-bit counters hold (2r+1)^2 <= 225
constexpr int kMaxStripMedianRadius = 1;  // where it measured faster than the staged network
constexpr int kMinSortedMedianRadius = 2;  // the sorted-columns kernels: 5 x 5 and 7 x 7
constexpr int kMaxSortedMedianRadius = 3;
constexpr int kMedianMethodCount = 5;

// The method medianGpu runs at radius r (the switch points are measured: docs/design/median.md).
constexpr MedianMethod selectMedianMethod(int r) {
  return r <= kMaxStripMedianRadius    ? MedianMethod::Strips
         : r <= kMaxSortedMedianRadius ? MedianMethod::Sorted
         : r <= kMaxNetworkRadius      ? MedianMethod::Network
         : r <= kMaxHistogramRadius    ? MedianMethod::Histogram
                                       : MedianMethod::HistogramWide;
}
// Whether `method` can compute radius r.
constexpr bool medianMethodSupports(MedianMethod method, int r) {
  if (r < kMinMedianRadius || r > kMaxMedianRadius) return false;
  switch (method) {
    case MedianMethod::Network:
      return r <= kMaxNetworkRadius;
    case MedianMethod::Histogram:
      return r <= kMaxHistogramRadius;
    case MedianMethod::HistogramWide:
      return true;
    case MedianMethod::Strips:
      return r <= kMaxStripMedianRadius;
    case MedianMethod::Sorted:
      return r >= kMinSortedMedianRadius && r <= kMaxSortedMedianRadius;
  }
  return false;
}
// "network", "histogram", "histogram16", "strips", "sorted": benchmark labels and test names.
constexpr const char* medianMethodName(MedianMethod method) {
  switch (method) {
    case MedianMethod::Network:
      return "network";
    case MedianMethod::Histogram:
      return "histogram";
    case MedianMethod::HistogramWide:
      return "histogram16";
    case MedianMethod::Strips:
      return "strips";
    case MedianMethod::Sorted:
      return "sorted";
  }
  return "?";
}

}  // namespace vp
