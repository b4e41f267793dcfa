// k-means++ seeding on CUDA (kmeans.h): one block of 512 threads over M <= 16384 samples.
#include "gpu/filters/kmeans/kmeans.h"

#include "gpu/cuda/cuda_check.h"

namespace vp {
namespace {

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

// k-means++ seeding (kmeans.h) in one block: each thread keeps 32 consecutive samples
// and their D2 weights in registers; the weighted pick is a block-wide exclusive scan.
__global__ void __launch_bounds__(kPlusPlusThreads) kmeansPlusPlusKernel(ConstRgbaView in, KmeansState* state, int k,
                                                                       uint64_t seed) {
  __shared__ ull warpTotal[kPlusPlusThreads / 32];
  __shared__ uint32_t pickShared;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const uint64_t n = in.pixels();
  const uint32_t m = uint32_t(min(n, uint64_t(kKmeansPlusPlusSamples)));
  uchar4 s[kSamplesPerThread];
  uint32_t d2[kSamplesPerThread];
#pragma unroll
  for (int i = 0; i < kSamplesPerThread; ++i) {
    const uint32_t idx = tid * kSamplesPerThread + i;
    s[i] = idx < m ? pixelAt(in, km::spreadIndex(idx, n, m)) : make_uchar4(0, 0, 0, 0);
    d2[i] = idx < m ? UINT32_MAX : 0u;
  }
  km::SplitMix64 rng(seed);  // every thread draws the same sequence
  uint32_t pick = uint32_t(rng.next() % m);
  for (int j = 0;; ++j) {
    const uint64_t at = km::spreadIndex(pick, n, m);
    const uchar4 c = pixelAt(in, at);
    if (tid == 0) {
      state->centres[j][0] = c.x, state->centres[j][1] = c.y, state->centres[j][2] = c.z;
      state->centres[j][3] = 0.f;
      state->positions[j][0] = float(at % uint32_t(in.width)), state->positions[j][1] = float(at / uint32_t(in.width));
    }
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
    const ull warpIncl = warpInclusiveScan(lane < kPlusPlusThreads / 32 ? warpTotal[lane] : 0, lane);  // all warps
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

}  // namespace

namespace detail {
void launchKmeansPlusPlus(ConstRgbaView in, KmeansState* state, int k, uint64_t seed, cudaStream_t stream) {
  kmeansPlusPlusKernel<<<1, kPlusPlusThreads, 0, stream>>>(in, state, k, seed);
  VP_CUDA_CHECK_LAUNCH();
}
}  // namespace detail

}  // namespace vp
