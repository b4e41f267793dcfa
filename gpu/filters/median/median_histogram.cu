// Median by sliding histograms (Huang's running histogram, with Perreault and Hebert's
// coarse and fine levels) for larger windows.
//
// One thread per output column and channel: a 96-thread block is 3 warps, one per
// channel (R, G, B), over the same 32 consecutive columns, and slides down a segment of
// output rows. Each thread keeps the histogram of its window's 2r+1 x 2r+1 samples in
// shared memory: 256 fine counters (one per value) and 16 coarse ones (one per 16
// values). Moving down one row removes the 2r+1 samples of the row leaving the window and
// adds those of the row entering it: 2(2r+1) counter updates on each level, exact integer
// counts, so the window's multiset is maintained exactly. The median (rank k =
// ((2r+1)^2+1)/2) is found branch-free: the coarse counters' running sums pick the coarse
// bin holding rank k, then that bin's 16 fine counters pick the value. Cost per output and
// channel: O(r) updates plus O(1) search; a segment's first window costs (2r+1)^2 updates.
//
// Counters are packed in 32-bit words, 4 of 8 bits when (2r+1)^2 <= 255 (r <= 7), else 2
// of 16 bits ("wide"); a count never exceeds the window's, so lanes never carry or borrow.
// Word i of thread t is at smem[i * 96 + t]: a warp's 32 accesses hit 32 banks whatever
// the values. Updates are shared-memory atomics whose result is unused (RED: no update
// waits for another; 12-17 % faster on the H200), or, as a variant, load-add-store (the
// fine and coarse words of one sample are disjoint, so those two overlap; `atomic` off).
// Samples come from the image through the L1
// cache, border-extended per axis; each warp stores its channel's bytes (and the R warp
// the input's alpha).
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/median/median_kernels.h"

#include <cuda_runtime.h>

#include <stdexcept>

namespace vp::median {
namespace {

template <bool kWide>
struct Counters {
  static constexpr int kBits = kWide ? 16 : 8;        // bits per counter
  static constexpr int kPerWord = 32 / kBits;         // counters per word
  static constexpr int kFineWords = 256 / kPerWord;   // one counter per value
  static constexpr int kCoarseWords = 16 / kPerWord;  // one counter per 16 values
  static constexpr int kWords = kFineWords + kCoarseWords;
  static constexpr int kGroupWords = 16 / kPerWord;      // words holding 16 counters
  static constexpr int kMaxCount = kWide ? 65535 : 255;  // a window's count must fit

  // Word index and shift of value v's fine and coarse counters.
  __device__ static int fineWord(uint32_t v) { return int(v / kPerWord); }
  __device__ static uint32_t fineInc(uint32_t v) { return 1u << ((v % kPerWord) * kBits); }
  __device__ static int coarseWord(uint32_t v) { return kFineWords + int((v >> 4) / kPerWord); }
  __device__ static uint32_t coarseInc(uint32_t v) { return 1u << (((v >> 4) % kPerWord) * kBits); }
  // Sum of the counters of one word (never above the window's count).
  __device__ static uint32_t wordSum(uint32_t w) {
    if constexpr (kWide)
      return (w & 0xFFFFu) + (w >> 16);
    else
      return uint32_t(__dp4a(w, 0x01010101u, 0u));
  }
  // The index j within word w of the counter holding rank t (1 <= t <= wordSum(w)), and
  // the count of the counters before it.
  __device__ static uint32_t inWord(uint32_t w, uint32_t t, uint32_t& before) {
    if constexpr (kWide) {
      const uint32_t lo = w & 0xFFFFu;
      const uint32_t j = lo < t ? 1u : 0u;
      before = j ? lo : 0u;
      return j;
    } else {
      const uint32_t prefix = w * 0x01010101u;  // byte i = counters 0..i (<= 255: no carry)
      const uint32_t j = uint32_t(__popc(__vcmpltu4(prefix, t * 0x01010101u))) >> 3;
      before = j ? (prefix >> (8 * (j - 1))) & 0xFFu : 0u;
      return j;
    }
  }
};

// Which of the 16 counters in words p[0], p[T], ... holds rank k (1-based) counting from
// `base`; updates base to include the counters before it.
template <bool kWide>
__device__ __forceinline__ uint32_t select16(const uint32_t* p, uint32_t k, uint32_t& base) {
  using C = Counters<kWide>;
  uint32_t words[C::kGroupWords];
#pragma unroll
  for (int i = 0; i < C::kGroupWords; ++i) words[i] = p[i * kHistThreads];
  // Running sums: the chosen word is the first whose running sum reaches k.
  uint32_t cum = base, pickBase = base, pick = words[0], index = 0;
#pragma unroll
  for (int i = 0; i < C::kGroupWords - 1; ++i) {
    cum += C::wordSum(words[i]);
    if (cum < k) {
      pickBase = cum;
      pick = words[i + 1];
      index = uint32_t(i + 1);
    }
  }
  uint32_t before;
  const uint32_t j = C::inWord(pick, k - pickBase, before);
  base = pickBase + before;
  return index * C::kPerWord + j;
}

template <bool kWide>
__device__ __forceinline__ uint32_t findMedian(const uint32_t* hist, uint32_t k) {
  using C = Counters<kWide>;
  uint32_t base = 0;
  const uint32_t coarse = select16<kWide>(hist + C::kFineWords * kHistThreads, k, base);
  const uint32_t fine = select16<kWide>(hist + int(coarse) * C::kGroupWords * kHistThreads, k, base);
  return coarse * 16 + fine;
}

// Adds (add) or removes one sample v on both levels.
template <bool kWide, bool kAtomic>
__device__ __forceinline__ void update(uint32_t* hist, uint32_t v, bool add) {
  using C = Counters<kWide>;
  uint32_t* f = hist + C::fineWord(v) * kHistThreads;
  uint32_t* c = hist + C::coarseWord(v) * kHistThreads;
  const uint32_t fi = add ? C::fineInc(v) : 0u - C::fineInc(v);
  const uint32_t ci = add ? C::coarseInc(v) : 0u - C::coarseInc(v);
  if constexpr (kAtomic) {
    atomicAdd(f, fi);
    atomicAdd(c, ci);
  } else {
    const uint32_t fv = *f, cv = *c;  // distinct words (fine < kFineWords <= coarse)
    *f = fv + fi;
    *c = cv + ci;
  }
}

// Byte c of the pixels of one source row; null: a zero-border row.
struct SourceRow {
  const unsigned char* p;
  __device__ uint32_t at(int x) const { return (p && x >= 0) ? uint32_t(__ldg(p + 4 * x)) : 0u; }
};

template <bool kWide, bool kAtomic>
__global__ void __launch_bounds__(kHistThreads)
    medianHistogramKernel(ConstRgbaView in, RgbaView out, int r, BorderMode border, int rowsPerSegment) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  using C = Counters<kWide>;
  extern __shared__ uint32_t smem[];
  const int lane = int(threadIdx.x), channel = int(threadIdx.y);
  const int w = in.width, h = in.height;
  const int xBlock = int(blockIdx.x) * kHistColumns, x = xBlock + lane;
  const int y0 = int(blockIdx.y) * rowsPerSegment, y1 = min(h, y0 + rowsPerSegment);
  if (x >= w || y0 >= h) return;  // no barrier below: threads leave freely
  uint32_t* hist = smem + channel * kHistColumns + lane;
#pragma unroll 4
  for (int i = 0; i < C::kWords; ++i) hist[i * kHistThreads] = 0;

  const unsigned char* base = reinterpret_cast<const unsigned char*>(in.data) + channel;
  auto sourceRow = [&](int y) {
    const int sy = extendIndex(y, h, border);
    return SourceRow{sy < 0 ? nullptr : base + size_t(sy) * in.pitch};
  };
  // The warp's columns need no border folding when the block's whole span is inside.
  const bool interior = xBlock - r >= 0 && xBlock + kHistColumns - 1 + r < w;
  auto column = [&](int i) { return interior ? x + i : extendIndex(x + i, w, border); };

  // The first window: rows y0-r .. y0+r.
  for (int j = -r; j <= r; ++j) {
    const SourceRow row = sourceRow(y0 + j);
#pragma unroll 4
    for (int i = -r; i <= r; ++i) update<kWide, kAtomic>(hist, row.at(column(i)), true);
  }
  const uint32_t k = (uint32_t((2 * r + 1) * (2 * r + 1)) + 1) / 2;
  unsigned char* outBase = reinterpret_cast<unsigned char*>(out.data) + size_t(4) * x;
  const unsigned char* inBase = reinterpret_cast<const unsigned char*>(in.data) + size_t(4) * x;
  for (int y = y0;;) {
    const uint32_t m = findMedian<kWide>(hist, k);
    unsigned char* dst = outBase + size_t(y) * out.pitch;
    dst[channel] = static_cast<unsigned char>(m);
    if (channel == 0) dst[3] = __ldg(inBase + size_t(y) * in.pitch + 3);  // alpha of the input pixel
    if (++y >= y1) break;
    // Slide: row y-1-r leaves, row y+r enters.
    const SourceRow leaving = sourceRow(y - 1 - r), entering = sourceRow(y + r);
#pragma unroll 4
    for (int i = -r; i <= r; ++i) {
      const int sx = column(i);
      const uint32_t vOut = leaving.at(sx), vIn = entering.at(sx);
      update<kWide, kAtomic>(hist, vOut, false);
      update<kWide, kAtomic>(hist, vIn, true);
    }
  }
}

template <bool kWide, bool kAtomic>
void launchVariant(ConstRgbaView in, RgbaView out, int r, BorderMode border, int rowsPerSegment,
                   cudaStream_t stream) {
  const dim3 block(kHistColumns, 3);
  const dim3 grid(unsigned((in.width + kHistColumns - 1) / kHistColumns),
                  unsigned((in.height + rowsPerSegment - 1) / rowsPerSegment));
  launchKernel(medianHistogramKernel<kWide, kAtomic>, grid, block, histogramSmemBytes(kWide), stream,
               pdlAvailable(), in, out, r, border, rowsPerSegment);
}

template <bool kWide, bool kAtomic>
int prepareVariant() {
  const auto kernel = medianHistogramKernel<kWide, kAtomic>;
  const size_t bytes = histogramSmemBytes(kWide);
  VP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  int blocks = 0;
  VP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kHistThreads, bytes));
  return blocks;
}

}  // namespace

size_t histogramSmemBytes(bool wide) {
  return size_t(wide ? Counters<true>::kWords : Counters<false>::kWords) * kHistThreads * sizeof(uint32_t);
}

int prepareHistogram(bool wide, bool atomic) {
  if (wide) return atomic ? prepareVariant<true, true>() : prepareVariant<true, false>();
  return atomic ? prepareVariant<false, true>() : prepareVariant<false, false>();
}

void launchHistogram(ConstRgbaView in, RgbaView out, int r, BorderMode border, bool wide, bool atomic,
                     int rowsPerSegment, cudaStream_t stream) {
  const int count = (2 * r + 1) * (2 * r + 1);
  if (r < 1 || count > (wide ? Counters<true>::kMaxCount : Counters<false>::kMaxCount))
    throw std::invalid_argument("median histogram: radius " + std::to_string(r) +
                                " too large for its counters");
  if (rowsPerSegment < 1) throw std::invalid_argument("median histogram: rowsPerSegment < 1");
  if (wide) {
    if (atomic)
      launchVariant<true, true>(in, out, r, border, rowsPerSegment, stream);
    else
      launchVariant<true, false>(in, out, r, border, rowsPerSegment, stream);
  } else {
    if (atomic)
      launchVariant<false, true>(in, out, r, border, rowsPerSegment, stream);
    else
      launchVariant<false, false>(in, out, r, border, rowsPerSegment, stream);
  }
}

}  // namespace vp::median
