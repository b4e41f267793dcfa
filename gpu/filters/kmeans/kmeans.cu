// K-means on CUDA (kmeans.h): one persistent cooperative kernel for all iterations.
//
// Work split: the image is cut into quads (4 consecutive pixels of a row) and tiles of 32
// quads; block b owns the tiles b, b + G, b + 2G, ... (or, not interleaved, the quads
// [b*Q/G, (b+1)*Q/G)) for the whole launch (BlockQuads), each thread takes every T-th quad
// of it (T = 256 or 768 threads, KmeansPolicy). Per iteration a thread scores its pixels
// against the centre constants in shared memory (compile-time cluster bucket KB = 4/8/16/32,
// padding centres score +inf) and adds each pixel, packed as (r | g<<16, b | 1<<16), to its
// own shared-memory column of the winning cluster: no atomics, exact while a thread sums
// <= 256 pixels between flushes. A flush reduces the columns per cluster (warp shuffles)
// into one 64-bit atomicAdd per block, cluster and field. For k <= 16 a warp step first
// finds the centres that can be nearest anywhere in its tile's colour box (kmeans_tiles.cuh)
// and scores only those.
//
// One grid barrier per iteration, after which every block reads the iteration's sums, adds
// the copies (block b adds into copy b % sumSlots) and computes the same new centres and
// stop decision. Two barriers:
// - counted (frames up to kCountedMaxPixels): iteration i adds count << 32 | channel sum into
//   buffer i%2, which accumulates over the launch; a block arrives on a counter without a
//   fence and takes the difference to its previous snapshot once the counts add up to the
//   frame (countedSnapshot).
// - grid.sync() (larger frames, whose packed channel sums would overflow 32 bits): buffer
//   i%3, plain fields; block 0 zeroes buffer (i+2)%3, which nobody touches until after the
//   next barrier.
//
// The nearest centre of a pixel is found by a min tree over chunks of 8 scores (FMNMX) and
// a log2 descent for the index: the compare/select work on the 16-lane ALU pipe, not the
// FMAs, bounds the scoring.
#include "gpu/filters/kmeans/kmeans.h"

#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/kmeans/kmeans_assign.cuh"
#include "gpu/filters/kmeans/kmeans_tiles.cuh"

#include <cooperative_groups.h>

#include <algorithm>
#include <stdexcept>

namespace vp {
namespace {

namespace cg = cooperative_groups;
using namespace kmgpu;  // NOLINT(google-build-using-namespace): the kernel's own device helpers

constexpr size_t kCountedMaxPixels = 0xFFFFFFFFu / 255u;  // 16,843,009: an 8K frame falls back to grid.sync()

__device__ __forceinline__ ull loadRelaxed(const ull* p) {
  ull v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Counted barrier, run by warp 0 of every block after iteration `it`'s sum atomics:
// waits until iteration it's sums are complete and returns this lane's cluster sums.
// No fence: the fields carry their own pixel counts (count << 32 | channel sum) and
// only ever grow while the launch runs, so a snapshot whose counts add up to the
// frame's pixel count in every channel holds every block's contribution. The arrival
// counter says when to look, and it keeps blocks without pixels (they add nothing) in
// step: buffer it % 2 gets no iteration it + 2 additions before every block has arrived
// for it + 1, and a block arrives for it + 1 only after this loop has consumed its
// snapshot of it: the loop cannot exit before its loads have returned their values, and
// the arrival is issued later, so no fence is needed for that order.
__device__ __forceinline__ void countedSnapshot(const KernelArgs& a, const ull* sums, int it,
                                                ull (&seen)[3][32], ull& sr, ull& sg, ull& sb, ull& n) {
  const int lane = threadIdx.x;
  if (lane == 0) {
    atomicAdd(&a.scratch->arrived, 1ull);
    const ull target = ull(gridDim.x) * ull(it + 1);
    while (loadRelaxed(&a.scratch->arrived) < target) {
    }
  }
  __syncwarp();
  const uint32_t pixels = uint32_t(a.in.pixels());
  ull d[3];
  for (;;) {  // almost always one round: a late atomic can land after the last arrival
    ull v[3] = {0, 0, 0};
    if (lane < a.k)
      for (int c = 0; c < a.slots; ++c)
        for (int f = 0; f < 3; ++f) v[f] += loadRelaxed(sums + (c * kMaxClusters + lane) * 4 + f);
    bool complete = true;
    for (int f = 0; f < 3; ++f) {
      d[f] = v[f] - seen[f][lane];  // modulo 2^64: this iteration's additions
      complete &= warpSum(uint32_t(d[f] >> 32)) == pixels;
    }
    if (complete) {
      for (int f = 0; f < 3; ++f) seen[f][lane] = v[f];
      break;
    }
  }
  n = d[0] >> 32;
  sr = d[0] & 0xFFFFFFFFu, sg = d[1] & 0xFFFFFFFFu, sb = d[2] & 0xFFFFFFFFu;
}

// Final assignment: labels, output pixels, and this thread's cost (km::pixelDistance2 of
// input and output pixel: one byte-wise absolute difference and one 4-way dot product).
template <int KB, int T>
__device__ ull finalPass(const KernelArgs& a, const BlockQuads& bq, const float4* coeff,
                         const uint32_t* colour, const uint4* cache) {
  const int width = a.in.width;
  ull cost = 0;
  QuadCursor cur = bq.cursor<T>(threadIdx.x);
  for (uint32_t q = threadIdx.x; q < bq.count; q += T, cur.advance()) {  // local quads
    const uint32_t x0 = cur.qx * 4;
    const int n = min(4, width - int(x0));
    uint32_t px[4], o[4];
    int bi[4];
    fetchQuad(a, cache, q, cur.y, x0, n, px);
    nearest4<KB>(px, coeff, bi);
    uint32_t quadCost = 0;  // <= 4 * 3 * 255^2
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const uint32_t c = colour[bi[p]], d = __vabsdiffu4(px[p], c) & (p < n ? 0x00FFFFFFu : 0u);
      quadCost = __dp4a(d, d, quadCost);
      o[p] = c | (px[p] & 0xFF000000u);
    }
    cost += quadCost;
    if (a.labels) {
      uint8_t* labels = a.labels + size_t(cur.y) * width + x0;
      if (n == 4 && reinterpret_cast<uintptr_t>(labels) % 4 == 0)
        *reinterpret_cast<uint32_t*>(labels) =
            uint32_t(bi[0]) | uint32_t(bi[1]) << 8 | uint32_t(bi[2]) << 16 | uint32_t(bi[3]) << 24;
      else
        for (int p = 0; p < n; ++p) labels[p] = uint8_t(bi[p]);
    }
    uint32_t* row = reinterpret_cast<uint32_t*>(a.out.row(int(cur.y))) + x0;
    if (a.vecOut && n == 4) {
      *reinterpret_cast<uint4*>(row) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
      for (int p = 0; p < n; ++p) row[p] = o[p];
    }
  }
  return cost;
}

// 256 threads: up to 85 registers for KB <= 8 (three blocks per SM can be resident),
// 128 above. 768-thread blocks run one per SM (85 registers).
template <int KB, int T>
constexpr int kMinBlocksPerSm = T > 256   ? 1
                                : KB <= 8 ? 3
                                          : 2;

template <int KB, int T>
__global__ void __launch_bounds__(T, kMinBlocksPerSm<KB, T>) kmeansKernel(KernelArgs a) {
  extern __shared__ uint2
      acc[];  // [KB][T] packed per-thread cluster sums (zeroed per round), then the pixel cache
  uint4* const cache = reinterpret_cast<uint4*>(acc + KB * T);  // [a.cacheQuads] the block's first quads
  __shared__ float4 coeff[KB];                                  // score constants (kmeans_math.h)
  __shared__ float centre[KB][3];
  __shared__ uint32_t colour[KB];  // rounded centre colours, alpha 0
  __shared__ float shiftShared;
  __shared__ ull costShared[T / 32];
  // Per-tile candidates (kmeans_tiles.cuh), built for k <= 16 (k = 32: 32 pair tests per lane and tile).
  constexpr bool kTiles = KB <= 16;
  __shared__ TileBox boxes[kTiles ? kMaxTiles : 1];
  __shared__ float4 pairs[kTiles ? kPairTests<KB> * 32 : 1];
  cg::grid_group grid = cg::this_grid();
  const int tid = threadIdx.x, k = a.k, width = a.in.width;
  const BlockQuads bq(a, (uint32_t(width) + 3) / 4);

  uint32_t first[4] = {0u, 0u, 0u, 0u};  // this thread's first quad, reused every iteration
  if (uint32_t(tid) < bq.count) {
    const QuadCursor cur = bq.cursor<T>(tid);
    loadQuad(a.in, cur.y, cur.qx * 4, min(4, width - int(cur.qx * 4)), a.vecIn, first);
  }
  // Block-uniform: the tile pass needs every tile's box in shared memory.
  const bool tiled = kTiles && bq.count <= uint32_t(kMaxTiles) * 32;
  if (tiled || a.cacheQuads != 0) blockPrologue<T, 4>(a, bq, tiled ? boxes : nullptr, cache);
  if (tid < KB) {
    if (tid < k) {
      float r, g, b;
      if (a.uniformInit) {
        const uint64_t i = km::spreadIndex(uint64_t(tid), a.in.pixels(), uint64_t(k));
        const uchar4 p = a.in.at(int(i % uint32_t(width)), int(i / uint32_t(width)));
        r = p.x, g = p.y, b = p.z;
      } else {
        r = a.init->centres[tid][0], g = a.init->centres[tid][1], b = a.init->centres[tid][2];
      }
      centre[tid][0] = r, centre[tid][1] = g, centre[tid][2] = b;
      coeff[tid] = km::centreCoeffs(r, g, b);
    } else {
      coeff[tid] = km::unusedCentreCoeffs();
    }
  }
  if (kTiles && tid < 32) pairConstants<KB>(coeff, k, centresInRange(centre, k), pairs);
  __syncthreads();

  float shift2 = INFINITY;
  int it = 0;
  // Counted barrier, warp 0 only: each sum buffer's totals at its last snapshot, per lane
  // (shared memory: in registers every thread would carry them through the loop).
  __shared__ ull seen[2][3][32];
  if (tid < 32)
    for (int b = 0; b < 2; ++b)
      for (int f = 0; f < 3; ++f) seen[b][f][tid] = 0;
  while (it < a.maxIterations) {
    ull* sums = &a.scratch->sums[a.counted ? it % 2 : it % 3][0][0][0];
    ull* blockSums = sums + (blockIdx.x % a.slots) * kMaxClusters * 4;
    if constexpr (kTiles)
      if (tiled) assignPassTiles<KB, T>(a, bq, coeff, first, acc, cache, blockSums, boxes, pairs);
    if (!tiled) assignPass<KB, T>(a, bq, coeff, first, acc, cache, blockSums);
    if (a.counted)
      __syncthreads();  // every warp's sum atomics issued before the block arrives
    else
      grid.sync();
    if (tid < 32) {  // k <= 32: warp 0 updates the centres, identically in every block
      float d2 = 0.f;
      ull sr = 0, sg = 0, sb = 0, n = 0;  // the copies' sum: the same integers whatever the split
      if (a.counted) {
        countedSnapshot(a, sums, it, seen[it % 2], sr, sg, sb, n);
      } else if (tid < k) {
        for (int c = 0; c < a.slots; ++c) {
          const ull* s = sums + (c * kMaxClusters + tid) * 4;
          sr += __ldcg(s + 0), sg += __ldcg(s + 1), sb += __ldcg(s + 2), n += __ldcg(s + 3);
        }
      }
      if (n != 0) {
        const float nr = km::meanChannel(sr, n);
        const float ng = km::meanChannel(sg, n);
        const float nb = km::meanChannel(sb, n);
        d2 = km::shiftSquared(centre[tid][0], centre[tid][1], centre[tid][2], nr, ng, nb);
        centre[tid][0] = nr, centre[tid][1] = ng, centre[tid][2] = nb;
        coeff[tid] = km::centreCoeffs(nr, ng, nb);
      }
#pragma unroll
      for (int off = 16; off > 0; off >>= 1)
        d2 = fmaxf(d2, __shfl_xor_sync(~0u, d2, off));  // exact, any order
      if (tid == 0) shiftShared = d2;
      if (kTiles) pairConstants<KB>(coeff, k, centresInRange(centre, k), pairs);
    }
    if (blockIdx.x == 0 && !a.counted)  // the counted buffers accumulate over the launch instead
      for (int i = tid; i < a.slots * kMaxClusters * 4; i += T)
        (&a.scratch->sums[(it + 2) % 3][0][0][0])[i] = 0;
    __syncthreads();
    shift2 = shiftShared;
    ++it;
    if (shift2 < a.epsilon) break;  // same decision in every block
  }
  // With no iteration, make sure every block has read its initial centres before any
  // block writes output pixels (out may alias in).
  if (a.maxIterations == 0) grid.sync();

  if (tid < k) {
    colour[tid] = uint32_t(km::centreByte(centre[tid][0])) | uint32_t(km::centreByte(centre[tid][1])) << 8 |
                  uint32_t(km::centreByte(centre[tid][2])) << 16;
  }
  __syncthreads();
  ull cost = finalPass<KB, T>(a, bq, coeff, colour, cache);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cost += __shfl_xor_sync(~0u, cost, off);
  if (tid % 32 == 0) costShared[tid / 32] = cost;
  __syncthreads();
  // The last block to finish writes the state and clears the scratch: no grid barrier, so
  // no block waits for the others at the end (the fence orders each block's cost before its
  // count; the last block's fence orders the count before its reads).
  __shared__ bool lastBlock;
  if (tid == 0) {
    ull blockCost = 0;
    for (int w = 0; w < T / 32; ++w) blockCost += costShared[w];
    if (blockCost) atomicAdd(&a.scratch->cost, blockCost);
    __threadfence();
    lastBlock = atomicAdd(&a.scratch->finished, 1ull) == gridDim.x - 1;
    if (lastBlock) __threadfence();
  }
  __syncthreads();
  if (lastBlock) {
    if (tid == 0) {
      a.state->cost = __ldcg(&a.scratch->cost);
      a.scratch->cost = 0;
      a.scratch->arrived = 0;
      a.scratch->finished = 0;
      a.state->k = k;
      a.state->iterations = it;
      a.state->shift2 = shift2;
    }
    if (tid < k) {
      a.state->centres[tid][0] = centre[tid][0], a.state->centres[tid][1] = centre[tid][1];
      a.state->centres[tid][2] = centre[tid][2], a.state->centres[tid][3] = 0.f;
    }
    // Every block is past its iterations: nobody reads the sums any more.
    for (int b = 0; b < 3; ++b)
      for (int i = tid; i < a.slots * kMaxClusters * 4; i += T) (&a.scratch->sums[b][0][0][0])[i] = 0;
  }
}

using Kernel = void (*)(KernelArgs);
// The instances the policies run: 256 threads for every cluster bucket, 768 for k <= 16.
struct Instance {
  int threads, bucket;  // bucket: clusters rounded up to 4, 8, 16 or 32
  Kernel kernel;
};
const Instance kKernels[] = {{256, 4, kmeansKernel<4, 256>},   {256, 8, kmeansKernel<8, 256>},
                             {256, 16, kmeansKernel<16, 256>}, {256, 32, kmeansKernel<32, 256>},
                             {768, 4, kmeansKernel<4, 768>},   {768, 8, kmeansKernel<8, 768>},
                             {768, 16, kmeansKernel<16, 768>}};
constexpr int kKernelCount = int(sizeof kKernels / sizeof kKernels[0]);

int bucketOf(int k) { return k <= 4 ? 4 : k <= 8 ? 8 : k <= 16 ? 16 : 32; }
// Index into kKernels; -1: none (a policy asked for a shape that is not built).
int instanceIndex(int threads, int bucket) {
  for (int i = 0; i < kKernelCount; ++i)
    if (kKernels[i].threads == threads && kKernels[i].bucket == bucket) return i;
  return -1;
}
size_t accBytes(const Instance& in) { return size_t(in.bucket) * size_t(in.threads) * sizeof(uint2); }

}  // namespace

KmeansWorkspace::KmeansWorkspace(KmeansLoad load)
    : load_(load),
      scratch_(sizeof(Scratch)),
      spatialScratch_(detail::spatialScratchBytes()),
      device_(detail::spatialDevice()) {
  VP_CUDA_CHECK(cudaMemset(scratch_.get(), 0, sizeof(Scratch)));
  // The spatial kernel starts on a zeroed scratch and leaves it zeroed.
  VP_CUDA_CHECK(cudaMemset(spatialScratch_.get(), 0, detail::spatialScratchBytes()));
  int device = 0, cooperative = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&sharedOptin_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&sharedPerSm_, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&sharedReserved_, cudaDevAttrReservedSharedMemoryPerBlock, device));
  if (!cooperative) throw std::runtime_error("kmeans: the CUDA device does not support cooperative launches");
  static_assert(kKernelCount == kKernelInstances, "KmeansWorkspace: one occupancy entry per kernel instance");
  for (int i = 0; i < kKernelCount; ++i) {
    const Instance& in = kKernels[i];
    cudaFuncAttributes attr{};  // the opt-in limit covers static + dynamic shared memory
    VP_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(in.kernel)));
    if (accBytes(in) + attr.sharedSizeBytes > size_t(sharedOptin_)) continue;
    staticShared_[i] = int(attr.sharedSizeBytes);
    // All the rest: the pixel cache takes what a launch's blocks per SM leave.
    VP_CUDA_CHECK(cudaFuncSetAttribute(in.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       sharedOptin_ - int(attr.sharedSizeBytes)));
    VP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&maxBlocksPerSm_[i], in.kernel, in.threads,
                                                                accBytes(in)));
  }
}

void kmeansGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state,
               const KmeansParams& params, KmeansWorkspace& ws, cudaStream_t stream,
               const KmeansState* warmFrom) {
  detail::checkKmeansArgs(in, out, params);
  if (state == nullptr) throw std::invalid_argument("kmeans: null state");
  if (params.spatial > 0.f)
    return detail::kmeansSpatialGpu(in, out, labels, state, params, ws.spatialScratch_.get(),
                                    ws.device_, stream, warmFrom);
  const KmeansPolicy policy = ws.policy(in.width, in.height, params.k);
  const int index = instanceIndex(policy.blockThreads, bucketOf(params.k));
  if (index < 0 || policy.sumSlots < 1 || policy.sumSlots > kMaxSumSlots)
    throw std::logic_error(std::string("kmeans: policy '") + policy.name +
                           "' names a kernel that is not built");
  const Instance& inst = kKernels[index];
  const int maxPerSm = ws.maxBlocksPerSm_[index];
  if (maxPerSm < 1) throw std::runtime_error("kmeans: kernel does not fit on this device");
  const uint64_t quads = uint64_t((in.width + 3) / 4) * uint64_t(in.height);

  KernelArgs a;
  a.in = in;
  a.out = out;
  a.labels = labels;
  a.state = state;
  a.init = params.init == KmeansInit::Warm && warmFrom ? warmFrom : state;
  a.scratch = ws.scratch_.as<Scratch>();
  a.k = params.k;
  a.maxIterations = params.maxIterations;
  a.slots = policy.sumSlots;
  // Packed fields hold one iteration's channel sum in 32 bits: N * 255 < 2^32.
  a.counted = in.pixels() <= kCountedMaxPixels;
  a.cacheQuads = 0;
  a.interleave = policy.interleaveTiles;
  a.epsilon = params.epsilon;
  a.uniformInit = params.init == KmeansInit::Uniform;
  a.vecIn = reinterpret_cast<uintptr_t>(in.data) % 16 == 0 && in.pitch % 16 == 0;
  a.vecOut = reinterpret_cast<uintptr_t>(out.data) % 16 == 0 && out.pitch % 16 == 0;

  if (params.init == KmeansInit::KmeansPlusPlus)
    detail::launchKmeansPlusPlus(in, state, params.k, params.seed, stream);
  const int perSm =
      std::clamp(policy.blocksPerSm, 1, maxPerSm);  // co-resident: the grid barrier cannot deadlock
  const int grid =
      int(std::min<uint64_t>(uint64_t(ws.device_.smCount) * perSm, (quads + inst.threads - 1) / inst.threads));
  // Pixel cache: as many of a block's quads as fit beside its other shared memory without
  // lowering the blocks per SM (the barrier needs them co-resident).
  if (policy.pixelCache) {
    const int64_t perBlock = std::min(ws.sharedOptin_, ws.sharedPerSm_ / perSm - ws.sharedReserved_);
    const int64_t used = ws.staticShared_[index] + int64_t(accBytes(inst));
    const uint64_t fit = perBlock > used ? uint64_t(perBlock - used) / sizeof(uint4) : 0;
    const uint64_t tiles = (quads + 31) / 32;
    const uint64_t blockQuads = a.interleave ? 32 * ((tiles + grid - 1) / grid) : (quads + grid - 1) / grid;
    a.cacheQuads = uint32_t(std::min(fit, blockQuads));
  }
  const size_t shared = accBytes(inst) + size_t(a.cacheQuads) * sizeof(uint4);
  void* args[] = {&a};
  VP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(inst.kernel), dim3(grid),
                                            dim3(inst.threads), args, shared, stream));
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
