// Device code of K-means' per-tile candidate centres (kmeans.cu; k <= 16).
//
// A tile is one warp step of the assignment pass: 32 consecutive quads (128 consecutive
// raster pixels when rows are whole quads). Its colours fit a bounding box, found once per
// launch (the pixels do not change between iterations). Each iteration, centre a cannot be
// the nearest of any pixel in the tile when another centre b scores lower by more than
// kCandidateMargin everywhere in the box. s_a - s_b is affine in the pixel, so its minimum
// over the box sits at the corner picked by the signs of m_a - m_b: one test per ordered
// pair. The candidate set is the same for the whole warp, so nothing diverges: the warp
// scores only the candidates, and nothing at all when one is left.
//
// Why labels stay bit-identical: with every centre in [0, 255], the test's float arithmetic
// is within 0.25 of the exact difference (magnitudes < 2^20: three FMAs of <= 2^-4 each, the
// differences of m and cc < 0.03 together), and each float score is within 0.1 of its exact
// value (kmeans_math.h). A dropped centre's float score so exceeds b's by > 1 - 0.25 - 0.2:
// it never wins or ties, and the argmin over the candidates in index order is the full
// argmin. Centres outside [0, 255] (a warm start from arbitrary values) switch the test off.
// Design and measurements: docs/design/kmeans.md.
#pragma once

#include "gpu/cuda/warp_reduce.cuh"  // warpMin, warpMax
#include "gpu/filters/kmeans/kmeans_assign.cuh"
#include "gpu/filters/kmeans/kmeans_candidates.cuh"  // candidatesFromBallot, centreMask, kPairTests

namespace vp {
namespace kmgpu {

constexpr int kMaxTiles = 1024;  // tiles per block with boxes in shared memory (32 KB); more: plain pass
using km::kCandidateMargin;      // squared 8-bit levels (see above)

// A tile's colour box: the lowest and highest r, g, b of its pixels (w unused).
struct TileBox {
  float4 lo, hi;
};

// Warp 0, every lane: whether all k centres lie in [0, 255] (false for NaN), the premise of the test.
__device__ __forceinline__ bool centresInRange(const float (*centre)[3], int k) {
  const int j = threadIdx.x;
  bool in = true;
  if (j < k)
    for (int f = 0; f < 3; ++f) in &= centre[j][f] >= 0.f && centre[j][f] <= 255.f;
  return __all_sync(~0u, in);
}

// Reads each of the block's quads once per launch: stores local quads 0 .. a.cacheQuads - 1
// in the pixel cache (cache[l], as loadQuad returns them) and, with `boxes`, fills boxes[j]
// for the block's local tiles j (BlockQuads), the warp steps assignPassTiles walks. Missing
// pixels (past a row's end or the block's last quad) stay out of the box. P warp steps at a
// time: their loads are issued before the first box reduction needs one, so a thread waits
// for memory once per P steps instead of once per step.
template <int T, int P>
__device__ void blockPrologue(const KernelArgs& a, const BlockQuads& bq, TileBox* boxes, uint4* cache) {
  const uint32_t lane = threadIdx.x % 32;
  QuadCursor cur = bq.cursor<T>(threadIdx.x);
  for (uint32_t lw0 = threadIdx.x - lane; lw0 < bq.count; lw0 += P * T) {  // warp-uniform
    uint32_t px[P][4];
    int n[P];
#pragma unroll
    for (int s = 0; s < P; ++s, cur.advance()) {
      n[s] = 0;
#pragma unroll
      for (int p = 0; p < 4; ++p) px[s][p] = 0u;
      if (lw0 + s * T + lane < bq.count) {
        const uint32_t x0 = cur.qx * 4;
        n[s] = min(4, a.in.width - int(x0));
        loadQuad(a.in, cur.y, x0, n[s], a.vecIn, px[s]);
      }
    }
#pragma unroll
    for (int s = 0; s < P; ++s) {
      const uint32_t lw = lw0 + s * T, qLocal = lw + lane;
      if (lw >= bq.count) break;  // warp-uniform
      uint32_t lo[3] = {255u, 255u, 255u}, hi[3] = {0u, 0u, 0u};
      if (qLocal < bq.count) {
        if (qLocal < a.cacheQuads) cache[qLocal] = make_uint4(px[s][0], px[s][1], px[s][2], px[s][3]);
#pragma unroll
        for (int p = 0; p < 4; ++p)
          if (p < n[s])
#pragma unroll
            for (int f = 0; f < 3; ++f) {
              const uint32_t v = (px[s][p] >> (8 * f)) & 0xFFu;
              lo[f] = min(lo[f], v), hi[f] = max(hi[f], v);
            }
      }
      if (boxes == nullptr) continue;
#pragma unroll
      for (int f = 0; f < 3; ++f) lo[f] = warpMin(lo[f]), hi[f] = warpMax(hi[f]);
      if (lane == 0)
        boxes[lw / 32] = {make_float4(float(lo[0]), float(lo[1]), float(lo[2]), 0.f),
                          make_float4(float(hi[0]), float(hi[1]), float(hi[2]), 0.f)};
    }
  }
}

// Warp 0, after the centres changed: each lane's pair test constants for tileCandidates, the
// difference of the two centres' score constants (a - b), or a test that never drops
// (w = -inf) for padding centres, a == b, or centres outside [0, 255] (`prune` off).
template <int KB>
__device__ __forceinline__ void pairConstants(const float4* coeff, int k, bool prune, float4* pairs) {
  const int lane = threadIdx.x, ca = lane % KB;
  __syncwarp();  // coeff comes from every lane of warp 0
#pragma unroll
  for (int i = 0; i < kPairTests<KB>; ++i) {
    const int cb = lane / KB + i * (32 / KB);
    float4 d = make_float4(0.f, 0.f, 0.f, -INFINITY);
    if (prune && ca < k && cb < k && cb != ca) d = km::pairCoeffs(coeff[ca], coeff[cb]);
    pairs[i * 32 + lane] = d;
  }
}

// The centres that may be the nearest of some pixel in `box`, as candidatesFromBallot: within
// `all` = centreMask(k), `all` itself when none is dropped (assignPassTiles tests for it; the
// CPU twin in kmeans_cpu.cpp has the same contract), never empty. Each lane runs its pair
// tests (pairConstants).
template <int KB>
__device__ __forceinline__ uint32_t tileCandidates(const TileBox& box, const float4* pairs, uint32_t all) {
  const int lane = threadIdx.x % 32;
  const float4 lo = box.lo, hi = box.hi;
  bool dominated = false;
#pragma unroll
  for (int i = 0; i < kPairTests<KB>; ++i)
    dominated |= km::pairMinOverBox(pairs[i * 32 + lane], lo, hi) > kCandidateMargin;
  return candidatesFromBallot<KB>(dominated, all);
}

// Scores the next C candidates of `cand` (index order, taken off the mask; +inf scores pad
// a short chunk) for the quad's pixels and keeps the lowest, ties to the lowest index: a
// pairwise tree in which the left (lower) side wins ties, then strict < against earlier chunks.
template <int C>
__device__ __forceinline__ void candidateChunk(const float (&pr)[4], const float (&pg)[4],
                                               const float (&pb)[4], const float4* coeff, uint32_t& cand,
                                               float (&best)[4], int (&bi)[4]) {
  float4 c[C];
  int idx[C];
#pragma unroll
  for (int i = 0; i < C; ++i) {
    const bool has = cand != 0;
    idx[i] = has ? __ffs(cand) - 1 : 0;
    c[i] = has ? coeff[idx[i]] : km::unusedCentreCoeffs();
    cand &= cand - 1u;
  }
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    float s[C];
    int j[C];
#pragma unroll
    for (int i = 0; i < C; ++i) s[i] = km::score(pr[p], pg[p], pb[p], c[i]), j[i] = idx[i];
#pragma unroll
    for (int w = 1; w < C; w *= 2)
#pragma unroll
      for (int i = 0; i + w < C; i += 2 * w)
        if (s[i + w] < s[i]) s[i] = s[i + w], j[i] = j[i + w];
    if (s[0] < best[p]) best[p] = s[0], bi[p] = j[0];
  }
}

// Nearest centre of each quad pixel among >= 2 candidates: chunks of 2, 4 or 8 by count.
template <int KB>
__device__ __forceinline__ void nearestCandidates(const uint32_t (&px)[4], const float4* coeff, uint32_t cand,
                                                  int (&bi)[4]) {
  float pr[4], pg[4], pb[4], best[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    pr[p] = channel(px[p], 0), pg[p] = channel(px[p], 1), pb[p] = channel(px[p], 2);
    best[p] = INFINITY;
    bi[p] = 0;
  }
  const int count = __popc(cand);
  if (count <= 2) {
    candidateChunk<2>(pr, pg, pb, coeff, cand, best, bi);
  } else if (KB <= 4 || count <= 4) {
    candidateChunk<4>(pr, pg, pb, coeff, cand, best, bi);
  } else {
    if constexpr (KB > 8)
      while (cand != 0) candidateChunk<8>(pr, pg, pb, coeff, cand, best, bi);
  }
}

// Adds a quad whose pixels all go to cluster j (missing pixels are 0): one column update.
template <int T>
__device__ __forceinline__ void accumulateQuad(uint2* acc, int j, const uint32_t (&px)[4], int n) {
  uint32_t x = 0, y = uint32_t(n) << 16;
#pragma unroll
  for (int p = 0; p < 4; ++p) x += __byte_perm(px[p], 0u, 0x4140u), y += __byte_perm(px[p], 0u, 0x4442u);
  uint2* a = acc + j * T + threadIdx.x;
  uint2 v = *a;
  v.x += x, v.y += y;
  *a = v;
}

// assignPass by tiles: each warp step first finds its tile's candidates, then
// scores only those. Same labels and sums as assignPass.
template <int KB, int T>
__device__ void assignPassTiles(const KernelArgs& a, const BlockQuads& bq, const float4* coeff,
                                const uint32_t (&first)[4], uint2* acc, const uint4* cache, ull* sums,
                                const TileBox* boxes, const float4* pairs) {
  const int width = a.in.width;
  const uint32_t lane = threadIdx.x % 32, all = centreMask(a.k);
  for (uint32_t r0 = 0; r0 < bq.count; r0 += kQuadsPerRound * T) {  // uniform per block; local quads
    const uint32_t r1 = min(bq.count, r0 + kQuadsPerRound * T);
    clearOwnColumns<KB, T>(acc);
    QuadCursor cur = bq.cursor<T>(r0 + threadIdx.x);
    for (uint32_t lw = r0 + threadIdx.x - lane; lw < r1; lw += T, cur.advance()) {  // uniform per warp
      const uint32_t cand = tileCandidates<KB>(boxes[lw / 32], pairs, all);
      const uint32_t q = lw + lane;
      if (q >= r1) continue;
      const uint32_t x0 = cur.qx * 4;
      const int n = min(4, width - int(x0));
      uint32_t px[4];
      if (q == threadIdx.x) {
#pragma unroll
        for (int p = 0; p < 4; ++p) px[p] = first[p];
      } else {
        fetchQuad(a, cache, q, cur.y, x0, n, px);
      }
      if ((cand & (cand - 1u)) == 0) {  // one candidate: the whole quad is its
        accumulateQuad<T>(acc, __ffs(cand) - 1, px, n);
        continue;
      }
      int bi[4];
      if (cand == all || (KB == 8 && __popc(cand) > 4))  // k <= 8: more than 4 candidates cost as much as all
        nearest4<KB>(px, coeff, bi);
      else
        nearestCandidates<KB>(px, coeff, cand, bi);
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
