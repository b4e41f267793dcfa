// Spatial (RGBXY) K-means on CUDA (kmeans.h has the contract; the arithmetic is
// kmeans_spatial_math.h's, shared with the CPU twin kmeans_spatial_cpu.cpp, so both agree
// bit for bit: labels, output, centres, positions, iterations, cost and shift2).
//
// kmeansSpatialGpu: one persistent cooperative kernel per frame (after k-means++ seeding, if
// asked), grid sized by occupancy so that every block is resident:
//   prologue  every block takes the initial centres itself (no init launch);
//   iteration the assignment pass over the block's pixels, the block's sums added into
//             global buffer it % 3, grid.sync(), then every block's warp 0 computes the same
//             new centres, shift and stop decision from those sums (no second barrier);
//             block 0 zeroes buffer (it + 2) % 3, which every block read before the barrier
//             just passed and nobody adds to before the next one;
//   final     labels, output pixels, cost; the last block to finish (a counter, no barrier)
//             writes the state and leaves the scratch zeroed for the next frame.
// Work split: a warp step is 128 consecutive pixels of a row (a 4-pixel quad per lane, one
// 16-byte load when aligned); warp w of W owns steps w, w + W, ... for the whole launch
// and loads the next step's quad while it scores the current one (the last step's
// load fetches the first quad of the next pass, so a pass starts without a memory wait).
// A lane scores its 4 pixels centre by centre (the centre's constants, one broadcast load,
// serve four pixels), strict < in index order: lowest score, ties to the lowest index.
// Candidates (k <= 16): a step first drops every centre that another beats by more than a
// margin everywhere in the step's box of colours and positions (km::SpatialBox has the
// proof that a dropped centre never wins or ties), scores only the rest, and scores nothing
// when one is left; warp 0 recomputes the pair constants with every centre update.
//
// Sums: per warp step, warp reductions (REDUX) per cluster present in the step (neighbouring
// pixels mostly share one: then two, with the count and x sum in closed form) into lane c's
// row of 32-bit fields for cluster c in shared memory, flushed into the global sums by 64-bit
// atomics before a field could overflow (spatialFlushMask: never at video sizes on a full
// grid); at the pass end the block adds its warps' rows with one 64-bit atomic per nonzero
// field. Sums are integers, so the result does not depend on the order of the additions.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/warp_reduce.cuh"
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/kmeans/kmeans_candidates.cuh"
#include "gpu/filters/kmeans/kmeans_spatial_math.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace vp {
namespace {

using ull = unsigned long long;
constexpr int kFields = 6;  // r, g, b, x, y sums and the pixel count

namespace cg = cooperative_groups;

// Threads a block: 1024 (one block a multiprocessor at the 64-register cap) where the warps'
// shared sums fit the 48 KB of static shared memory, so half as many blocks arrive at each grid
// barrier; 512 (two a multiprocessor) for the 32-cluster bucket, whose 32 warp rows would not fit.
template <int KB>
constexpr int kCoopThreads = KB <= 16 ? 1024 : 512;
constexpr int kStepQuads = 32;     // a warp step: one quad per lane, 128 pixels of a row

// Device scratch of the cooperative path: zero-filled when a launch starts (the caller fills
// a new one), and every launch leaves it zeroed.
struct CoopScratch {
  ull sums[3][kMaxClusters][kFields];  // iteration it adds into buffer it % 3
  ull cost;                            // final-pass cost accumulator
  ull finished;                        // blocks past their final pass (the last one writes the state)
};

struct CoopArgs {
  ConstRgbaView in;
  RgbaView out;
  uint8_t* labels;  // nullptr: not written
  KmeansState* state;
  const KmeansState* init;  // initial centres and positions unless uniformInit: state or warmFrom
  CoopScratch* scratch;
  int k;
  int maxIterations;
  float epsilon;
  float s;               // spatial scale
  float margin;          // km::spatialCandidateMargin of the weight
  uint32_t stepsPerRow;  // warp steps of a row: ceil(width / 128)
  uint32_t steps;        // of the frame
  uint32_t flushMask;    // a warp flushes its 32-bit sums after step i when (i & flushMask) == flushMask
  bool uniformInit;
  bool vecIn;   // 16-byte quad loads allowed (pointer and pitch aligned)
  bool vecOut;  // 16-byte quad stores allowed
};

// The warp's steps, the same in every pass: w, w + W, w + 2W, ... for warp w of W, so every
// warp's steps are spread over the whole frame and the blocks' passes cost alike whatever
// the content (a contiguous range each put a region's costlier steps, more clusters and
// candidates, on a few blocks, which the grid barrier then waited for). The stride is
// taken apart once into rows and steps.
struct WarpSteps {
  uint32_t y0, sx0, count, strideRows, strideSteps;
  __device__ WarpSteps(const CoopArgs& a, uint32_t blockWarps) {
    const uint32_t warps = gridDim.x * blockWarps, w = blockIdx.x * blockWarps + threadIdx.x / 32;
    count = w < a.steps ? (a.steps - w + warps - 1) / warps : 0u;
    y0 = w / a.stepsPerRow, sx0 = w % a.stepsPerRow;
    strideRows = warps / a.stepsPerRow, strideSteps = warps % a.stepsPerRow;
  }
  // Row y, step sx of the row to the warp's next step.
  __device__ __forceinline__ void advance(const CoopArgs& a, uint32_t& y, uint32_t& sx) const {
    y += strideRows, sx += strideSteps;
    if (sx >= a.stepsPerRow) sx -= a.stepsPerRow, ++y;
  }
};

// Pixels of the quad at column x0 inside the row: 0..4.
__device__ __forceinline__ int quadPixels(int width, uint32_t x0) { return max(0, min(4, width - int(x0))); }

// The quad's pixels as packed RGBA words; missing pixels (past the row end) read 0. On
// 16-byte rows a short quad is read whole as well and masked: its missing pixels lie in the
// row's padding, inside the allocation (vidproc's images are zero-filled there, see
// DevicePitchedBuffer). ptxas made this one 16-byte load from per-pixel loads anyway, even
// volatile ones in inline PTX (kmeans.md).
__device__ __forceinline__ void loadQuad(const CoopArgs& a, uint32_t y, uint32_t x0, uint32_t (&px)[4]) {
  const int n = quadPixels(a.in.width, x0);
  const uint32_t* row = reinterpret_cast<const uint32_t*>(a.in.row(int(y))) + x0;
  if (a.vecIn && n > 0) {
    const uint4 v = *reinterpret_cast<const uint4*>(row);
    px[0] = v.x, px[1] = n > 1 ? v.y : 0u, px[2] = n > 2 ? v.z : 0u, px[3] = n > 3 ? v.w : 0u;
  } else if (n > 0) {
#pragma unroll
    for (int p = 0; p < 4; ++p) px[p] = p < n ? row[p] : 0u;
  } else {
    px[0] = px[1] = px[2] = px[3] = 0u;
  }
}

// Exact float of byte `sel` (0..2) of a packed pixel: the bits of 2^23 + byte, minus 2^23
// (PRMT + FADD instead of the slower integer-to-float conversion).
__device__ __forceinline__ float channelOf(uint32_t px, uint32_t sel) {
  return __fsub_rn(__int_as_float(int(__byte_perm(px, 0x4B000000u, 0x7440u | sel))), 8388608.f);
}

// A quad's features (row y, columns x0 .. x0 + 3) and its running argmin.
struct QuadScores {
  float pr[4], pg[4], pb[4], fx[4], fy, best[4];
  __device__ __forceinline__ QuadScores(const uint32_t (&px)[4], uint32_t x0, uint32_t y, float s,
                                        int (&bi)[4])
      : fy(km::spatialFeature(s, int(y))) {
    const float xf = float(x0);  // exact: widths < 2^24, so x0 + p is exact too
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      pr[p] = channelOf(px[p], 0), pg[p] = channelOf(px[p], 1), pb[p] = channelOf(px[p], 2);
      fx[p] = km::mulRn(s, __fadd_rn(xf, float(p)));  // km::spatialFeature(s, x0 + p)
      best[p] = INFINITY;
      bi[p] = 0;
    }
  }
  // Centre j's score of each pixel (km::spatialScore); strict <, so in index order ties go
  // to the lowest index (the CPU twin's loop).
  __device__ __forceinline__ void score(const km::SpatialCoeffs& c, int j, int (&bi)[4]) {
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const float sc = km::spatialScore(pr[p], pg[p], pb[p], fx[p], fy, c);
      if (sc < best[p]) best[p] = sc, bi[p] = j;
    }
  }
};

// Nearest centre of each quad pixel among all. Centres go in chunks of <= 8; a rolled chunk
// loop keeps KB = 16, 32 to the register and code size of KB = 8.
template <int KB>
__device__ __forceinline__ void nearestQuad(const uint32_t (&px)[4], uint32_t x0, uint32_t y, float s,
                                            const float4* rgb, const float2* xy, int (&bi)[4]) {
  constexpr int kChunk = KB < 8 ? KB : 8;
  QuadScores q(px, x0, y, s, bi);
#pragma unroll 1
  for (int j0 = 0; j0 < KB; j0 += kChunk)
#pragma unroll
    for (int jj = 0; jj < kChunk; ++jj) q.score(km::SpatialCoeffs{rgb[j0 + jj], xy[j0 + jj]}, j0 + jj, bi);
}

// The same among the candidates `cand` (bit j: centre j), in index order: the same labels
// when every other centre is one that cannot win (km::SpatialBox).
__device__ __forceinline__ void nearestCandidates(const uint32_t (&px)[4], uint32_t x0, uint32_t y, float s,
                                                  const float4* rgb, const float2* xy, uint32_t cand,
                                                  int (&bi)[4]) {
  QuadScores q(px, x0, y, s, bi);
  for (; cand != 0; cand &= cand - 1) {
    const int j = __ffs(cand) - 1;
    q.score(km::SpatialCoeffs{rgb[j], xy[j]}, j, bi);
  }
}

// Pruning runs for k <= 16 (the pair constants of KB = 32 would take 32 KB of shared memory).
template <int KB>
constexpr bool kPrunes = KB <= 16;
using kmgpu::candidatesFromBallot;
using kmgpu::centreMask;
using kmgpu::kPairTests;  // lane L's test t: pair L + 32 t

// Warp 0, after the centres changed: the pair constants spatialCandidates tests (a - b for
// pair a + KB b), or a test that never drops (cc difference -inf) for a == b, padding
// centres, or when some centre lies outside the margin's premise (km::spatialCentreInRange).
template <int KB>
__device__ __forceinline__ void spatialPairs(const float (*centre)[5], const float4* rgb, const float2* xy,
                                             int k, int width, int height, km::SpatialCoeffs* pairs) {
  const int lane = threadIdx.x % 32;
  const bool prune = __all_sync(~0u, lane >= k || km::spatialCentreInRange(centre[lane], width, height));
  __syncwarp();  // rgb and xy come from every lane of warp 0
  for (int i = lane; i < KB * KB; i += 32) {
    const int ca = i % KB, cb = i / KB;
    km::SpatialCoeffs d{make_float4(0.f, 0.f, 0.f, -INFINITY), make_float2(0.f, 0.f)};
    if (prune && ca != cb && ca < k && cb < k)
      d = km::spatialPairCoeffs(km::SpatialCoeffs{rgb[ca], xy[ca]}, km::SpatialCoeffs{rgb[cb], xy[cb]});
    pairs[i] = d;
  }
}

// The centres that may be the nearest of some pixel of the step (row y, first column xs;
// each lane's quad px with n pixels): a nonempty proper subset of the k centres, or 0 when
// every centre stays, the "score them all" that coopPass also takes for KB = 32 (no tests).
// The step's box by byte-wise min / max and six warp reductions; each lane runs its pair
// tests (spatialPairs holds KB * KB).
template <int KB>
__device__ __forceinline__ uint32_t spatialCandidates(const CoopArgs& a, const uint32_t (&px)[4], int n,
                                                      uint32_t xs, uint32_t y,
                                                      const km::SpatialCoeffs* pairs) {
  const int lane = threadIdx.x % 32;
  // r and b as two 16-bit lanes (one min.u16x2 / max.u16x2 each), g alone; a missing pixel
  // repeats the first, and a lane without pixels takes the neutral box (lo 255, hi 0).
  uint32_t rbLo = px[0] & 0x00FF00FFu, rbHi = rbLo, gLo = __byte_perm(px[0], 0u, 0x4441u), gHi = gLo;
#pragma unroll
  for (int p = 1; p < 4; ++p) {
    const uint32_t q = p < n ? px[p] : px[0], rb = q & 0x00FF00FFu, g = __byte_perm(q, 0u, 0x4441u);
    rbLo = __vminu2(rbLo, rb), rbHi = __vmaxu2(rbHi, rb), gLo = min(gLo, g), gHi = max(gHi, g);
  }
  if (n == 0) rbLo = 0x00FF00FFu, rbHi = 0u, gLo = 0xFFu, gHi = 0u;
  km::SpatialBox box;
  box.lo[0] = float(__reduce_min_sync(~0u, rbLo & 0xFFFFu));
  box.hi[0] = float(__reduce_max_sync(~0u, rbHi & 0xFFFFu));
  box.lo[1] = float(__reduce_min_sync(~0u, gLo));
  box.hi[1] = float(__reduce_max_sync(~0u, gHi));
  box.lo[2] = float(__reduce_min_sync(~0u, rbLo >> 16));
  box.hi[2] = float(__reduce_max_sync(~0u, rbHi >> 16));
  const uint32_t xl = min(xs + 4 * kStepQuads, uint32_t(a.in.width)) - 1;
  box.fxLo = km::spatialFeature(a.s, int(xs)), box.fxHi = km::spatialFeature(a.s, int(xl));
  box.fy = km::spatialFeature(a.s, int(y));
  bool dominated = false;
#pragma unroll
  for (int t = 0; t < kPairTests<KB>; ++t)
    if (lane + 32 * t < KB * KB) dominated |= km::spatialPairMinOverBox(pairs[lane + 32 * t], box) > a.margin;
  const uint32_t all = centreMask(a.k), cand = candidatesFromBallot<KB>(dominated, all);
  return cand != all ? cand : 0u;
}

// Lane c's row of the warp's sums in shared memory: cluster c's r, g, b, x, y sums and count as
// 32-bit fields (two padding words: one 16-byte and one 8-byte access), written by lane c only.
constexpr int kRowWords = 8;

// Adds the step's pixels (row y, first column xs, `stepPixels` of them) to the warp's sums
// (`rows`: the block's, [warp][cluster][kRowWords]; indexed here, not held, to spare a
// register). One cluster in the step (the usual case): two warp sums of packed
// fields (r | g<<16 and b: a step's 128 pixels keep each below 2^16; missing pixels read 0),
// the step's count and x sum in closed form. Several: per cluster present, three warp sums
// (r | g<<16, b | 1<<16, x).
template <class Rows>
__device__ __forceinline__ void accumulateQuad(const uint32_t (&px)[4], const int (&bi)[4], int n,
                                               uint32_t x0, uint32_t xs, uint32_t y, uint32_t stepPixels,
                                               Rows& rows) {
  const int lane = threadIdx.x % 32;
  const auto add = [&rows, lane, y](uint32_t r, uint32_t g, uint32_t b, uint32_t x, uint32_t count) {
    uint32_t* const row = rows[threadIdx.x / 32][lane];
    uint4 v = *reinterpret_cast<uint4*>(row);
    uint2 w = *reinterpret_cast<uint2*>(row + 4);
    v.x += r, v.y += g, v.z += b, v.w += x, w.x += y * count, w.y += count;
    *reinterpret_cast<uint4*>(row) = v;
    *reinterpret_cast<uint2*>(row + 4) = w;
  };
  uint32_t mine = 0;
#pragma unroll
  for (int p = 0; p < 4; ++p)
    if (p < n) mine |= 1u << bi[p];
  uint32_t present = warpOr(mine);
  if ((present & (present - 1)) == 0) {  // warp-uniform
    uint32_t rg = 0, b = 0;
#pragma unroll
    for (int p = 0; p < 4; ++p) rg += __byte_perm(px[p], 0u, 0x4140u), b += __byte_perm(px[p], 0u, 0x4442u);
    rg = warpSum(rg), b = warpSum(b);
    if (lane == __ffs(present) - 1)
      add(rg & 0xFFFFu, rg >> 16, b, stepPixels * xs + stepPixels * (stepPixels - 1) / 2, stepPixels);
    return;
  }
  while (present != 0) {
    const int c = __ffs(present) - 1;
    present &= present - 1;
    uint32_t rg = 0, bn = 0, xsum = 0;
#pragma unroll
    for (int p = 0; p < 4; ++p)
      if (p < n && bi[p] == c) {
        rg += __byte_perm(px[p], 0u, 0x4140u);
        bn += __byte_perm(px[p], 1u, 0x5452u);
        xsum += x0 + p;
      }
    rg = warpSum(rg), bn = warpSum(bn), xsum = warpSum(xsum);
    if (lane == c) add(rg & 0xFFFFu, rg >> 16, bn & 0xFFFFu, xsum, bn >> 16);
  }
}

// Lane c's row into the iteration's global sums (64-bit atomics), then zeroed: before 32-bit
// fields could overflow (spatialFlushMask), which a frame reaches only with thousands of
// steps a warp. Lane c alone touches its row, so no warp barrier.
__device__ __forceinline__ void flushRow(uint32_t* row, ull* sums, int k) {
  const int lane = threadIdx.x % 32;
  if (lane >= k) return;
  for (int f = 0; f < kFields; ++f) {
    if (row[f] != 0) atomicAdd(sums + lane * kFields + f, ull(row[f]));
    row[f] = 0;
  }
}

// Final pass of one quad: output pixels (the centre's colour, the input's alpha), labels,
// and the quad's cost (km::pixelDistance2 as one byte-wise absolute difference and a 4-way
// dot product per pixel: the same integers).
__device__ __forceinline__ uint32_t writeQuad(const CoopArgs& a, const uint32_t (&px)[4], const int (&bi)[4],
                                              int n, uint32_t x0, uint32_t y, const uint32_t* colour) {
  uint32_t o[4], cost = 0;  // <= 4 * 3 * 255^2
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const uint32_t c = colour[bi[p]], d = __vabsdiffu4(px[p], c) & (p < n ? 0x00FFFFFFu : 0u);
    cost = __dp4a(d, d, cost);
    o[p] = c | (px[p] & 0xFF000000u);
  }
  if (a.labels) {
    uint8_t* labels = a.labels + size_t(y) * size_t(a.in.width) + x0;
    if (n == 4 && reinterpret_cast<uintptr_t>(labels) % 4 == 0)
      *reinterpret_cast<uint32_t*>(labels) =
          uint32_t(bi[0]) | uint32_t(bi[1]) << 8 | uint32_t(bi[2]) << 16 | uint32_t(bi[3]) << 24;
    else
#pragma unroll
      for (int p = 0; p < 4; ++p)
        if (p < n) labels[p] = uint8_t(bi[p]);
  }
  uint32_t* row = reinterpret_cast<uint32_t*>(a.out.row(int(y))) + x0;
  if (a.vecOut && n == 4)
    *reinterpret_cast<uint4*>(row) = make_uint4(o[0], o[1], o[2], o[3]);
  else
#pragma unroll
    for (int p = 0; p < 4; ++p)
      if (p < n) row[p] = o[p];
  return cost;
}

// One pass over the warp's steps. `next` holds the first step's quad on entry and, unless
// Final, again on return (loaded during the last step): a pass starts computing at once.
template <int KB, bool Final, class Rows>
__device__ __forceinline__ void coopPass(const CoopArgs& a, const WarpSteps& ws, uint32_t (&next)[4],
                                         const float4* rgb, const float2* xy, const km::SpatialCoeffs* pairs,
                                         const uint32_t* colour, Rows* rows, ull* const* sums, ull& cost) {
  const uint32_t lane = threadIdx.x % 32;
  uint32_t y = ws.y0, sx = ws.sx0;
  for (uint32_t i = 0; i < ws.count; ++i) {
    uint32_t px[4];
#pragma unroll
    for (int p = 0; p < 4; ++p) px[p] = next[p];
    const uint32_t cy = y, x0 = (sx * kStepQuads + lane) * 4;
    ws.advance(a, y, sx);
    const bool more = i + 1 < ws.count;
    if (more)
      loadQuad(a, y, (sx * kStepQuads + lane) * 4, next);
    else if (!Final)
      loadQuad(a, ws.y0, (ws.sx0 * kStepQuads + lane) * 4, next);
    const int n = quadPixels(a.in.width, x0);
    int bi[4];
    uint32_t cand = 0;  // 0: every centre, by nearestQuad's unrolled loop (cheaper than nearestCandidates')
    if constexpr (kPrunes<KB>) cand = spatialCandidates<KB>(a, px, n, x0 - lane * 4, cy, pairs);
    if (cand == 0)
      nearestQuad<KB>(px, x0, cy, a.s, rgb, xy, bi);
    else if ((cand & (cand - 1)) == 0)
      bi[0] = bi[1] = bi[2] = bi[3] = __ffs(cand) - 1;
    else
      nearestCandidates(px, x0, cy, a.s, rgb, xy, cand, bi);
    if constexpr (Final) {
      cost += writeQuad(a, px, bi, n, x0, cy, colour);
    } else {
      const uint32_t xs = x0 - lane * 4;
      accumulateQuad(px, bi, n, x0, xs, cy, min(4u * kStepQuads, uint32_t(a.in.width) - xs), *rows);
      if ((i & a.flushMask) == a.flushMask) flushRow((*rows)[threadIdx.x / 32][lane % KB], *sums, a.k);
    }
  }
}

template <int KB>
__global__ void __launch_bounds__(kCoopThreads<KB>, 1024 / kCoopThreads<KB>) coopKernel(CoopArgs a) {
  constexpr int kThreads = kCoopThreads<KB>, kCoopWarps = kThreads / 32;
  __shared__ float centre[KB][5];  // r, g, b, x, y (pixels)
  __shared__ float4 rgb[KB];       // score constants (km::SpatialCoeffs); padding centres score +inf
  __shared__ float2 xy[KB];
  __shared__ uint32_t colour[KB];                                 // output colours, alpha 0
  __shared__ km::SpatialCoeffs pairs[kPrunes<KB> ? KB * KB : 1];  // spatialPairs
  __shared__ __align__(16) uint32_t warpSums[kCoopWarps][KB][kRowWords];  // accumulateQuad's rows
  __shared__ ull warpCost[kCoopWarps];
  __shared__ ull* iterationSums;  // buffer it % 3 of the scratch (flushRow), set before iteration it
  __shared__ float shiftShared;
  __shared__ bool lastBlock;
  cg::grid_group grid = cg::this_grid();
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, k = a.k;
  CoopScratch* const scratch = a.scratch;

  if (warp == 0) {
    if (tid < k) {
      float c[5];
      if (a.uniformInit) {
        const uint64_t i = km::spreadIndex(uint64_t(tid), a.in.pixels(), uint64_t(k));
        const int x = int(i % uint64_t(a.in.width)), y = int(i / uint64_t(a.in.width));
        const uchar4 p = a.in.at(x, y);
        c[0] = p.x, c[1] = p.y, c[2] = p.z, c[3] = float(x), c[4] = float(y);
      } else {
        c[0] = a.init->centres[tid][0], c[1] = a.init->centres[tid][1], c[2] = a.init->centres[tid][2];
        c[3] = a.init->positions[tid][0], c[4] = a.init->positions[tid][1];
      }
      for (int d = 0; d < 5; ++d) centre[tid][d] = c[d];
      const km::SpatialCoeffs q = km::spatialCoeffs(c[0], c[1], c[2], c[3], c[4], a.s);
      rgb[tid] = q.rgb, xy[tid] = q.xy;
    } else if (tid < KB) {
      const km::SpatialCoeffs u = km::unusedSpatialCoeffs();
      rgb[tid] = u.rgb, xy[tid] = u.xy;
    }
    if constexpr (kPrunes<KB>) spatialPairs<KB>(centre, rgb, xy, k, a.in.width, a.in.height, pairs);
  }
  const WarpSteps ws(a, kCoopWarps);
  uint32_t next[4] = {0u, 0u, 0u, 0u};
  if (ws.count != 0) loadQuad(a, ws.y0, (ws.sx0 * kStepQuads + lane) * 4, next);
  if (tid == 0) iterationSums = &scratch->sums[0][0][0];
  __syncthreads();

  float shift2 = INFINITY;
  int it = 0;
  ull cost = 0;
  while (it < a.maxIterations) {
    ull* const sums = &scratch->sums[it % 3][0][0];
    if (lane < k) {  // lane c: cluster c over the warp's steps
      uint32_t* const row = warpSums[warp][lane];
      *reinterpret_cast<uint4*>(row) = uint4{}, *reinterpret_cast<uint2*>(row + 4) = uint2{};
    }
    coopPass<KB, false>(a, ws, next, rgb, xy, pairs, colour, &warpSums, &iterationSums, cost);
    __syncthreads();
    for (int i = tid; i < k * kFields; i += kThreads) {
      ull v = 0;
      for (int w = 0; w < kCoopWarps; ++w) v += warpSums[w][i / kFields][i % kFields];
      if (v != 0) atomicAdd(sums + i, v);
    }
    grid.sync();      // every block's sums are in buffer it % 3 (the barrier fences them)
    if (warp == 0) {  // the same integers and float steps in every block: the same centres
      float d2 = 0.f;
      if (lane < k) {
        ull v[kFields];
        for (int f = 0; f < kFields; ++f) v[f] = __ldcg(sums + lane * kFields + f);  // L2: other SMs' atomics
        if (v[5] != 0) {
          float oldC[5], newC[5];
          for (int d = 0; d < 5; ++d) oldC[d] = centre[lane][d], newC[d] = km::meanChannel(v[d], v[5]);
          d2 = km::spatialShiftSquared(oldC, newC, a.s);
          for (int d = 0; d < 5; ++d) centre[lane][d] = newC[d];
          const km::SpatialCoeffs q = km::spatialCoeffs(newC[0], newC[1], newC[2], newC[3], newC[4], a.s);
          rgb[lane] = q.rgb, xy[lane] = q.xy;
        }
      }
      if constexpr (kPrunes<KB>) spatialPairs<KB>(centre, rgb, xy, k, a.in.width, a.in.height, pairs);
      d2 = d2 > 0.f ? d2 : 0.f;  // the twin's running max skips a NaN shift
#pragma unroll
      for (int off = 16; off > 0; off >>= 1)
        d2 = fmaxf(d2, __shfl_xor_sync(~0u, d2, off));  // exact, any order
      if (lane == 0) shiftShared = d2, iterationSums = &scratch->sums[(it + 1) % 3][0][0];
    } else if (blockIdx.x == 0) {
      // Buffer (it + 2) % 3 = (it - 1) % 3: every block read it before arriving at the barrier
      // just passed; iteration it + 2 adds to it after the next one, which publishes the zeros.
      ull* const old = &scratch->sums[(it + 2) % 3][0][0];
      for (int i = tid - 32; i < k * kFields; i += kThreads - 32) old[i] = 0;
    }
    __syncthreads();
    shift2 = shiftShared;
    ++it;
    if (shift2 < a.epsilon) break;  // the same decision in every block
  }
  // Without an iteration no barrier has passed: every block must have read its initial
  // centres (uniform: pixels of `in`) before any block writes output pixels (out may alias in).
  if (a.maxIterations == 0) grid.sync();

  if (tid < k) {
    const uchar4 c = km::centreColour(centre[tid]);
    colour[tid] = uint32_t(c.x) | uint32_t(c.y) << 8 | uint32_t(c.z) << 16;
  }
  __syncthreads();
  coopPass<KB, true>(a, ws, next, rgb, xy, pairs, colour, &warpSums, nullptr, cost);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cost += __shfl_xor_sync(~0u, cost, off);
  if (lane == 0) warpCost[warp] = cost;
  __syncthreads();
  // The last block to finish writes the state and clears the scratch: no grid barrier, so no
  // block waits for the others at the end (the fence orders each block's cost before its
  // count; the last block's fence orders the count before its reads).
  if (tid == 0) {
    ull blockCost = 0;
    for (int w = 0; w < kCoopWarps; ++w) blockCost += warpCost[w];
    if (blockCost != 0) atomicAdd(&scratch->cost, blockCost);
    __threadfence();
    lastBlock = atomicAdd(&scratch->finished, 1ull) == gridDim.x - 1;
    if (lastBlock) __threadfence();
  }
  __syncthreads();
  if (!lastBlock) return;
  KmeansState* const state = a.state;
  if (tid < k) {
    for (int c = 0; c < 3; ++c) state->centres[tid][c] = centre[tid][c];
    state->centres[tid][3] = 0.f;
    state->positions[tid][0] = centre[tid][3], state->positions[tid][1] = centre[tid][4];
  }
  if (tid == 0) {
    state->k = k;
    state->iterations = it;
    state->cost = __ldcg(&scratch->cost);
    state->shift2 = shift2;
    scratch->cost = 0;
    scratch->finished = 0;
  }
  // Every block is past its iterations: nobody reads the sums any more.
  for (int i = tid; i < 3 * kMaxClusters * kFields; i += kThreads) (&scratch->sums[0][0][0])[i] = 0;
}

using CoopKernel = void (*)(CoopArgs);
struct CoopInstance {
  CoopKernel kernel;
  int threads;
};
template <int KB>
constexpr CoopInstance kCoopInstance{coopKernel<KB>, kCoopThreads<KB>};
constexpr CoopInstance kCoopKernels[] = {kCoopInstance<4>, kCoopInstance<8>, kCoopInstance<16>,
                                         kCoopInstance<32>};
constexpr int kCoopInstances = int(sizeof kCoopKernels / sizeof kCoopKernels[0]);

// CoopArgs::flushMask: a power of two of steps a warp may add into its 32-bit sums between
// flushes, less one. Every field of a step is at most 128 pixels times max(255, width,
// height) (a colour, a column, a row, or 1 per pixel); `cap` > 0 lowers it (tests).
uint32_t spatialFlushMask(int width, int height, int cap) {
  const uint64_t perStep = uint64_t(4 * kStepQuads) * uint64_t(std::max({255, width, height}));
  uint64_t steps = std::max<uint64_t>(1, 0xFFFFFFFFull / perStep);
  if (cap > 0) steps = std::min<uint64_t>(steps, uint64_t(cap));
  uint32_t pow2 = 1;
  while (uint64_t(pow2) * 2 <= steps) pow2 *= 2;
  return pow2 - 1;
}

int coopIndex(int k) {
  const int bucket = km::clusterBucket(k);
  return bucket == 4 ? 0 : bucket == 8 ? 1 : bucket == 16 ? 2 : 3;
}

}  // namespace

namespace detail {

size_t spatialScratchBytes() { return sizeof(CoopScratch); }

// The cooperative grid must be co-resident for its grid barrier: it is sized by these.
SpatialDevice spatialDevice() {
  static_assert(kCoopInstances == int(std::tuple_size_v<decltype(SpatialDevice::coopBlocksPerSm)>),
                "SpatialDevice: one occupancy entry per cooperative instance");
  SpatialDevice d;
  int device = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&d.smCount, cudaDevAttrMultiProcessorCount, device));
  for (int i = 0; i < kCoopInstances; ++i)
    VP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &d.coopBlocksPerSm[size_t(i)], reinterpret_cast<const void*>(kCoopKernels[i].kernel),
        kCoopKernels[i].threads, 0));
  return d;
}

void kmeansSpatialGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state,
                      const KmeansParams& params, void* scratch, const SpatialDevice& device,
                      cudaStream_t stream, const KmeansState* warmFrom) {
  const int index = coopIndex(params.k);
  const CoopInstance& instance = kCoopKernels[index];
  const int perSm = device.coopBlocksPerSm[size_t(index)];
  if (perSm < 1) throw std::runtime_error("kmeans: the spatial kernel does not fit on this device");
  CoopArgs a;
  a.in = in;
  a.out = out;
  a.labels = labels;
  a.state = state;
  a.init = params.init == KmeansInit::Warm && warmFrom ? warmFrom : state;
  a.scratch = static_cast<CoopScratch*>(scratch);
  a.k = params.k;
  a.maxIterations = params.maxIterations;
  a.epsilon = params.epsilon;
  a.s = km::spatialScale(params.spatial, in.width, in.height);
  a.margin = km::spatialCandidateMargin(params.spatial);
  a.stepsPerRow = uint32_t((in.width + 4 * kStepQuads - 1) / (4 * kStepQuads));
  a.steps = a.stepsPerRow * uint32_t(in.height);
  a.flushMask = spatialFlushMask(in.width, in.height, device.flushSteps);
  a.uniformInit = params.init == KmeansInit::Uniform;
  a.vecIn = reinterpret_cast<uintptr_t>(in.data) % 16 == 0 && in.pitch % 16 == 0;
  a.vecOut = reinterpret_cast<uintptr_t>(out.data) % 16 == 0 && out.pitch % 16 == 0;
  if (params.init == KmeansInit::KmeansPlusPlus)
    launchKmeansPlusPlus(in, state, params.k, params.seed, stream);
  // Every block resident (the grid barrier), and no more blocks than give each warp a step.
  const uint64_t blockWarps = uint64_t(instance.threads / 32);
  const uint64_t wanted = (uint64_t(a.steps) + blockWarps - 1) / blockWarps;
  const int grid = int(std::max<uint64_t>(1, std::min<uint64_t>(uint64_t(device.smCount) * perSm, wanted)));
  void* args[] = {&a};
  VP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(instance.kernel), dim3(grid),
                                            dim3(instance.threads), args, 0, stream));
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace vp
