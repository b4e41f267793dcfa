// Automatic K on CUDA (kmeans_auto.h): one block per candidate K and restart runs k-means++ and
// Lloyd's iterations on the sample held in registers (kmeans_plusplus.cuh's layout: 32
// consecutive samples a thread), then scores it; the per-frame score is the same block
// code against the frame's centres. Cluster sums go through one warp reduction per
// cluster present in a warp step (r + g << 13 and b + 1 << 13: 32 * 255 < 2^13) and lane c
// keeps cluster c's; the block adds its warps' sums with shared-memory atomics (integers:
// the order does not matter).
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/warp_reduce.cuh"
#include "gpu/filters/kmeans/kmeans_auto.h"
#include "gpu/filters/kmeans/kmeans_auto_math.h"
#include "gpu/filters/kmeans/kmeans_plusplus.cuh"

#include <stdexcept>

namespace vp {
namespace {

using kmpp::kPlusPlusThreads;
using kmpp::kSamplesPerThread;

// Block: coeff[j] = the score constants of centre[j], j < k.
__device__ __forceinline__ void setCoeffs(const float (*centre)[3], int k, float4* coeff) {
  if (int(threadIdx.x) < k)
    coeff[threadIdx.x] =
        km::centreCoeffs(centre[threadIdx.x][0], centre[threadIdx.x][1], centre[threadIdx.x][2]);
  __syncthreads();
}

// One Lloyd iteration of the block's sample against centre[0..k): new centres in place.
__device__ void lloydStep(const uchar4 (&s)[kSamplesPerThread], uint32_t m, int k, float (*centre)[3],
                          float4* coeff) {
  __shared__ uint32_t sums[kMaxClusters][4];  // r, g, b, count: < 16384 * 255
  for (int i = threadIdx.x; i < kMaxClusters * 4; i += kPlusPlusThreads) (&sums[0][0])[i] = 0;
  setCoeffs(centre, k, coeff);  // (its barrier also orders the zeroing)
  const int lane = threadIdx.x % 32;
  uint32_t sr = 0, sg = 0, sb = 0, sn = 0;  // lane c: cluster c
#pragma unroll                              // s[] stays in registers
  for (int i = 0; i < kSamplesPerThread; ++i) {
    const bool valid = threadIdx.x * kSamplesPerThread + i < m;
    const int j = valid ? km::nearestByScore(s[i], coeff, k) : 0;
    uint32_t present = warpOr(valid ? 1u << j : 0u);
    while (present != 0) {  // warp-uniform
      const int c = __ffs(present) - 1;
      present &= present - 1;
      const bool mine = valid && j == c;
      const uint32_t rg = warpSum(mine ? uint32_t(s[i].x) | uint32_t(s[i].y) << 13 : 0u);
      const uint32_t bn = warpSum(mine ? uint32_t(s[i].z) | 1u << 13 : 0u);
      if (lane == c) sr += rg & 0x1FFFu, sg += rg >> 13, sb += bn & 0x1FFFu, sn += bn >> 13;
    }
  }
  if (lane < k && sn != 0) {
    atomicAdd(&sums[lane][0], sr), atomicAdd(&sums[lane][1], sg), atomicAdd(&sums[lane][2], sb);
    atomicAdd(&sums[lane][3], sn);
  }
  __syncthreads();
  if (int(threadIdx.x) < k && sums[threadIdx.x][3] != 0) {
    const uint64_t n = sums[threadIdx.x][3];
    for (int c = 0; c < 3; ++c) centre[threadIdx.x][c] = km::meanChannel(sums[threadIdx.x][c], n);
  }
  __syncthreads();
}

// The block's silhouette sum over its sample against centre[0..k) (thread 0 returns it).
__device__ int64_t silhouetteSum(const uchar4 (&s)[kSamplesPerThread], uint32_t m, int k,
                                 const float (*centre)[3], float4* coeff) {
  __shared__ long long warpSums[kPlusPlusThreads / 32];
  setCoeffs(centre, k, coeff);
  long long sum = 0;
#pragma unroll  // s[] stays in registers
  for (int i = 0; i < kSamplesPerThread; ++i) {
    if (threadIdx.x * kSamplesPerThread + i < m) sum += km::silhouetteTerm(s[i], coeff, centre, k);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(~0u, sum, off);
  if (threadIdx.x % 32 == 0) warpSums[threadIdx.x / 32] = sum;
  __syncthreads();
  long long total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < kPlusPlusThreads / 32; ++w) total += warpSums[w];
  return total;
}

__global__ void __launch_bounds__(kPlusPlusThreads)
    autoKKernel(ConstRgbaView in, int kmin, uint64_t seed, AutoKScores* scores) {
  __shared__ float centre[kMaxClusters][3];
  __shared__ float4 coeff[kMaxClusters];
  const int k = kmin + int(blockIdx.x) / kAutoRestarts, restart = int(blockIdx.x) % kAutoRestarts;
  uchar4 s[kSamplesPerThread];
  kmpp::loadSamples(in, s);
  kmpp::plusPlusSeeds(in, s, k, seed + uint64_t(restart), [&](int j, uchar4 c, uint64_t) {
    centre[j][0] = c.x, centre[j][1] = c.y, centre[j][2] = c.z;
  });
  __syncthreads();
  const uint32_t m = kmpp::sampleCount(in);
  for (int it = 0; it < kAutoIterations; ++it) lloydStep(s, m, k, centre, coeff);
  const int64_t total = silhouetteSum(s, m, k, centre, coeff);
  if (threadIdx.x == 0) scores->restart[k][restart] = total;
}

__global__ void __launch_bounds__(kPlusPlusThreads)
    silhouetteKernel(ConstRgbaView in, const KmeansState* state, int k, int64_t* out) {
  __shared__ float centre[kMaxClusters][3];
  __shared__ float4 coeff[kMaxClusters];
  if (int(threadIdx.x) < k)
    for (int c = 0; c < 3; ++c) centre[threadIdx.x][c] = state->centres[threadIdx.x][c];
  uchar4 s[kSamplesPerThread];
  kmpp::loadSamples(in, s);
  __syncthreads();
  const int64_t total = silhouetteSum(s, kmpp::sampleCount(in), k, centre, coeff);
  if (threadIdx.x == 0) *out = total;
}

}  // namespace

void autoKGpu(ConstRgbaView in, int kmin, int kmax, uint64_t seed, AutoKScores* scores, cudaStream_t stream) {
  checkAutoKArgs(in, kmin, kmax);
  autoKKernel<<<(kmax - kmin + 1) * kAutoRestarts, kPlusPlusThreads, 0, stream>>>(in, kmin, seed, scores);
  VP_CUDA_CHECK_LAUNCH();
}

void silhouetteGpu(ConstRgbaView in, const KmeansState* state, int k, int64_t* sum, cudaStream_t stream) {
  if (in.empty() || k < 1 || k > kMaxClusters)
    throw std::invalid_argument("silhouette: empty frame or bad k");
  silhouetteKernel<<<1, kPlusPlusThreads, 0, stream>>>(in, state, k, sum);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
