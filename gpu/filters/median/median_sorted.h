// The median's sorted-columns method for r = 2 (median_sorted.cu): the 5 x 5 window's
// median from its columns sorted once and merged, where a sort or a merge serves every
// window that shares it, instead of a selection per window (median_select.h). Samples in
// registers, no shared memory, no barrier. Plain per-lane stages: the kernel joins them with
// warp shuffles, the tests run them on the CPU for every block, warp and lane.
//
// Layout: the median strips' (median_strips.h: lane l works on columns x, x + 1, x = x0 - 2 +
// 2l; lanes 1 .. 30 own 60 output columns), the lane words of median_select.h (two
// horizontally adjacent outputs a word; IntLanes or HalfLanes). Per channel and output row:
//   S     the lane's two columns' vertical windows (rows y - 2 .. y + 2), sorted: the four
//         rows two output rows share sorted once, then each row's own row merged in;
//   E     lane l + 1's S (columns x + 2, x + 3): one shuffle a word;
//   M     merge(S, odd) with odd = columns x + 1, x + 2 (S's high lane and E's low one):
//         lane 0 the 10 samples of columns x, x + 1, lane 1 those of x + 1, x + 2;
//   M'    lane l - 1's M (columns x - 2, x - 1 and x - 1, x): one shuffle a word;
//   out   the 13th of M' u M u E: M' and M merged only as far as ranks 8..13 (the 13th of
//         25 is one of them whatever E holds), then min over j of max(X_(13-j), E_j).
// Min-max instructions a lane word (two outputs) and channel: ~13 for S, 26 for M, 46 for
// the rest, against ~141 for the forgetful selection of a quad. Odd-even merges (Batcher's,
// any sizes); the compiler drops every exchange whose result no output reads. Exact: every
// step moves samples and never makes one.
#pragma once

#include "gpu/filters/common/tile_access.h"
#include "gpu/filters/median/median_select.h"
#include "gpu/filters/median/median_strips.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp::median {

// N lane words in registers (every index a compile-time constant once unrolled); N may be 0.
template <int N>
struct Words {
  uint32_t w[N > 0 ? N : 1];
  __host__ __device__ uint32_t& operator[](int i) { return w[i]; }
  __host__ __device__ const uint32_t& operator[](int i) const { return w[i]; }
};

template <class L>
__host__ __device__ __forceinline__ uint32_t minOf(uint32_t a, uint32_t b) {
  L::cas(a, b);
  return a;
}
template <class L>
__host__ __device__ __forceinline__ uint32_t maxOf(uint32_t a, uint32_t b) {
  L::cas(a, b);
  return b;
}

// Batcher's odd-even merge of two ascending lists of any sizes: the elements at even
// indices of both merged, those at odd indices merged, then one layer of exchanges between
// the two results (Knuth, TAOCP 5.3.4). Lane by lane.
template <class L, int M, int N>
__host__ __device__ __forceinline__ Words<M + N> oddEvenMerge(const Words<M>& a, const Words<N>& b) {
  Words<M + N> out;
  if constexpr (M == 0 || N == 0) {
    VP_UNROLL
    for (int i = 0; i < M; ++i) out[i] = a[i];
    VP_UNROLL
    for (int j = 0; j < N; ++j) out[M + j] = b[j];
  } else if constexpr (M == 1 && N == 1) {
    out[0] = a[0], out[1] = b[0];
    L::cas(out[0], out[1]);
  } else {
    Words<(M + 1) / 2> ae;
    Words<M / 2> ao;
    Words<(N + 1) / 2> be;
    Words<N / 2> bo;
    VP_UNROLL
    for (int i = 0; i < M; ++i) (i % 2 == 0 ? ae[i / 2] : ao[i / 2]) = a[i];
    VP_UNROLL
    for (int j = 0; j < N; ++j) (j % 2 == 0 ? be[j / 2] : bo[j / 2]) = b[j];
    const Words<(M + 1) / 2 + (N + 1) / 2> v = oddEvenMerge<L>(ae, be);
    const Words<M / 2 + N / 2> w = oddEvenMerge<L>(ao, bo);
    constexpr int V = (M + 1) / 2 + (N + 1) / 2, W = M / 2 + N / 2;
    constexpr int P = W < V - 1 ? W : V - 1;  // exchanged pairs (w[i], v[i + 1])
    out[0] = v[0];
    VP_UNROLL
    for (int i = 0; i < P; ++i) {
      uint32_t lo = w[i], hi = v[i + 1];
      L::cas(lo, hi);
      out[1 + 2 * i] = lo, out[2 + 2 * i] = hi;
    }
    VP_UNROLL
    for (int i = P; i < W; ++i) out[1 + P + i] = w[i];
    VP_UNROLL
    for (int i = P + 1; i < V; ++i) out[1 + W + i - 1] = v[i];
  }
  return out;
}

constexpr int kSortedRadius = kSortedMedianRadius;
constexpr int kSortedSide = 2 * kSortedRadius + 1;  // 5

// The two output rows' sorted column windows S0 (sample rows 0..4) and S1 (1..5) from the
// lane words of sample rows 0..5 of the pair (rows q - 2 .. q + 3 of output rows q, q + 1).
template <class L>
__host__ __device__ __forceinline__ void sortedColumnPair(const uint32_t (&w)[kSortedSide + 1],
                                                          Words<kSortedSide>& s0, Words<kSortedSide>& s1) {
  Words<2> a{{w[1], w[2]}}, b{{w[3], w[4]}};
  L::cas(a[0], a[1]);
  L::cas(b[0], b[1]);
  const Words<4> shared = oddEvenMerge<L>(a, b);
  s0 = oddEvenMerge<L>(shared, Words<1>{{w[0]}});
  s1 = oddEvenMerge<L>(shared, Words<1>{{w[5]}});
}

// The odd columns x + 1, x + 2: S's high lane and E's low lane.
__host__ __device__ __forceinline__ Words<kSortedSide> oddColumns(const Words<kSortedSide>& s,
                                                                  const Words<kSortedSide>& e) {
  Words<kSortedSide> o;
  VP_UNROLL
  for (int k = 0; k < kSortedSide; ++k) o[k] = bytePerm(s[k], e[k], 0x5432u);
  return o;
}

// M: the lane's two 10-sample column pairs, sorted.
template <class L>
__host__ __device__ __forceinline__ Words<2 * kSortedSide> pairMerge(const Words<kSortedSide>& s,
                                                                     const Words<kSortedSide>& odd) {
  return oddEvenMerge<L>(s, odd);
}

// The window's median (its 13th sample) from M' (columns -2, -1), M (0, 1) and E (2).
template <class L>
__host__ __device__ __forceinline__ uint32_t sortedMedian(const Words<2 * kSortedSide>& left,
                                                          const Words<2 * kSortedSide>& own,
                                                          const Words<kSortedSide>& e) {
  constexpr int K = (kSortedSide * kSortedSide + 1) / 2;  // 13
  const Words<4 * kSortedSide> x = oddEvenMerge<L>(own, left);
  // The K-th of x u e: min over j = 0..5 of max(x_(K - j), e_j) (1-based, e_0 = -inf).
  uint32_t m = x[K - 1];
  VP_UNROLL
  for (int j = 1; j <= kSortedSide; ++j) m = minOf<L>(m, maxOf<L>(x[K - 1 - j], e[j - 1]));
  return m;
}

}  // namespace vp::median
