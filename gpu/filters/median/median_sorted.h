// The median's sorted-columns method for r = 2, 3 (median_sorted.cu): the window's median
// from its columns sorted once and merged, where a sort or a merge serves every window that
// shares it, instead of a selection per window (median_select.h). Samples in registers, no
// shared memory, no barrier. Plain per-lane stages: the kernel joins them with warp
// shuffles, the tests run them on the CPU for every block, warp and lane.
//
// Layout: warp strips of two columns a lane (lane l works on columns x, x + 1, x = x0 - 2H +
// 2l, H = R - 1 halo lanes each side: 60 output columns a warp at r = 2, 56 at r = 3), the
// lane words of median_select.h (two horizontally adjacent outputs a word; IntLanes or
// HalfLanes). Per channel and output row:
//   S     the lane's two columns' vertical windows (rows y - R .. y + R), sorted: the 2R rows
//         two output rows share sorted once, then each row's own row merged in;
//   odd   columns x + 1, x + 2: S's high lane and lane l + 1's S's low lane (one shuffle a word);
//   M     merge(S, odd): lane 0 the samples of columns x, x + 1, lane 1 those of x + 1, x + 2;
//   r = 2 the 13th of M' (lane l - 1's M: columns x - 2, x - 1), M and E (lane l + 1's S:
//         column x + 2): M' and M merged only as far as ranks 8..13 (the 13th of 25 is one
//         of them whatever E holds), then min over j of max(X_(13-j), E_j);
//   r = 3 the 25th of C (lane l - 2's odd: column x - 3), M', M and M'' (lane l + 1's M:
//         columns x + 2, x + 3): the three M merged as far as ranks 18..25, then C likewise.
// A merge done by one lane serves two windows. Min-max instructions a lane word (two
// outputs) and channel at r = 2: ~13 for S, 26 for M, 46 for the rest, against ~141 for the
// forgetful selection of a quad; r = 3: ~24, 42 and 196 against ~470. Odd-even merges
// (Batcher's, any sizes); the compiler drops every exchange whose result no output reads.
// Exact: every step moves samples and never makes one.
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
  __host__ __device__ bool operator==(const Words& o) const {
    for (int i = 0; i < N; ++i)
      if (w[i] != o.w[i]) return false;
    return true;
  }
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

// Batcher's odd-even merge sort of N words, lane by lane.
template <class L, int N>
__host__ __device__ __forceinline__ Words<N> oddEvenSort(const Words<N>& a) {
  if constexpr (N <= 1) {
    return a;
  } else {
    Words<N / 2> lo;
    Words<N - N / 2> hi;
    VP_UNROLL
    for (int i = 0; i < N; ++i) (i < N / 2 ? lo[i] : hi[i - N / 2]) = a[i];
    return oddEvenMerge<L>(oddEvenSort<L>(lo), oddEvenSort<L>(hi));
  }
}

template <int R>
constexpr int kSortedSide = 2 * R + 1;  // a column window's samples

// The layout: two columns a lane, R - 1 halo lanes each side (r = 3 reads lanes l - 2 .. l + 1).
template <int R>
using SortedLane = PairLane<R - 1>;

// The two output rows' sorted column windows S0 (sample rows 0 .. 2R) and S1 (1 .. 2R + 1)
// from the lane words of the pair's 2R + 2 sample rows: the 2R rows both share sorted once.
template <class L, int R>
__host__ __device__ __forceinline__ void sortedColumnPair(const uint32_t (&w)[2 * R + 2],
                                                          Words<kSortedSide<R>>& s0,
                                                          Words<kSortedSide<R>>& s1) {
  Words<2 * R> both;
  VP_UNROLL
  for (int i = 0; i < 2 * R; ++i) both[i] = w[1 + i];
  const Words<2 * R> shared = oddEvenSort<L>(both);
  s0 = oddEvenMerge<L>(shared, Words<1>{{w[0]}});
  s1 = oddEvenMerge<L>(shared, Words<1>{{w[2 * R + 1]}});
}

// The odd columns x + 1, x + 2: S's high lane and the next lane's S's low lane.
template <int N>
__host__ __device__ __forceinline__ Words<N> oddColumns(const Words<N>& s, const Words<N>& next) {
  Words<N> o;
  VP_UNROLL
  for (int k = 0; k < N; ++k) o[k] = bytePerm(s[k], next[k], 0x5432u);
  return o;
}

// M: the lane's two column pairs (x, x + 1 and x + 1, x + 2), sorted.
template <class L, int N>
__host__ __device__ __forceinline__ Words<2 * N> pairMerge(const Words<N>& s, const Words<N>& odd) {
  return oddEvenMerge<L>(s, odd);
}

// The K-th (1-based) of x u y, y of at most K words, x of at least K: min over j = 0..|y|
// of max(x_(K - j), y_j), with y_0 = -inf.
template <int K, class L, int NX, int NY>
__host__ __device__ __forceinline__ uint32_t kthOfTwo(const Words<NX>& x, const Words<NY>& y) {
  static_assert(NY <= K && K <= NX, "every split has both sides");
  uint32_t m = x[K - 1];
  VP_UNROLL
  for (int j = 1; j <= NY; ++j) m = minOf<L>(m, maxOf<L>(x[K - 1 - j], y[j - 1]));
  return m;
}

// r = 2: the window's 13th sample from M' (columns -2, -1), M (0, 1) and E (2, the next
// lane's S). Of merge(M, M') only ranks 8..13 are read.
template <class L>
__host__ __device__ __forceinline__ uint32_t sortedMedian(const Words<10>& left, const Words<10>& own,
                                                          const Words<5>& e) {
  return kthOfTwo<13, L>(oddEvenMerge<L>(own, left), e);
}

// r = 3: the window's 25th sample from C (column -3: lane l - 2's odd columns), M' (-2, -1),
// M (0, 1) and M'' (2, 3: the next lane's M). Of merge(M'', merge(M, M')) only ranks 18..25
// are read.
template <class L>
__host__ __device__ __forceinline__ uint32_t sortedMedian(const Words<7>& c, const Words<14>& left,
                                                          const Words<14>& own, const Words<14>& right) {
  return kthOfTwo<25, L>(oddEvenMerge<L>(right, oddEvenMerge<L>(own, left)), c);
}

}  // namespace vp::median
