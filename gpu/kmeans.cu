// K-means on CUDA (kmeans.h): one persistent cooperative kernel for all iterations.
//
// Work split: the image is cut into quads (4 consecutive pixels of a row); block b owns
// the quads [b*Q/G, (b+1)*Q/G) of the raster order for the whole launch, each thread
// takes every 256th quad of it. Per iteration a thread scores its pixels against the
// centre constants in shared memory (compile-time cluster bucket KB = 4/8/16/32, padding
// centres score +inf) and adds each pixel, packed as (r | g<<16, b | 1<<16), to its own
// shared-memory column of the winning cluster: no atomics, exact while a thread sums
// <= 256 pixels between flushes. A flush reduces the columns per cluster (warp shuffles)
// into one 64-bit atomicAdd per block, cluster and field.
//
// Iteration i accumulates into sums buffer i%3; after the one grid barrier every block
// reads that buffer and computes the same new centres and stop decision, and block 0
// zeroes buffer (i+2)%3, which nobody touches until after the next barrier.
//
// The nearest centre of a pixel is found by a min tree over chunks of 8 scores (FMNMX)
// and a log2 descent for the index (KmeansTuning::treeArgmin; the alternative is the
// plain strict-< scan): the compare/select work on the 16-lane ALU pipe, not the
// FMAs, bounds the kernel (notes/kmeans.md).
#include "gpu/kmeans.h"

#include "gpu/cuda_check.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <stdexcept>

namespace vp {
namespace {

namespace cg = cooperative_groups;
using ull = unsigned long long;

constexpr int kThreads = 256;           // main kernel block size
constexpr int kQuadsPerRound = 64;      // quads per thread between flushes: <= 256 pixels per 16-bit field
constexpr int kPlusPlusThreads = 512;   // k-means++ runs in one block
constexpr int kSamplesPerThread = kKmeansPlusPlusSamples / kPlusPlusThreads;

// Device scratch; every launch leaves it zeroed.
struct Scratch {
  ull sums[3][kMaxClusters][4];  // per iteration buffer: r, g, b sums and pixel count
  ull cost;                      // final-pass cost accumulator
};

struct KernelArgs {
  ConstRgbaView in;
  RgbaView out;
  uint8_t* labels;  // nullptr: not written
  KmeansState* state;
  Scratch* scratch;
  int k;
  int maxIterations;
  float epsilon;
  bool uniformInit;  // else the state holds the initial centres (warm start or k-means++)
  bool vecIn;        // 16-byte quad loads allowed (pointer and pitch aligned)
  bool vecOut;       // 16-byte quad stores allowed
};

// Walks the quads q, q + kThreads, ... of one thread as (row, quad column).
struct QuadCursor {
  uint32_t y, qx, qpr, stepY, stepX;
  __device__ QuadCursor(uint32_t q, uint32_t quadsPerRow)
      : y(q / quadsPerRow), qx(q % quadsPerRow), qpr(quadsPerRow), stepY(kThreads / quadsPerRow),
        stepX(kThreads % quadsPerRow) {}
  __device__ void advance() {
    y += stepY;
    qx += stepX;
    if (qx >= qpr) {
      qx -= qpr;
      ++y;
    }
  }
};

// Loads the quad's pixels as packed RGBA words; missing pixels (past the row end) read 0.
__device__ __forceinline__ void loadQuad(ConstRgbaView in, uint32_t y, uint32_t x0, int n, bool vec,
                                         uint32_t (&px)[4]) {
  const uint32_t* row = reinterpret_cast<const uint32_t*>(in.row(int(y))) + x0;
  if (vec && n == 4) {
    uint4 v = *reinterpret_cast<const uint4*>(row);
    px[0] = v.x, px[1] = v.y, px[2] = v.z, px[3] = v.w;
  } else {
#pragma unroll
    for (int p = 0; p < 4; ++p) px[p] = p < n ? row[p] : 0u;
  }
}

// Exact float of byte `sel` (0..2) of a packed pixel: the bits of 2^23 + byte, minus 2^23
// (one PRMT and one FADD; cheaper than the 16/clk integer-to-float conversion).
__device__ __forceinline__ float channel(uint32_t px, uint32_t sel) {
  return __fsub_rn(__int_as_float(int(__byte_perm(px, 0x4B000000u, 0x7440u | sel))), 8388608.f);
}

// Lowest-index argmin of C = 4 or 8 scores: a min tree (C-1 FMNMX), then a descent
// (the lowest index holding the minimum is in the left subtree iff the left subtree's
// minimum equals the node's). Same index as a strict-< scan for non-NaN scores.
template <int C>
__device__ __forceinline__ int treeArgmin(const float (&s)[C], float& best) {
  static_assert(C == 4 || C == 8, "chunks of 4 or 8");
  if constexpr (C == 4) {
    const float a = fminf(s[0], s[1]), b = fminf(s[2], s[3]);
    best = fminf(a, b);
    const bool r1 = a != best;
    const bool r0 = (r1 ? s[2] : s[0]) != best;
    return (r1 ? 2 : 0) | (r0 ? 1 : 0);
  } else {
    const float a0 = fminf(s[0], s[1]), a1 = fminf(s[2], s[3]), a2 = fminf(s[4], s[5]), a3 = fminf(s[6], s[7]);
    const float b0 = fminf(a0, a1), b1 = fminf(a2, a3);
    best = fminf(b0, b1);
    const bool r2 = b0 != best;
    const bool r1 = (r2 ? a2 : a0) != best;
    const bool r0 = (r2 ? (r1 ? s[6] : s[4]) : (r1 ? s[2] : s[0])) != best;
    return (r2 ? 4 : 0) | (r1 ? 2 : 0) | (r0 ? 1 : 0);
  }
}

// Nearest centre of each quad pixel: lowest score, ties to the lowest index. Centres go
// in chunks of <= 8: a chunk's constants stay in registers across quads, and a rolled
// chunk loop keeps KB = 16, 32 from spilling (their chunks reload from shared memory).
template <int KB, bool kTree>
__device__ __forceinline__ void nearest4(const uint32_t (&px)[4], const float4* coeff, int (&bi)[4]) {
  constexpr int kChunk = KB < 8 ? KB : 8;
  float pr[4], pg[4], pb[4], best[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    pr[p] = channel(px[p], 0), pg[p] = channel(px[p], 1), pb[p] = channel(px[p], 2);
    best[p] = INFINITY;
    bi[p] = 0;
  }
#pragma unroll 1
  for (int j0 = 0; j0 < KB; j0 += kChunk) {
    float4 c[kChunk];
#pragma unroll
    for (int jj = 0; jj < kChunk; ++jj) c[jj] = coeff[j0 + jj];
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      if constexpr (kTree) {
        float s[kChunk], chunkBest;
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) s[jj] = km::score(pr[p], pg[p], pb[p], c[jj]);
        const int j = j0 + treeArgmin<kChunk>(s, chunkBest);
        if (KB <= kChunk)
          best[p] = chunkBest, bi[p] = j;
        else if (chunkBest < best[p])  // an earlier chunk wins ties
          best[p] = chunkBest, bi[p] = j;
      } else {
#pragma unroll
        for (int jj = 0; jj < kChunk; ++jj) {
          const float s = km::score(pr[p], pg[p], pb[p], c[jj]);
          if (s < best[p]) best[p] = s, bi[p] = j0 + jj;
        }
      }
    }
  }
}

// Adds a pixel to this thread's column of cluster j: (r | g<<16, b | 1<<16).
__device__ __forceinline__ void accumulate(uint2* acc, int j, uint32_t px) {
  uint2* a = acc + j * kThreads + threadIdx.x;
  uint2 v = *a;
  v.x += __byte_perm(px, 0u, 0x4140u);
  v.y += __byte_perm(px, 1u, 0x5452u);
  *a = v;
}

// Reduces (and zeroes) the block's columns; one atomicAdd per cluster and field.
__device__ void flush(uint2* acc, int k, ull* sums) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = warp; j < k; j += kThreads / 32) {
    uint32_t r = 0, g = 0, b = 0, n = 0;  // <= 256 columns * 65280: no overflow
#pragma unroll
    for (int i = lane; i < kThreads; i += 32) {
      uint2 v = acc[j * kThreads + i];
      acc[j * kThreads + i] = make_uint2(0u, 0u);
      r += v.x & 0xFFFFu, g += v.x >> 16, b += v.y & 0xFFFFu, n += v.y >> 16;
    }
#if __CUDA_ARCH__ >= 800
    r = __reduce_add_sync(~0u, r), g = __reduce_add_sync(~0u, g);  // one REDUX each
    b = __reduce_add_sync(~0u, b), n = __reduce_add_sync(~0u, n);
#else
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      r += __shfl_xor_sync(~0u, r, off), g += __shfl_xor_sync(~0u, g, off);
      b += __shfl_xor_sync(~0u, b, off), n += __shfl_xor_sync(~0u, n, off);
    }
#endif
    if (lane == 0 && n != 0) {
      atomicAdd(sums + j * 4 + 0, ull(r));
      atomicAdd(sums + j * 4 + 1, ull(g));
      atomicAdd(sums + j * 4 + 2, ull(b));
      atomicAdd(sums + j * 4 + 3, ull(n));
    }
  }
}

// One assignment pass over the block's quads, flushed every kQuadsPerRound quads per
// thread. `first` holds the thread's first quad (the same every iteration), so an
// iteration starts computing without waiting for memory.
template <int KB, bool kTree>
__device__ void assignPass(const KernelArgs& a, uint32_t qBegin, uint32_t qEnd, uint32_t qpr, const float4* coeff,
                           const uint32_t (&first)[4], uint2* acc, ull* sums) {
  const int width = a.in.width;
  for (uint32_t r0 = qBegin; r0 < qEnd; r0 += kQuadsPerRound * kThreads) {  // uniform per block
    const uint32_t r1 = min(qEnd, r0 + kQuadsPerRound * kThreads);
    QuadCursor cur(r0 + threadIdx.x, qpr);
    for (uint32_t q = r0 + threadIdx.x; q < r1; q += kThreads, cur.advance()) {
      const uint32_t x0 = cur.qx * 4;
      const int n = min(4, width - int(x0));
      uint32_t px[4];
      int bi[4];
      if (q == qBegin + threadIdx.x) {
#pragma unroll
        for (int p = 0; p < 4; ++p) px[p] = first[p];
      } else {
        loadQuad(a.in, cur.y, x0, n, a.vecIn, px);
      }
      nearest4<KB, kTree>(px, coeff, bi);
      if (n == 4) {
#pragma unroll
        for (int p = 0; p < 4; ++p) accumulate(acc, bi[p], px[p]);
      } else {
        for (int p = 0; p < n; ++p) accumulate(acc, bi[p], px[p]);
      }
    }
    __syncthreads();
    flush(acc, a.k, sums);
    if (r1 < qEnd) __syncthreads();  // after the last round the grid barrier follows
  }
}

// Exact double of a byte: the bits of 2^52 + byte, minus 2^52 (no conversion unit).
__device__ __forceinline__ double byteToDouble(uint32_t byte) {
  return __dsub_rn(__hiloint2double(0x43300000, int(byte)), 4503599627370496.0);
}

// Final assignment: labels, output pixels, and this thread's cost.
template <int KB, bool kTree>
__device__ ull finalPass(const KernelArgs& a, uint32_t qBegin, uint32_t qEnd, uint32_t qpr, const float4* coeff,
                         const double (*centre)[3], const uint32_t* colour) {
  const int width = a.in.width;
  ull cost = 0;
  QuadCursor cur(qBegin + threadIdx.x, qpr);
  for (uint32_t q = qBegin + threadIdx.x; q < qEnd; q += kThreads, cur.advance()) {
    const uint32_t x0 = cur.qx * 4;
    const int n = min(4, width - int(x0));
    uint32_t px[4], o[4];
    int bi[4];
    loadQuad(a.in, cur.y, x0, n, a.vecIn, px);
    nearest4<KB, kTree>(px, coeff, bi);
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const int j = bi[p];
      if (p < n)
        cost += km::pixelCost(byteToDouble(px[p] & 0xFFu), byteToDouble((px[p] >> 8) & 0xFFu),
                              byteToDouble((px[p] >> 16) & 0xFFu), centre[j][0], centre[j][1], centre[j][2]);
      o[p] = colour[j] | (px[p] & 0xFF000000u);
    }
    if (a.labels) {
      uint8_t* labels = a.labels + size_t(cur.y) * width + x0;
      if (n == 4 && reinterpret_cast<uintptr_t>(labels) % 4 == 0)
        *reinterpret_cast<uint32_t*>(labels) = uint32_t(bi[0]) | uint32_t(bi[1]) << 8 | uint32_t(bi[2]) << 16 |
                                               uint32_t(bi[3]) << 24;
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

// Up to 85 registers for KB <= 8 (three blocks per SM can be resident), 128 above.
template <int KB>
constexpr int kMinBlocksPerSm = KB <= 8 ? 3 : 2;

template <int KB, bool kTree>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm<KB>) kmeansKernel(KernelArgs a) {
  extern __shared__ uint2 acc[];  // [KB][kThreads] packed per-thread cluster sums
  __shared__ float4 coeff[KB];    // score constants (kmeans_math.h)
  __shared__ float centre[KB][3];
  __shared__ double centreD[KB][3];  // final centres for the cost
  __shared__ uint32_t colour[KB];    // rounded centre colours, alpha 0
  __shared__ float shiftShared;
  __shared__ ull costShared[kThreads / 32];
  cg::grid_group grid = cg::this_grid();
  const int tid = threadIdx.x, k = a.k, width = a.in.width;
  const uint32_t qpr = (uint32_t(width) + 3) / 4;
  const uint64_t quads = uint64_t(qpr) * uint32_t(a.in.height);
  const uint32_t qBegin = uint32_t(blockIdx.x * quads / gridDim.x);
  const uint32_t qEnd = uint32_t((blockIdx.x + 1) * quads / gridDim.x);

  for (int j = 0; j < KB; ++j) acc[j * kThreads + tid] = make_uint2(0u, 0u);
  uint32_t first[4] = {0u, 0u, 0u, 0u};  // this thread's first quad, reused every iteration
  if (qBegin + tid < qEnd) {
    const QuadCursor cur(qBegin + tid, qpr);
    loadQuad(a.in, cur.y, cur.qx * 4, min(4, width - int(cur.qx * 4)), a.vecIn, first);
  }
  if (tid < KB) {
    if (tid < k) {
      float r, g, b;
      if (a.uniformInit) {
        const uint64_t i = km::spreadIndex(uint64_t(tid), a.in.pixels(), uint64_t(k));
        const uchar4 p = a.in.at(int(i % uint32_t(width)), int(i / uint32_t(width)));
        r = p.x, g = p.y, b = p.z;
      } else {
        r = a.state->centres[tid][0], g = a.state->centres[tid][1], b = a.state->centres[tid][2];
      }
      centre[tid][0] = r, centre[tid][1] = g, centre[tid][2] = b;
      coeff[tid] = km::centreCoeffs(r, g, b);
    } else {
      coeff[tid] = km::unusedCentreCoeffs();
    }
  }
  __syncthreads();

  float shift2 = INFINITY;
  int it = 0;
  while (it < a.maxIterations) {
    ull* sums = &a.scratch->sums[it % 3][0][0];
    assignPass<KB, kTree>(a, qBegin, qEnd, qpr, coeff, first, acc, sums);
    grid.sync();
    if (tid < 32) {  // k <= 32: warp 0 updates the centres, identically in every block
      float d2 = 0.f;
      const ull n = tid < k ? __ldcg(sums + tid * 4 + 3) : 0;
      if (n != 0) {
        const float nr = km::meanChannel(__ldcg(sums + tid * 4 + 0), n);
        const float ng = km::meanChannel(__ldcg(sums + tid * 4 + 1), n);
        const float nb = km::meanChannel(__ldcg(sums + tid * 4 + 2), n);
        d2 = km::shiftSquared(centre[tid][0], centre[tid][1], centre[tid][2], nr, ng, nb);
        centre[tid][0] = nr, centre[tid][1] = ng, centre[tid][2] = nb;
        coeff[tid] = km::centreCoeffs(nr, ng, nb);
      }
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) d2 = fmaxf(d2, __shfl_xor_sync(~0u, d2, off));  // exact, any order
      if (tid == 0) shiftShared = d2;
    }
    if (blockIdx.x == 0)
      for (int i = tid; i < kMaxClusters * 4; i += kThreads) (&a.scratch->sums[(it + 2) % 3][0][0])[i] = 0;
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
    centreD[tid][0] = centre[tid][0], centreD[tid][1] = centre[tid][1], centreD[tid][2] = centre[tid][2];
  }
  __syncthreads();
  ull cost = finalPass<KB, kTree>(a, qBegin, qEnd, qpr, coeff, centreD, colour);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cost += __shfl_xor_sync(~0u, cost, off);
  if (tid % 32 == 0) costShared[tid / 32] = cost;
  __syncthreads();
  if (tid == 0) {
    ull blockCost = 0;
    for (int w = 0; w < kThreads / 32; ++w) blockCost += costShared[w];
    if (blockCost) atomicAdd(&a.scratch->cost, blockCost);
  }
  grid.sync();
  if (blockIdx.x == 0) {
    if (tid == 0) {
      a.state->cost = __ldcg(&a.scratch->cost);
      a.scratch->cost = 0;
      a.state->k = k;
      a.state->iterations = it;
      a.state->shift2 = shift2;
    }
    if (tid < k) {
      a.state->centres[tid][0] = centre[tid][0], a.state->centres[tid][1] = centre[tid][1];
      a.state->centres[tid][2] = centre[tid][2], a.state->centres[tid][3] = 0.f;
    }
    for (int i = tid; i < 3 * kMaxClusters * 4; i += kThreads) (&a.scratch->sums[0][0][0])[i] = 0;
  }
}

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
    const uchar4 c = pixelAt(in, km::spreadIndex(pick, n, m));
    if (tid == 0) {
      state->centres[j][0] = c.x, state->centres[j][1] = c.y, state->centres[j][2] = c.z;
      state->centres[j][3] = 0.f;
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

int bucketIndex(int k) { return k <= 4 ? 0 : k <= 8 ? 1 : k <= 16 ? 2 : 3; }

using Kernel = void (*)(KernelArgs);
template <bool kTree>
Kernel kernelFor(int bucket) {
  switch (bucket) {
    case 0: return kmeansKernel<4, kTree>;
    case 1: return kmeansKernel<8, kTree>;
    case 2: return kmeansKernel<16, kTree>;
    default: return kmeansKernel<32, kTree>;
  }
}
Kernel kernelFor(int bucket, bool tree) { return tree ? kernelFor<true>(bucket) : kernelFor<false>(bucket); }
size_t accBytes(int bucket) { return size_t(4 << bucket) * kThreads * sizeof(uint2); }

}  // namespace

KmeansWorkspace::KmeansWorkspace() : scratch_(sizeof(Scratch)) {
  VP_CUDA_CHECK(cudaMemset(scratch_.get(), 0, sizeof(Scratch)));
  int device = 0, cooperative = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&smCount_, cudaDevAttrMultiProcessorCount, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) throw std::runtime_error("kmeans: the CUDA device does not support cooperative launches");
  for (int tree = 0; tree < 2; ++tree)
    for (int b = 0; b < 4; ++b) {
      const Kernel kernel = kernelFor(b, tree);
      VP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(accBytes(b))));
      VP_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&maxBlocksPerSm_[tree][b], kernel, kThreads, accBytes(b)));
    }
}

void kmeansGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state, const KmeansParams& params,
               KmeansWorkspace& ws, cudaStream_t stream) {
  detail::checkKmeansArgs(in, out, params);
  if (state == nullptr) throw std::invalid_argument("kmeans: null state");
  const int bucket = bucketIndex(params.k), tree = ws.tuning.treeArgmin ? 1 : 0;
  if (ws.maxBlocksPerSm_[tree][bucket] < 1) throw std::runtime_error("kmeans: kernel does not fit on this device");

  KernelArgs a;
  a.in = in;
  a.out = out;
  a.labels = labels;
  a.state = state;
  a.scratch = ws.scratch_.as<Scratch>();
  a.k = params.k;
  a.maxIterations = params.maxIterations;
  a.epsilon = params.epsilon;
  a.uniformInit = params.init == KmeansInit::Uniform;
  a.vecIn = reinterpret_cast<uintptr_t>(in.data) % 16 == 0 && in.pitch % 16 == 0;
  a.vecOut = reinterpret_cast<uintptr_t>(out.data) % 16 == 0 && out.pitch % 16 == 0;

  if (params.init == KmeansInit::KmeansPlusPlus) {
    kmeansPlusPlusKernel<<<1, kPlusPlusThreads, 0, stream>>>(in, state, params.k, params.seed);
    VP_CUDA_CHECK_LAUNCH();
  }
  const uint64_t quads = uint64_t((in.width + 3) / 4) * uint64_t(in.height);
  int perSm = ws.tuning.blocksPerSm;
  if (perSm <= 0) perSm = quads >= uint64_t(ws.smCount_) * 2 * kThreads * 16 ? 3 : 2;  // measured: notes/kmeans.md
  perSm = std::clamp(perSm, 1, ws.maxBlocksPerSm_[tree][bucket]);
  int grid = ws.smCount_ * perSm;
  if (!ws.tuning.fullGrid) grid = int(std::min<uint64_t>(uint64_t(grid), (quads + kThreads - 1) / kThreads));
  void* args[] = {&a};
  VP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernelFor(bucket, tree)), dim3(grid), dim3(kThreads),
                                            args, accBytes(bucket), stream));
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
