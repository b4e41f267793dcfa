// How filters take samples outside the frame: the border modes, their option row and the
// index extension that every filter's kernels and CPU twins share.
#pragma once

#include "gpu/filters/filter.h"

#include <cuda_runtime_api.h>  // __host__ __device__

namespace vp {

// How samples outside the image are taken, per axis of length n.
enum class BorderMode {
  Zero,       // 0 outside (the box blur keeps its divisor: a zero-padded convolution)
  Replicate,  // clamp to [0, n-1]
  Reflect,    // mirror without repeating the edge: 2 1 | 0 1 2 .. n-1 | n-2 (period 2n-2)
  Wrap,       // modulo n
};
constexpr int kBorderModeCount = 4;

// The `border` option of every filter that has one: the choices in BorderMode's order,
// replicate by default.
inline constexpr OptionInfo kBorderOption{"border", OptionType::Choice, 0, kBorderModeCount - 1,
                                          double(BorderMode::Replicate), "zero|replicate|reflect|wrap",
                                          "samples outside the frame", 0, true};
static_assert(static_cast<int>(BorderMode::Wrap) == kBorderModeCount - 1, "BorderMode changed: update kBorderOption");

// The extended index of sample k on an axis of length n (-1: a zero sample).
__host__ __device__ inline int extendIndex(int k, int n, BorderMode mode) {
  if (k >= 0 && k < n) return k;
  switch (mode) {
    case BorderMode::Zero: return -1;
    case BorderMode::Replicate: return k < 0 ? 0 : n - 1;
    case BorderMode::Wrap: {
      const int m = k % n;
      return m < 0 ? m + n : m;
    }
    case BorderMode::Reflect: {
      if (n == 1) return 0;
      const int period = 2 * n - 2;
      int m = k % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
  }
  return -1;
}

}  // namespace vp
