// The stacked fused pass's first windows (blur_fused.cu): four groups a block, group g the
// segment of segLen rows below group g - 1's, each needing the sum of its 2r + 1-row window.
// Which rows of the block's window union each group loads is plain integer arithmetic, here
// so that the host tests (BoxBlurStackedOnHost) can check it, assembling every group's window
// from these loads as the kernel does.
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__

#include <algorithm>

namespace vp::blur {

constexpr int kStackedGroups = 4;  // groups a block (of either width), a segment each

// Two segments' windows overlap by more than a segment: group g's window is chained from
// group 0's (the D-chain), or taken from the union in chunks (below). Block-uniform.
__host__ __device__ inline bool chainedWindows(int segLen, int radius) { return 2 * segLen < 2 * radius + 1; }

// The union of the block's four windows, 2r + 1 + 3 segLen rows from yb - r, in chunks c_j of
// segLen rows (where the windows span four segments or more, q >= 4): group g's window is
// c_g, M = c_4 .. c_{q-1}, c_q .. c_{q+g-1} and the first e rows of c_{q+g}. Group g loads
// c_g, c_{q+g} (group 3 only its first e rows) and M's union rows [mFrom, mTo): groups 0..2
// take a share beside their 2 segLen rows, group 3 the rest, so each loads about a quarter.
// (2r + 1 = q segLen + e.)
struct WindowChunks {
  int mFrom, mTo;
};
__host__ __device__ inline WindowChunks windowChunks(int segLen, int radius, int group) {
  static_assert(kStackedGroups == 4, "the chunks' split names four groups");
#ifndef __CUDA_ARCH__
  using std::max, std::min;  // the device pass takes CUDA's int min and max
#endif
  const int n = 2 * radius + 1, q = n / segLen, e = n % segLen;
  const int total = (q + 3) * segLen + e, extra = max(0, (total + 3) / 4 - 2 * segLen);
  const int from = min(q * segLen, 4 * segLen + group * extra);
  const int to = group == 3 ? q * segLen : min(q * segLen, from + extra);
  return {from, to};
}

}  // namespace vp::blur
