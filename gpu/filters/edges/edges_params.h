// The edge filter's parameters, apart from any kernel: what the filter table, the tests'
// reference and the benchmarks share. Contract: edges.h.
#pragma once

namespace vp {

constexpr int kMaxEdgesThreshold = 255;
constexpr int kDefaultEdgesThreshold = 80;
// Largest width and height edgesGpu / a scratch accept (pixels).
constexpr int kMaxEdgesDimension = 8192;

struct EdgesParams {
  int threshold = kDefaultEdgesThreshold;  // t, 0..255: overlay paints pixels whose magnitude is >= t
  bool overlay = false;                    // false: the magnitude as grey; true: edges black over the input
};

}  // namespace vp
