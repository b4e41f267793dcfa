// Device code of the K-means assignment pass (kmeans.cu): scratch layout, kernel
// arguments, quad walking, score/argmin, per-thread shared-memory columns and their flush.
// Included by kmeans.cu only. T = threads per block.
#pragma once

#include "gpu/cuda/warp_reduce.cuh"  // warpSum
#include "gpu/filters/kmeans/kmeans.h"

#include <cstdint>

namespace vp {
namespace kmgpu {

using ull = unsigned long long;

constexpr int kQuadsPerRound = 64;      // quads per thread between flushes: <= 256 pixels per 16-bit field

// Device scratch; every launch leaves the parts it used zeroed.
struct Scratch {
  ull sums[3][kMaxSumSlots][kMaxClusters][4];  // per iteration buffer and copy: r, g, b sums and pixel count
  ull cost;                                    // final-pass cost accumulator
  ull arrived;                                 // counted barrier: block arrivals of this launch
  ull finished;                                // blocks past their final pass (the last one writes the state)
};

struct KernelArgs {
  ConstRgbaView in;
  RgbaView out;
  uint8_t* labels;  // nullptr: not written
  KmeansState* state;
  const KmeansState* init;  // where warm-start / k-means++ centres are read: state, or kmeansGpu's warmFrom
  Scratch* scratch;
  int k;
  int maxIterations;
  int slots;  // sum copies in use (KmeansPolicy::sumSlots)
  float epsilon;
  bool counted;         // counted barrier instead of grid.sync() (frames up to kCountedMaxPixels)
  uint32_t cacheQuads;  // local quads 0 .. cacheQuads - 1 live in shared memory (KmeansPolicy::pixelCache)
  bool interleave;      // blocks own every G-th tile, not a contiguous range (KmeansPolicy::interleaveTiles)
  bool uniformInit;     // else `init` holds the initial centres (warm start or k-means++)
  bool vecIn;           // 16-byte quad loads allowed (pointer and pitch aligned)
  bool vecOut;          // 16-byte quad stores allowed
};

// Walks the quads q, q + step, ... of one thread as (row, quad column).
struct QuadCursor {
  uint32_t y, qx, qpr, stepY, stepX;
  __device__ QuadCursor(uint32_t q, uint32_t quadsPerRow, uint32_t step)
      : y(q / quadsPerRow), qx(q % quadsPerRow), qpr(quadsPerRow), stepY(step / quadsPerRow),
        stepX(step % quadsPerRow) {}
  __device__ void advance() {
    y += stepY;
    qx += stepX;
    if (qx >= qpr) {
      qx -= qpr;
      ++y;
    }
  }
};

// The quads a block owns, numbered locally 0 .. count - 1 in tiles of 32 (local tile j =
// local quads 32j .. 32j + 31, one warp step). Contiguous: the block's range of the raster
// order. Interleaved: global tile b + jG of block b in a grid of G, so every block samples
// the whole frame (evens out the candidate pass's content-dependent work between the
// blocks each iteration waits for). Thread t walks local quads t, t + T, ...
struct BlockQuads {
  uint32_t first;       // raster quad of local quad 0
  uint32_t tileStride;  // raster quads from one local tile to the next: 32, or 32G interleaved
  uint32_t count;       // local quads
  uint32_t qpr;         // quads per row

  __device__ BlockQuads(const KernelArgs& a, uint32_t quadsPerRow) : qpr(quadsPerRow) {
    const uint32_t quads = qpr * uint32_t(a.in.height), b = blockIdx.x, g = gridDim.x;
    if (a.interleave) {
      const uint32_t tiles = (quads + 31) / 32, mine = b < tiles ? (tiles - 1 - b) / g + 1 : 0;
      first = 32 * b, tileStride = 32 * g;
      count = mine == 0 ? 0 : 32 * (mine - 1) + min(32u, quads - 32 * (b + (mine - 1) * g));
    } else {
      first = uint32_t(uint64_t(b) * quads / g), tileStride = 32;
      count = uint32_t(uint64_t(b + 1) * quads / g) - first;
    }
  }
  __device__ uint32_t quad(uint32_t l) const { return first + l / 32 * tileStride + l % 32; }
  // Cursor at local quad l, stepping T local quads (the same lane of the warp's next tile).
  template <int T>
  __device__ QuadCursor cursor(uint32_t l) const {
    return QuadCursor(quad(l), qpr, T / 32 * tileStride);
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

// Loads quad qLocal of the block (at row y, column x0): from the shared-memory pixel cache
// when it holds it (the prologue stored loadQuad's words there, zeros included), else
// from the image.
__device__ __forceinline__ void fetchQuad(const KernelArgs& a, const uint4* cache, uint32_t qLocal, uint32_t y,
                                          uint32_t x0, int n, uint32_t (&px)[4]) {
  if (qLocal < a.cacheQuads) {
    const uint4 v = cache[qLocal];
    px[0] = v.x, px[1] = v.y, px[2] = v.z, px[3] = v.w;
  } else {
    loadQuad(a.in, y, x0, n, a.vecIn, px);
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
// in chunks of <= 8 through treeArgmin: a chunk's constants stay in registers across the
// quad's pixels, and a rolled chunk loop keeps KB = 16, 32 from spilling (their chunks
// reload from shared memory).
template <int KB>
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
      float s[kChunk], chunkBest;
#pragma unroll
      for (int jj = 0; jj < kChunk; ++jj) s[jj] = km::score(pr[p], pg[p], pb[p], c[jj]);
      const int j = j0 + treeArgmin<kChunk>(s, chunkBest);
      if (KB <= kChunk)
        best[p] = chunkBest, bi[p] = j;
      else if (chunkBest < best[p])  // an earlier chunk wins ties
        best[p] = chunkBest, bi[p] = j;
    }
  }
}

// Adds a pixel to this thread's column of cluster j: (r | g<<16, b | 1<<16).
template <int T>
__device__ __forceinline__ void accumulate(uint2* acc, int j, uint32_t px) {
  uint2* a = acc + j * T + threadIdx.x;
  uint2 v = *a;
  v.x += __byte_perm(px, 0u, 0x4140u);
  v.y += __byte_perm(px, 1u, 0x5452u);
  *a = v;
}

// Reduces the block's columns; one atomicAdd per cluster and field. Packed (counted
// barrier): three fields per cluster, each count << 32 | channel sum. It only reads: each
// thread clears its own columns when the next round starts (clearOwnColumns), so the
// flush, which the whole block waits for, moves half the shared-memory bytes it used to.
template <int T>
__device__ void flush(uint2* acc, int k, ull* sums, bool packed) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = warp; j < k; j += T / 32) {
    uint32_t r = 0, g = 0, b = 0, n = 0;  // <= 1024 columns * 65280: no overflow
#pragma unroll
    for (int i = lane; i < T; i += 32) {
      const uint2 v = acc[j * T + i];
      r += v.x & 0xFFFFu, g += v.x >> 16, b += v.y & 0xFFFFu, n += v.y >> 16;
    }
    r = warpSum(r), g = warpSum(g), b = warpSum(b), n = warpSum(n);
    if (lane == 0 && n != 0) {
      if (packed) {
        const ull count = ull(n) << 32;
        atomicAdd(sums + j * 4 + 0, count | r);
        atomicAdd(sums + j * 4 + 1, count | g);
        atomicAdd(sums + j * 4 + 2, count | b);
      } else {
        atomicAdd(sums + j * 4 + 0, ull(r));
        atomicAdd(sums + j * 4 + 1, ull(g));
        atomicAdd(sums + j * 4 + 2, ull(b));
        atomicAdd(sums + j * 4 + 3, ull(n));
      }
    }
  }
}

// A thread's own columns to zero, at the start of every round (after the barrier that
// follows the previous flush).
template <int KB, int T>
__device__ __forceinline__ void clearOwnColumns(uint2* acc) {
#pragma unroll
  for (int j = 0; j < KB; ++j) acc[j * T + threadIdx.x] = make_uint2(0u, 0u);
}

// One assignment pass over the block's quads (the plain pass: every centre scored; k > 16,
// or blocks with more tiles than kMaxTiles), flushed every kQuadsPerRound quads per thread.
// `first` holds the thread's first quad (the same every iteration), so an iteration starts
// computing without waiting for memory.
template <int KB, int T>
__device__ void assignPass(const KernelArgs& a, const BlockQuads& bq, const float4* coeff,
                           const uint32_t (&first)[4], uint2* acc, const uint4* cache, ull* sums) {
  const int width = a.in.width;
  for (uint32_t r0 = 0; r0 < bq.count; r0 += kQuadsPerRound * T) {  // uniform per block; local quads
    const uint32_t r1 = min(bq.count, r0 + kQuadsPerRound * T);
    clearOwnColumns<KB, T>(acc);
    QuadCursor cur = bq.cursor<T>(r0 + threadIdx.x);
    for (uint32_t q = r0 + threadIdx.x; q < r1; q += T, cur.advance()) {
      const uint32_t x0 = cur.qx * 4;
      const int n = min(4, width - int(x0));
      uint32_t px[4];
      int bi[4];
      if (q == threadIdx.x) {
#pragma unroll
        for (int p = 0; p < 4; ++p) px[p] = first[p];
      } else {
        fetchQuad(a, cache, q, cur.y, x0, n, px);
      }
      nearest4<KB>(px, coeff, bi);
      if (n == 4) {
#pragma unroll
        for (int p = 0; p < 4; ++p) accumulate<T>(acc, bi[p], px[p]);
      } else {
        for (int p = 0; p < n; ++p) accumulate<T>(acc, bi[p], px[p]);
      }
    }
    __syncthreads();
    flush<T>(acc, a.k, sums, a.counted);
    if (r1 < bq.count) __syncthreads();  // after the last round the grid barrier follows
  }
}

}  // namespace kmgpu
}  // namespace vp
