// Median by forgetful selection (Perrot et al. 2014) for small windows, r = 1..3.
//
// Lanes. A sample is held as 16-bit lanes (min.u16x2 / max.u16x2, one instruction each on
// sm_90, __vminu2 / __vmaxu2): one word per channel carries that channel for two
// horizontally adjacent outputs, the channel byte doubled into each lane (v * 257, so the
// lane order is the byte order). A compare-exchange is then 2 instructions for 2 outputs
// of one channel. (__vminu4 / __vmaxu4 are not native on sm_90: nvcc emits ~11
// instructions for each, so byte lanes cost more per output even four at a time.)
//
// Tiling. A 256-thread block computes 64 x 16 outputs; each thread a 2 x 2 quad: columns
// x, x+1 (the two lanes) and rows y, y+1. The block first stages its window samples,
// border-extended, in shared memory as those lane pairs: per channel, per row, one word
// for each pair of adjacent columns, split by the parity of the first column so that a
// warp's reads are consecutive words (no bank conflicts).
//
// Forgetful selection of the median of N = 2M+1 samples: keep a working set of K = M+2
// samples in registers; bring its minimum and maximum to its ends with a min-max network,
// forget both, add the next sample, repeat; the last three give the median (med3). A
// set of s samples with u still unseen may lose its extremes when s >= u + 3: one is at or
// below the median and one at or above it, and neither can be the median itself, so the
// median of what remains is unchanged. The two rows of a quad share 2r of their 2r+1
// window rows: the shared samples go first, and the set is copied only for each row's own
// window row, so a pair costs about 1.5 single medians. Every index is a compile-time
// constant (the set stays in registers) and the sample order is fixed, so the result is
// the exact median whatever the data. Min-max operations per output and channel: ~30 /
// ~160 / ~520 at r = 1 / 2 / 3 (half an instruction each with two lanes).
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/median/median_kernels.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace vp::median {
namespace {

constexpr int kNetThreadsX = 32;
constexpr int kNetThreadsY = 8;
constexpr int kNetTileW = 2 * kNetThreadsX;  // output columns per block (two per thread)
constexpr int kNetTileH = 2 * kNetThreadsY;  // output rows per block (two per thread)

template <int I>
using Int = std::integral_constant<int, I>;

template <class F, int... I>
__device__ __forceinline__ void staticForImpl(F& f, std::integer_sequence<int, I...>) {
  (f(Int<I>{}), ...);
}
// f(Int<0>{}), ..., f(Int<N-1>{}): a loop whose index is a constant expression.
template <int N, class F>
__device__ __forceinline__ void staticFor(F f) {
  staticForImpl(f, std::make_integer_sequence<int, N>{});
}

// Compare-exchange of two 16-bit lanes: a = min, b = max, lane by lane.
__device__ __forceinline__ void cas(uint32_t& a, uint32_t& b) {
  const uint32_t lo = __vminu2(a, b);
  b = __vmaxu2(a, b);
  a = lo;
}

__device__ __forceinline__ uint32_t med3(uint32_t a, uint32_t b, uint32_t c) {
  return __vmaxu2(__vminu2(a, b), __vminu2(__vmaxu2(a, b), c));
}

// The minimum of a[LO .. LO+COUNT-1] to a[LO] by a tree of compare-exchanges (every
// value is kept; COUNT-1 exchanges, depth ceil(log2 COUNT)).
template <int LO, int COUNT, int K>
__device__ __forceinline__ void minToFront(uint32_t (&a)[K]) {
  if constexpr (COUNT >= 2) {
    constexpr int H = COUNT / 2;
    minToFront<LO, H>(a);
    minToFront<LO + H, COUNT - H>(a);
    cas(a[LO], a[LO + H]);
  }
}
// The maximum of a[LO .. LO+COUNT-1] to a[LO+COUNT-1], likewise.
template <int LO, int COUNT, int K>
__device__ __forceinline__ void maxToBack(uint32_t (&a)[K]) {
  if constexpr (COUNT >= 2) {
    constexpr int H = COUNT / 2;
    maxToBack<LO, H>(a);
    maxToBack<LO + H, COUNT - H>(a);
    cas(a[LO + H - 1], a[LO + COUNT - 1]);
  }
}

// Permutes a[LO .. LO+S-1] so that a[LO] is the minimum and a[LO+S-1] the maximum,
// lane by lane. S/2 compare-exchanges pair the lower half with the upper half, so the
// minimum is in the lower half or the middle (S odd) and the maximum in the upper half or
// the middle; a tree brings each to its end. The middle element is only ever the later
// operand of the minimum's exchanges, so it can only grow there and a maximum held there
// stays for the second tree.
template <int LO, int S, int K>
__device__ __forceinline__ void minMax(uint32_t (&a)[K]) {
  static_assert(S >= 2 && LO >= 0 && LO + S <= K, "min-max window outside the set");
  constexpr int kHalf = (S + 1) / 2;  // a half plus the middle when S is odd
  staticFor<S / 2>([&](auto i) {
    constexpr int I = decltype(i)::value;
    cas(a[LO + I], a[LO + S - 1 - I]);
  });
  minToFront<LO, kHalf>(a);
  maxToBack<LO + S - kHalf, kHalf>(a);
}

template <int R>
struct NetShape {
  static constexpr int kSide = 2 * R + 1;
  static constexpr int kCount = kSide * kSide;          // N = 2M+1 samples
  static constexpr int kSet = kCount / 2 + 2;           // K = M+2: the working set
  static constexpr int kShared = (kSide - 1) * kSide;   // samples both rows of a quad see
  static constexpr int kPairs = kNetTileW - 1 + 2 * R;  // column pairs staged per tile row
  static constexpr int kHalfW = kNetThreadsX + R;       // words per parity half-row
  static constexpr int kRowWords = 2 * kHalfW;
  static constexpr int kTileH = kNetTileH + 2 * R;
  static constexpr int kPlaneWords = kTileH * kRowWords;  // one channel
  static_assert(kSet <= kShared, "the first working set must come from the shared rows");
  static_assert(2 * kSet - kCount == 3, "the set ends at three samples");
  static_assert((kPairs + 1) / 2 <= kHalfW, "a parity half-row holds its pairs");
};

// The staged pair of tile row `ty` starting at pair column q: [parity][half-row index].
template <int R>
__device__ __forceinline__ int pairWord(int ty, int q) {
  return ty * NetShape<R>::kRowWords + (q & 1) * NetShape<R>::kHalfW + (q >> 1);
}

// After the shared rounds the live set is a[kShared-kSet+1 .. kSet-2]; each new sample
// goes to a[kSet-1] (the forgotten maximum's place). Adds the 2r+1 samples of one row's
// own window row (`row` = that row's words, `t` = the thread's pair index at dx = -r)
// and returns the median.
template <int R>
__device__ __forceinline__ uint32_t finishOwnRow(uint32_t (&a)[NetShape<R>::kSet], const uint32_t* row) {
  using S = NetShape<R>;
  staticFor<S::kSide>([&](auto p) {
    constexpr int P = decltype(p)::value;  // dx + R
    a[S::kSet - 1] = row[(P & 1) * S::kHalfW + (P >> 1)];
    constexpr int kLo = S::kShared - S::kSet + 1 + P;
    if constexpr (P < S::kSide - 1) minMax<kLo, S::kSet - kLo>(a);
  });
  return med3(a[S::kSet - 3], a[S::kSet - 2], a[S::kSet - 1]);
}

// The medians of one channel for the quad: `plane` points at the word of tile row
// `ty` (the quad's first output row, less R) and of the thread's first pair (dx = -R).
template <int R>
__device__ __forceinline__ void medianQuad(const uint32_t* plane, uint32_t& m0, uint32_t& m1) {
  using S = NetShape<R>;
  // Shared sample e: window rows 1 .. 2R of the first output row, row-major.
  auto shared = [&](auto e) -> uint32_t {
    constexpr int E = decltype(e)::value;
    constexpr int row = 1 + E / S::kSide, P = E % S::kSide;
    return plane[row * S::kRowWords + (P & 1) * S::kHalfW + (P >> 1)];
  };
  uint32_t a[S::kSet];
  staticFor<S::kSet>([&](auto e) { a[decltype(e)::value] = shared(e); });
  // Round t: forget the extremes of a[t .. kSet-1], then add shared sample kSet + t.
  staticFor<S::kShared - S::kSet + 1>([&](auto t) {
    constexpr int T = decltype(t)::value;
    minMax<T, S::kSet - T>(a);
    if constexpr (T < S::kShared - S::kSet) a[S::kSet - 1] = shared(Int<S::kSet + T>{});
  });
  uint32_t b[S::kSet];
  staticFor<S::kSet>([&](auto i) { b[decltype(i)::value] = a[decltype(i)::value]; });
  m0 = finishOwnRow<R>(a, plane);                               // row 0 of the first window
  m1 = finishOwnRow<R>(b, plane + (2 * R + 1) * S::kRowWords);  // the last row of the second
}

// Byte `lane` pairs for channel c: [c of p0, c of p0, c of p1, c of p1] (lanes v * 257).
__device__ __forceinline__ uint32_t lanePair(uint32_t p0, uint32_t p1, int c) {
  return __byte_perm(p0, p1, 0x4400u + 0x1111u * unsigned(c));
}

__device__ __forceinline__ uint32_t loadPixel(ConstRgbaView in, int x, int y) {
  return __ldg(reinterpret_cast<const uint32_t*>(in.row(y)) + x);
}

template <int R, bool kTogether>
__global__ void __launch_bounds__(kNetThreadsX* kNetThreadsY)
    medianNetworkKernel(ConstRgbaView in, RgbaView out, BorderMode border) {
  using S = NetShape<R>;
  __shared__ uint32_t tile[3 * S::kPlaneWords];
  const int w = in.width, h = in.height;
  const int x0 = int(blockIdx.x) * kNetTileW, y0 = int(blockIdx.y) * kNetTileH;
  // Interior blocks read the image directly; the others fold every index through the
  // border (the last pair's second column is x0 - R + kPairs).
  const bool interior = x0 - R >= 0 && y0 - R >= 0 && x0 - R + S::kPairs < w && y0 + kNetTileH + R <= h;
  for (int i = int(threadIdx.y * kNetThreadsX + threadIdx.x); i < S::kTileH * S::kPairs;
       i += kNetThreadsX * kNetThreadsY) {
    const int ty = i / S::kPairs, q = i - ty * S::kPairs;
    int gx0 = x0 - R + q, gx1 = gx0 + 1, gy = y0 - R + ty;
    if (!interior) {
      gx0 = extendIndex(gx0, w, border);
      gx1 = extendIndex(gx1, w, border);
      gy = extendIndex(gy, h, border);
    }
    uint32_t p0 = 0, p1 = 0;  // zero-border samples
    if (gy >= 0) {
      if (gx0 >= 0) p0 = loadPixel(in, gx0, gy);
      if (gx1 >= 0) p1 = loadPixel(in, gx1, gy);
    }
    const int word = pairWord<R>(ty, q);
#pragma unroll
    for (int c = 0; c < 3; ++c) tile[c * S::kPlaneWords + word] = lanePair(p0, p1, c);
  }
  __syncthreads();
  const int t = int(threadIdx.x), ty = 2 * int(threadIdx.y);
  uint32_t m[3][2];
  // Pair index of dx = -R for the thread's columns 2t, 2t+1 is 2t: parity 0, word t.
  const uint32_t* plane = tile + ty * S::kRowWords + t;
  if constexpr (kTogether) {
#pragma unroll
    for (int c = 0; c < 3; ++c) medianQuad<R>(plane + c * S::kPlaneWords, m[c][0], m[c][1]);
  } else {
    // One channel at a time keeps the working set to K registers.
#pragma unroll 1
    for (int c = 0; c < 3; ++c) {
      uint32_t m0, m1;
      medianQuad<R>(plane + c * S::kPlaneWords, m0, m1);
      m[c][0] = m0;
      m[c][1] = m1;
    }
  }
  const int x = x0 + 2 * t;
  if (x >= w) return;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const int y = y0 + ty + j;
    if (y >= h) break;
    const uint32_t* src = reinterpret_cast<const uint32_t*>(in.row(y)) + x;
    uint32_t* dst = reinterpret_cast<uint32_t*>(out.row(y)) + x;
    // [R, G] of both columns, then [B, alpha of the input pixel] for each.
    const uint32_t rg = __byte_perm(m[0][j], m[1][j], 0x6240u);
    dst[0] = __byte_perm(rg, __byte_perm(m[2][j], __ldg(src), 0x0070u), 0x5410u);
    if (x + 1 < w) dst[1] = __byte_perm(rg, __byte_perm(m[2][j], __ldg(src + 1), 0x0072u), 0x5432u);
  }
}

template <int R>
void launchR(ConstRgbaView in, RgbaView out, BorderMode border, bool together, cudaStream_t stream) {
  const dim3 block(kNetThreadsX, kNetThreadsY);
  const dim3 grid(unsigned((in.width + kNetTileW - 1) / kNetTileW),
                  unsigned((in.height + kNetTileH - 1) / kNetTileH));
  if (together)
    medianNetworkKernel<R, true><<<grid, block, 0, stream>>>(in, out, border);
  else
    medianNetworkKernel<R, false><<<grid, block, 0, stream>>>(in, out, border);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launchNetwork(ConstRgbaView in, RgbaView out, int r, BorderMode border, bool channelsTogether,
                   cudaStream_t stream) {
  static_assert(kMaxNetworkRadius == 3, "instantiate the network kernels up to kMaxNetworkRadius");
  switch (r) {
    case 1:
      return launchR<1>(in, out, border, channelsTogether, stream);
    case 2:
      return launchR<2>(in, out, border, channelsTogether, stream);
    case 3:
      return launchR<3>(in, out, border, channelsTogether, stream);
    default:
      throw std::invalid_argument("median network: radius " + std::to_string(r) + " outside 1..3");
  }
}

}  // namespace vp::median
