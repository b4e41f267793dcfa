// Forgetful selection (Perrot et al. 2014) of the median of a (2R+1)^2 window, the small
// radii's method, on two 16-bit lanes at once: what the network kernels of
// median_network.cu (samples in shared memory) and median_strips.cu (samples in registers)
// share, with the lane kinds and exchanges the sorted columns (median_sorted.h) use too.
// Host and device: the tests run it on the CPU too.
//
// Lanes. A sample word carries one channel of two horizontally adjacent outputs, one byte
// in each 16-bit lane, ordered as the bytes (IntLanes and HalfLanes below). A
// compare-exchange is then 2 instructions for 2 outputs (min.u16x2 / max.u16x2, one
// instruction each on sm_90), or 3 on the FMA pipes. (__vminu4 / __vmaxu4 are not native on
// sm_90: nvcc emits ~11 instructions for each, so byte lanes cost more per output even four
// at a time.)
//
// Selection of the median of N = 2M+1 samples: keep a working set of K = M+2 samples in
// registers; bring its minimum and maximum to its ends with a min-max network, forget
// both, add the next sample, repeat; the last three give the median (med3). A set of s
// samples with u still unseen may lose its extremes when s >= u + 3: one is at or below the
// median and one at or above it, and neither can be the median itself, so the median of
// what remains is unchanged. The two output rows of a quad share 2R of their 2R+1 window
// rows: the shared samples go first, and the set is copied only for each row's own window
// row, so a pair costs about 1.5 single medians. Every index is a compile-time constant
// (the set stays in registers) and the sample order is fixed, so the result is the exact
// median whatever the data. Min-max operations per output and channel: ~30 / ~160 / ~520
// at R = 1 / 2 / 3 (half an instruction each with two lanes).
#pragma once

#include "gpu/filters/common/byte_perm.h"

#include <cuda_runtime_api.h>  // __host__ __device__

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace vp::median {

template <int I>
using Int = std::integral_constant<int, I>;

template <class F, int... I>
__host__ __device__ __forceinline__ void staticForImpl(F& f, std::integer_sequence<int, I...>) {
  (f(Int<I>{}), ...);
}
// f(Int<0>{}), ..., f(Int<N-1>{}): a loop whose index is a constant expression.
template <int N, class F>
__host__ __device__ __forceinline__ void staticFor(F f) {
  staticForImpl(f, std::make_integer_sequence<int, N>{});
}

__host__ __device__ __forceinline__ uint32_t minLanes(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vminu2(a, b);
#else
  return std::min(a & 0xFFFFu, b & 0xFFFFu) | std::min(a >> 16, b >> 16) << 16;
#endif
}
__host__ __device__ __forceinline__ uint32_t maxLanes(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __vmaxu2(a, b);
#else
  return std::max(a & 0xFFFFu, b & 0xFFFFu) | std::max(a >> 16, b >> 16) << 16;
#endif
}

// Lane kinds: how a sample word's two 16-bit lanes hold a channel byte v and how they are
// compared. Both order a word's lanes as the bytes, and every selection below moves samples
// and never makes one, so both give the same medians; a median's lanes have v in their low
// byte either way (storePair reads that).
//
// IntLanes: v * 257, min.u16x2 / max.u16x2 (VIMNMX): 2 instructions a compare-exchange, all
// on the ALU pipe, which sm_90 runs at half the issue rate (2 warp instructions a clock an SM).
struct IntLanes {
  __host__ __device__ static __forceinline__ uint32_t pack(uint32_t p0, uint32_t p1, int c) {
    return bytePerm(p0, p1, 0x4400u + 0x1111u * unsigned(c));
  }
  __host__ __device__ static __forceinline__ void cas(uint32_t& a, uint32_t& b) {
    const uint32_t lo = minLanes(a, b);
    b = maxLanes(a, b);
    a = lo;
  }
};

// HalfLanes: v, read as an fp16 subnormal v * 2^-24. A compare-exchange is d = sat(a - b)
// = max(a - b, 0), max = b + d, min = a - d: exact, because every value and every
// difference is an integer multiple of 2^-24 below 2^-14 in magnitude (fp16 keeps
// subnormals), and sat clamps a negative difference to zero. 3 instructions, but on the
// FMA pipes (HADD2), which the ALU-bound networks leave idle, so a channel held this way
// runs beside one held as IntLanes. (min.f16x2 / max.f16x2 would go to the ALU pipe too.)
struct HalfLanes {
  __host__ __device__ static __forceinline__ uint32_t pack(uint32_t p0, uint32_t p1, int c) {
    return IntLanes::pack(p0, p1, c) & 0x00FF00FFu;
  }
  __host__ __device__ static __forceinline__ void cas(uint32_t& a, uint32_t& b) {
#if defined(__CUDA_ARCH__)
    uint32_t d, lo, hi;
    asm("sub.sat.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    asm("add.f16x2 %0, %1, %2;" : "=r"(hi) : "r"(b), "r"(d));
    asm("sub.f16x2 %0, %1, %2;" : "=r"(lo) : "r"(a), "r"(d));
    a = lo;
    b = hi;
#else
    IntLanes::cas(a, b);  // the lanes' bit patterns order as their values
#endif
  }
};

// Channel C's lane kind when the channels in kHalfMask (bit c: channel c) are HalfLanes.
template <unsigned kHalfMask, int C>
using ChannelLanes = std::conditional_t<(kHalfMask >> C & 1u) != 0, HalfLanes, IntLanes>;

// Byte pairs for channel c: [c of p0, c of p0, c of p1, c of p1] (IntLanes: v * 257).
__host__ __device__ __forceinline__ uint32_t lanePair(uint32_t p0, uint32_t p1, int c) {
  return IntLanes::pack(p0, p1, c);
}

// The median of three words, lane by lane: max(min(a, b), min(max(a, b), c)), the unused
// half of each exchange left to the compiler to drop.
template <class L = IntLanes>
__host__ __device__ __forceinline__ uint32_t med3(uint32_t a, uint32_t b, uint32_t c) {
  L::cas(a, b);
  L::cas(b, c);
  L::cas(a, b);
  return b;
}

// The minimum of a[LO .. LO+COUNT-1] to a[LO] by a tree of compare-exchanges (every
// value is kept; COUNT-1 exchanges, depth ceil(log2 COUNT)).
template <class L, int LO, int COUNT, int K>
__host__ __device__ __forceinline__ void minToFront(uint32_t (&a)[K]) {
  if constexpr (COUNT >= 2) {
    constexpr int H = COUNT / 2;
    minToFront<L, LO, H>(a);
    minToFront<L, LO + H, COUNT - H>(a);
    L::cas(a[LO], a[LO + H]);
  }
}
// The maximum of a[LO .. LO+COUNT-1] to a[LO+COUNT-1], likewise.
template <class L, int LO, int COUNT, int K>
__host__ __device__ __forceinline__ void maxToBack(uint32_t (&a)[K]) {
  if constexpr (COUNT >= 2) {
    constexpr int H = COUNT / 2;
    maxToBack<L, LO, H>(a);
    maxToBack<L, LO + H, COUNT - H>(a);
    L::cas(a[LO + H - 1], a[LO + COUNT - 1]);
  }
}

// Permutes a[LO .. LO+S-1] so that a[LO] is the minimum and a[LO+S-1] the maximum,
// lane by lane. S/2 compare-exchanges pair the lower half with the upper half, so the
// minimum is in the lower half or the middle (S odd) and the maximum in the upper half or
// the middle; a tree brings each to its end. The middle element is only ever the later
// operand of the minimum's exchanges, so it can only grow there and a maximum held there
// stays for the second tree.
template <class L, int LO, int S, int K>
__host__ __device__ __forceinline__ void minMax(uint32_t (&a)[K]) {
  static_assert(S >= 2 && LO >= 0 && LO + S <= K, "min-max window outside the set");
  constexpr int kHalf = (S + 1) / 2;  // a half plus the middle when S is odd
  staticFor<S / 2>([&](auto i) {
    constexpr int I = decltype(i)::value;
    L::cas(a[LO + I], a[LO + S - 1 - I]);
  });
  minToFront<L, LO, kHalf>(a);
  maxToBack<L, LO + S - kHalf, kHalf>(a);
}

template <int R>
struct SelectShape {
  static constexpr int kSide = 2 * R + 1;
  static constexpr int kCount = kSide * kSide;         // N = 2M+1 samples
  static constexpr int kSet = kCount / 2 + 2;          // K = M+2: the working set
  static constexpr int kShared = (kSide - 1) * kSide;  // samples both rows of a quad see
  static_assert(kSet <= kShared, "the first working set must come from the shared rows");
  static_assert(2 * kSet - kCount == 3, "the set ends at three samples");
};

// After the shared rounds the live set is a[kShared-kSet+1 .. kSet-2]; each new sample
// goes to a[kSet-1] (the forgotten maximum's place). Adds the 2R+1 samples of window row
// ROW (the row's own) and returns the median.
template <int R, int ROW, class L, class Sample>
__host__ __device__ __forceinline__ uint32_t finishOwnRow(uint32_t (&a)[SelectShape<R>::kSet],
                                                          Sample& sample) {
  using S = SelectShape<R>;
  staticFor<S::kSide>([&](auto p) {
    constexpr int P = decltype(p)::value;  // dx + R
    a[S::kSet - 1] = sample(Int<ROW>{}, Int<P>{});
    constexpr int kLo = S::kShared - S::kSet + 1 + P;
    if constexpr (P < S::kSide - 1) minMax<L, kLo, S::kSet - kLo>(a);
  });
  return med3<L>(a[S::kSet - 3], a[S::kSet - 2], a[S::kSet - 1]);
}

// The medians of one channel for a quad's two output rows: sample(Int<row>, Int<P>) is
// the word of window row `row` (0 .. 2R+1: the first output's window is rows 0 .. 2R, the
// second's 1 .. 2R+1) at column offset P - R, held as lanes of kind L.
template <int R, class L = IntLanes, class Sample>
__host__ __device__ __forceinline__ void medianQuad(Sample&& sample, uint32_t& m0, uint32_t& m1) {
  using S = SelectShape<R>;
  // Shared sample e: window rows 1 .. 2R, row-major.
  auto shared = [&](auto e) -> uint32_t {
    constexpr int E = decltype(e)::value;
    return sample(Int<1 + E / S::kSide>{}, Int<E % S::kSide>{});
  };
  uint32_t a[S::kSet];
  staticFor<S::kSet>([&](auto e) { a[decltype(e)::value] = shared(e); });
  // Round t: forget the extremes of a[t .. kSet-1], then add shared sample kSet + t.
  staticFor<S::kShared - S::kSet + 1>([&](auto t) {
    constexpr int T = decltype(t)::value;
    minMax<L, T, S::kSet - T>(a);
    if constexpr (T < S::kShared - S::kSet) a[S::kSet - 1] = shared(Int<S::kSet + T>{});
  });
  uint32_t b[S::kSet];
  staticFor<S::kSet>([&](auto i) { b[decltype(i)::value] = a[decltype(i)::value]; });
  m0 = finishOwnRow<R, 0, L>(a, sample);          // row 0 of the first window
  m1 = finishOwnRow<R, 2 * R + 1, L>(b, sample);  // the last row of the second
}

}  // namespace vp::median
