// k-means++ seeding on the deterministic sample (kmeans.h), as device code for one block
// of kPlusPlusThreads threads: each thread keeps kSamplesPerThread consecutive samples
// and their D2 weights in registers; the weighted pick is a block-wide exclusive scan.
// Used by the seeding kernel (kmeans_plusplus.cu) and automatic K (kmeans_auto.cu).
#pragma once

#include "gpu/filters/kmeans/kmeans.h"

namespace vp {
namespace kmpp {

using ull = unsigned long long;
constexpr int kPlusPlusThreads = 512;  // k-means++ runs in one block
constexpr int kSamplesPerThread = kKmeansPlusPlusSamples / kPlusPlusThreads;

// Inclusive prefix sum over a warp.
__device__ __forceinline__ ull warpInclusiveScan(ull v, int lane) {
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    ull t = __shfl_up_sync(~0u, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

__device__ __forceinline__ uchar4 pixelAt(ConstRgbaView in, uint64_t i) {
  return in.at(int(i % uint32_t(in.width)), int(i / uint32_t(in.width)));
}

// The sample's size M = min(N, kKmeansPlusPlusSamples).
__device__ __forceinline__ uint32_t sampleCount(ConstRgbaView in) {
  return uint32_t(min(in.pixels(), uint64_t(kKmeansPlusPlusSamples)));
}

// This thread's samples tid * kSamplesPerThread + i (zero past M).
__device__ __forceinline__ void loadSamples(ConstRgbaView in, uchar4 (&s)[kSamplesPerThread]) {
  const uint64_t n = in.pixels();
  const uint32_t m = sampleCount(in);
#pragma unroll
  for (int i = 0; i < kSamplesPerThread; ++i) {
    const uint32_t idx = threadIdx.x * kSamplesPerThread + i;
    s[i] = idx < m ? pixelAt(in, km::spreadIndex(idx, n, m)) : make_uchar4(0, 0, 0, 0);
  }
}

// Picks k seeds among the samples `s` (loadSamples); for each, in order, thread 0 calls
// emit(j, colour, raster index of the sample pixel). All threads of the block call it.
template <class Emit>
__device__ void plusPlusSeeds(ConstRgbaView in, const uchar4 (&s)[kSamplesPerThread], int k, uint64_t seed,
                              Emit emit) {
  __shared__ ull warpTotal[kPlusPlusThreads / 32];
  __shared__ uint32_t pickShared;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const uint64_t n = in.pixels();
  const uint32_t m = sampleCount(in);
  uint32_t d2[kSamplesPerThread];
#pragma unroll
  for (int i = 0; i < kSamplesPerThread; ++i) d2[i] = tid * kSamplesPerThread + i < m ? UINT32_MAX : 0u;
  km::SplitMix64 rng(seed);  // every thread draws the same sequence
  uint32_t pick = uint32_t(rng.next() % m);
  for (int j = 0;; ++j) {
    const uint64_t at = km::spreadIndex(pick, n, m);
    const uchar4 c = pixelAt(in, at);
    if (tid == 0) emit(j, c, at);
    if (j + 1 == k) break;
    ull local = 0;
#pragma unroll
    for (int i = 0; i < kSamplesPerThread; ++i) {
      if (tid * kSamplesPerThread + i < m) d2[i] = min(d2[i], km::pixelDistance2(s[i], c));
      local += d2[i];
    }
    const ull incl = warpInclusiveScan(local, lane);
    if (lane == 31) warpTotal[warp] = incl;
    __syncthreads();
    const ull warpIncl =
        warpInclusiveScan(lane < kPlusPlusThreads / 32 ? warpTotal[lane] : 0, lane);  // all warps
    const ull total = __shfl_sync(~0u, warpIncl, 31);
    const ull excl = incl - local + (warp > 0 ? __shfl_sync(~0u, warpIncl, (warp + 31) % 32) : 0);
    if (total == 0) {
      pick = uint32_t(rng.next() % m);
    } else {
      const ull u = rng.next() % total;
      if (excl <= u && u < excl + local) {  // exactly one thread holds the pick
        ull run = excl;
        uint32_t found = 0;
        bool done = false;
#pragma unroll
        for (int i = 0; i < kSamplesPerThread; ++i) {
          run += d2[i];
          if (!done && run > u) done = true, found = tid * kSamplesPerThread + i;
        }
        pickShared = found;
      }
      __syncthreads();
      pick = pickShared;
    }
    __syncthreads();  // warpTotal and pickShared are rewritten next round
  }
}

}  // namespace kmpp
}  // namespace vp
