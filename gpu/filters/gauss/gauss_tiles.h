// The Gaussian blur's GPU work as plain per-thread functions, one per phase of a block:
// gauss_kernels.cu wraps each path's phases in a kernel (a barrier between phases), and
// the tests run the same functions on the CPU for every block and thread in turn, with
// every shared- and global-memory access bounds-checked (common/tile_access.h). Contract: gauss.h.
//
// The arithmetic (symmetricFir): a thread computes kOutputs consecutive outputs along the
// filter's axis. The taps are symmetric, so the two samples at +-i are added first and
// multiplied once; R and G ride in the two 16-bit lanes of one word (R | G << 16, a pair's
// sum <= 2 * 32640 < 2^16), so a pair costs 2 additions, 1 shift and 3 multiply-adds for
// three channels: acc_rg += q (R | G << 16) mod 2^32, acc_g += q G, acc_b += q B, and at
// the end R's sum = acc_rg - (acc_g << 16) mod 2^32, exact because it is < 2^32. Pairs are
// taken kPairs at a time from 2 (kOutputs + kPairs - 1) samples held in registers, so a
// sample loaded from shared memory serves several outputs.
#pragma once

#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/gauss/gauss_math.h"
#include "gpu/filters/gauss/gauss_mma.h"
#include "gpu/filters/gauss/gauss_params.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <vector_functions.h>

#include <cstddef>
#include <cstdint>

namespace vp::gauss {

using tiles::Tile;

constexpr int kThreads = 256;  // every gauss kernel's block
constexpr int kWarps = kThreads / 32;
constexpr int kOutputs = 8;  // consecutive outputs per thread along the filter's axis
constexpr int kPairs = 4;    // tap pairs per step of symmetricFir

// The halo a pass reads each side: the radius rounded up to whole steps of kPairs (the
// padding taps are zero).
__host__ __device__ constexpr int paddedRadius(int radius) { return (radius + kPairs - 1) / kPairs * kPairs; }
static_assert(paddedRadius(kMaxGaussRadius) < kGaussTapCapacity, "GaussTaps too small for the padding");

// Three channels of one sample in two words: rg = R | G << 16, b = B.
struct Lanes {
  uint32_t rg, b;
};

// An RGBA8 pixel's channels as Lanes.
__host__ __device__ inline Lanes lanesOfPixel(uint32_t p) {
#if defined(__CUDA_ARCH__)
  return {__byte_perm(p, 0u, 0x4140), __byte_perm(p, 0u, 0x4442)};
#else
  return {(p & 0xFFu) | ((p & 0xFF00u) << 8), (p >> 16) & 0xFFu};
#endif
}

// sum[ch][k] = sum over i = -R..R of taps.q[|i|] * channel ch of fetch(k + i), k < K, as exact
// uint32 (the caller's samples are <= 32640 and the taps sum to <= 2^17, or the samples
// <= 255 and the taps sum to <= 2^24). fetch(j) is called for j in
// [-paddedRadius(R), K - 1 + paddedRadius(R)] only.
template <int K, int C, class Fetch>
__host__ __device__ inline void symmetricFir(const Fetch& fetch, const GaussTaps& taps, uint32_t (&sum)[3][K]) {
  const int chunks = (taps.radius + C - 1) / C;
  uint32_t rg[K], g[K], b[K];
  {
    const uint32_t w = taps.q[0];
VP_UNROLL
    for (int k = 0; k < K; ++k) {
      const Lanes v = fetch(k);
      rg[k] = w * v.rg;
      g[k] = w * (v.rg >> 16);
      b[k] = w * v.b;
    }
  }
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int i0 = 1 + chunk * C;  // the step's first pair: offsets +-i0 .. +-(i0 + C - 1)
    VP_TILE_CHECK(i0 + C - 1 < kGaussTapCapacity);
    Lanes left[K + C - 1], right[K + C - 1];  // left[m] = fetch(m - i0 - C + 1), right[m] = fetch(i0 + m)
VP_UNROLL
    for (int m = 0; m < K + C - 1; ++m) {
      left[m] = fetch(m - i0 - (C - 1));
      right[m] = fetch(i0 + m);
    }
VP_UNROLL
    for (int c = 0; c < C; ++c) {
      const uint32_t w = taps.q[i0 + c];
VP_UNROLL
      for (int k = 0; k < K; ++k) {  // output k pairs fetch(k - i) = left[k - c + C - 1] with fetch(k + i) = right[k + c]
        const uint32_t prg = left[k - c + C - 1].rg + right[k + c].rg;
        const uint32_t pb = left[k - c + C - 1].b + right[k + c].b;
        rg[k] += w * prg;
        g[k] += w * (prg >> 16);
        b[k] += w * pb;
      }
    }
  }
VP_UNROLL
  for (int k = 0; k < K; ++k) {
    sum[0][k] = rg[k] - (g[k] << 16);
    sum[1][k] = g[k];
    sum[2][k] = b[k];
  }
}

// ---- fused path: one block per kFusedCols x tileRows output tile --------------------------
//
// Phase 1 stages the border-extended input around the tile (rows x cols words, the tile
// plus rp each side). Phase 2 computes H for every tile row and the tile's columns (a thread:
// kOutputs consecutive columns of one row; a warp's lanes are consecutive rows, and the odd
// row stride keeps their reads in distinct banks). Phase 3 computes the outputs (a thread:
// kOutputs consecutive rows of one column; lanes are consecutive columns) and writes them.

constexpr int kFusedCols = 64;                  // output tile width (a multiple of kOutputs)
// Output tile height (a multiple of kOutputs): 32 rows where the halo is small (rp <= 8),
// so that a block's shared memory (33 KB at rp = 4 against 58 KB with 64 rows) lets more
// blocks share an SM; 64 rows beyond, where a short tile would spend most of its row pass
// on the halo.
__host__ __device__ constexpr int fusedTileRows(int rp) { return rp <= 8 ? 32 : 64; }
constexpr int kFusedHStride = kFusedCols + 1;   // uint2 per H-tile row: odd, conflict-free stores

struct FusedLayout {
  int rp;        // halo each side: paddedRadius(R)
  int tileRows;  // output rows per block: fusedTileRows(rp)
  int rows;      // input-tile and H-tile rows: tileRows + 2 rp
  int cols;      // input-tile columns: kFusedCols + 2 rp
  int inStride;  // words per input-tile row: cols made odd
  __host__ __device__ explicit FusedLayout(int radius)
      : rp(paddedRadius(radius)),
        tileRows(fusedTileRows(rp)),
        rows(tileRows + 2 * rp),
        cols(kFusedCols + 2 * rp),
        inStride(cols | 1) {}
  __host__ __device__ size_t hOffset() const { return (size_t(rows) * inStride * 4 + 15) & ~size_t(15); }
  // Dynamic shared memory of a block, bytes.
  __host__ __device__ size_t bytes() const { return hOffset() + size_t(rows) * kFusedHStride * sizeof(uint2); }
};

struct FusedBlock {
  Tile<uint32_t> in;  // input words of (x0 - rp + c, y0 - rp + r), border-extended
  Tile<uint2> h;      // H (rg, b) of (x0 + c, y0 - rp + r)
  int rp, tileRows, x0, y0;
  __host__ __device__ FusedBlock(void* smem, const FusedLayout& l, int bx, int by)
      : rp(l.rp), tileRows(l.tileRows), x0(bx * kFusedCols), y0(by * l.tileRows) {
    in = {static_cast<uint32_t*>(smem), l.rows, l.cols, l.inStride};
    h = {reinterpret_cast<uint2*>(static_cast<char*>(smem) + l.hOffset()), l.rows, kFusedCols, kFusedHStride};
  }
};

__host__ __device__ inline void fusedStage(const FusedBlock& b, ConstRgbaView in, BorderMode border, int t) {
  const int warp = t / 32, lane = t % 32;
  for (int r = warp; r < b.in.rows; r += kWarps) {
    const int sy = extendIndex(b.y0 - b.rp + r, in.height, border);
    for (int c = lane; c < b.in.cols; c += 32) {
      const int sx = extendIndex(b.x0 - b.rp + c, in.width, border);
      b.in.at(r, c) = (sx < 0 || sy < 0) ? 0u : tiles::loadPixel(in, sx, sy);
    }
  }
}

__host__ __device__ inline void fusedRows(const FusedBlock& b, const GaussTaps& taps, int width, int t) {
  constexpr int kGroups = kFusedCols / kOutputs;
  const int items = b.in.rows * kGroups;
  for (int item = t; item < items; item += kThreads) {
    const int r = item % b.in.rows, g = item / b.in.rows;
    if (b.x0 + g * kOutputs >= width) continue;  // no output column needs these
    const int c0 = b.rp + g * kOutputs;           // input-tile column of output 0
    uint32_t s[3][kOutputs];
    symmetricFir<kOutputs, kPairs>([&](int j) { return lanesOfPixel(b.in.at(r, c0 + j)); }, taps, s);
VP_UNROLL
    for (int k = 0; k < kOutputs; ++k)
      b.h.at(r, g * kOutputs + k) =
          make_uint2(roundRowSum(s[0][k]) | roundRowSum(s[1][k]) << 16, roundRowSum(s[2][k]));
  }
}

__host__ __device__ inline void fusedColumns(const FusedBlock& b, const GaussTaps& taps, RgbaView out, int t) {
  const int items = kFusedCols * (b.tileRows / kOutputs);
  for (int item = t; item < items; item += kThreads) {
    const int c = item % kFusedCols, g = item / kFusedCols;
    const int x = b.x0 + c, y0 = b.y0 + g * kOutputs;
    if (x >= out.width || y0 >= out.height) continue;
    const int r0 = b.rp + g * kOutputs;  // tile row of output 0
    uint32_t s[3][kOutputs];
    symmetricFir<kOutputs, kPairs>(
        [&](int j) {
          const uint2 v = b.h.at(r0 + j, c);
          return Lanes{v.x, v.y};
        },
        taps, s);
VP_UNROLL
    for (int k = 0; k < kOutputs; ++k)
      if (y0 + k < out.height) {
        const uint32_t alpha = b.in.at(r0 + k, b.rp + c) & 0xFF000000u;
        tiles::storePixel(out, x, y0 + k,
                          roundColumnSum(s[0][k]) | roundColumnSum(s[1][k]) << 8 | roundColumnSum(s[2][k]) << 16 |
                              alpha);
      }
  }
}

// Whether the fused path can run radius R with `sharedOptin` bytes of shared memory a block.
inline bool fusedFits(int radius, size_t sharedOptin) {
  return radius <= kMaxFusedGaussRadius && FusedLayout(radius).bytes() <= sharedOptin;
}
// Whether `path` can run radius R on a device with `sharedOptin` bytes of shared memory a
// block and (tensorCores) sm_80's integer mma.
inline bool gaussPathRuns(GaussPath path, int radius, size_t sharedOptin, bool tensorCores) {
  switch (path) {
    case GaussPath::Mma: return tensorCores && mmaFits(radius, sharedOptin);
    case GaussPath::Fused: return fusedFits(radius, sharedOptin);
    case GaussPath::TwoPass: return true;
    case GaussPath::Strips: return radius <= kMaxStripGaussRadius;
  }
  return false;
}
// The path gaussGpu runs (docs/design/gauss.md): strips up to kMaxStripGaussRadius, the
// tensor cores up to kMaxMmaGaussRadius, then (or without them) fused up to
// kMaxFusedGaussRadius where it fits, then two passes.
inline GaussPath selectGaussPath(int radius, size_t sharedOptin, bool tensorCores) {
  if (radius <= kMaxStripGaussRadius) return GaussPath::Strips;
  for (GaussPath path : {GaussPath::Mma, GaussPath::Fused})
    if (gaussPathRuns(path, radius, sharedOptin, tensorCores)) return path;
  return GaussPath::TwoPass;
}

// ---- two-pass path, row kernel: one block per tile of `rows` rows x kRowCols columns -----
//
// Phase 1 stages the tile's rows, rp columns of border extension each side. Phase 2: a
// thread computes H for kOutputs consecutive columns of one row (lanes: consecutive rows)
// into a shared-memory tile as ushort4 (R, G, B, alpha). Phase 3 copies that tile out,
// lanes along rows (coalesced 8-byte stores).

constexpr int kRowCols = 128;                 // output columns per block (a multiple of kOutputs)
constexpr int kRowHStride = kRowCols + 1;     // uint2 per H-tile row: odd
constexpr int kRowTileRows[] = {32, 16, 8};   // rows per block, the first that fits

struct RowLayout {
  int rp;        // halo each side: paddedRadius(R)
  int rows;      // image rows per block
  int cols;      // input-tile columns: kRowCols + 2 rp
  int inStride;  // words per input-tile row: cols made odd
  __host__ __device__ RowLayout(int radius, int tileRows)
      : rp(paddedRadius(radius)), rows(tileRows), cols(kRowCols + 2 * rp), inStride(cols | 1) {}
  __host__ __device__ size_t hOffset() const { return (size_t(rows) * inStride * 4 + 15) & ~size_t(15); }
  __host__ __device__ size_t bytes() const { return hOffset() + size_t(rows) * kRowHStride * sizeof(uint2); }
};

// Rows per row block at radius R: the most of kRowTileRows that fit `sharedOptin` (8 always does).
inline int rowTileRows(int radius, size_t sharedOptin) {
  for (int rows : kRowTileRows)
    if (RowLayout(radius, rows).bytes() <= sharedOptin) return rows;
  return kRowTileRows[2];
}

struct RowBlock {
  Tile<uint32_t> in;  // input words of (x0 - rp + c, y0 + r), border-extended along the row
  Tile<uint2> h;      // H of (x0 + c, y0 + r) as ushort4 words (R | G << 16, B | alpha << 16)
  int rp, x0, y0;
  __host__ __device__ RowBlock(void* smem, const RowLayout& l, int bx, int by)
      : rp(l.rp), x0(bx * kRowCols), y0(by * l.rows) {
    in = {static_cast<uint32_t*>(smem), l.rows, l.cols, l.inStride};
    h = {reinterpret_cast<uint2*>(static_cast<char*>(smem) + l.hOffset()), l.rows, kRowCols, kRowHStride};
  }
};

__host__ __device__ inline void rowStage(const RowBlock& b, ConstRgbaView in, BorderMode border, int t) {
  const int warp = t / 32, lane = t % 32;
  for (int r = warp; r < b.in.rows && b.y0 + r < in.height; r += kWarps)
    for (int c = lane; c < b.in.cols; c += 32) {
      const int sx = extendIndex(b.x0 - b.rp + c, in.width, border);
      b.in.at(r, c) = sx < 0 ? 0u : tiles::loadPixel(in, sx, b.y0 + r);
    }
}

__host__ __device__ inline void rowSums(const RowBlock& b, const GaussTaps& taps, int width, int height, int t) {
  constexpr int kGroups = kRowCols / kOutputs;
  const int items = b.in.rows * kGroups;
  for (int item = t; item < items; item += kThreads) {
    const int r = item % b.in.rows, g = item / b.in.rows;
    if (b.y0 + r >= height || b.x0 + g * kOutputs >= width) continue;
    const int c0 = b.rp + g * kOutputs;
    uint32_t s[3][kOutputs];
    symmetricFir<kOutputs, kPairs>([&](int j) { return lanesOfPixel(b.in.at(r, c0 + j)); }, taps, s);
VP_UNROLL
    for (int k = 0; k < kOutputs; ++k) {
      const uint32_t alpha = b.in.at(r, c0 + k) >> 24;
      b.h.at(r, g * kOutputs + k) =
          make_uint2(roundRowSum(s[0][k]) | roundRowSum(s[1][k]) << 16, roundRowSum(s[2][k]) | alpha << 16);
    }
  }
}

__host__ __device__ inline void rowStore(const RowBlock& b, ImageView<ushort4> sums, int t) {
  const int items = b.in.rows * kRowCols;
  for (int item = t; item < items; item += kThreads) {
    const int r = item / kRowCols, c = item % kRowCols;
    if (b.y0 + r < sums.height && b.x0 + c < sums.width) tiles::storePair(sums, b.x0 + c, b.y0 + r, b.h.at(r, c));
  }
}

// ---- two-pass path, column kernel: a block of kColumnCols columns x kColumnRows rows ----
//
// No shared memory: a thread computes kOutputs consecutive rows of one column straight from
// the row sums in global memory (lanes: consecutive columns, 8-byte coalesced loads; the
// samples a thread reuses stay in registers, the warps' shared halo rows in L1).

constexpr int kColumnCols = 32;
constexpr int kColumnRows = kWarps * kOutputs;

__host__ __device__ inline void columnOutputs(ImageView<const ushort4> sums, RgbaView out, const GaussTaps& taps,
                                              BorderMode border, int bx, int by, int t) {
  const int x = bx * kColumnCols + t % 32, y0 = by * kColumnRows + (t / 32) * kOutputs;
  const int w = out.width, h = out.height;
  if (x >= w || y0 >= h) return;
  const int rp = paddedRadius(taps.radius);
  uint32_t s[3][kOutputs];
  if (y0 - rp >= 0 && y0 + kOutputs - 1 + rp < h) {  // the window stays inside: plain rows
    symmetricFir<kOutputs, kPairs>(
        [&](int j) {
          const uint2 v = tiles::loadPair(sums, x, y0 + j);
          return Lanes{v.x, v.y & 0xFFFFu};
        },
        taps, s);
  } else {
    symmetricFir<kOutputs, kPairs>(
        [&](int j) {
          const int y = extendIndex(y0 + j, h, border);
          if (y < 0) return Lanes{0u, 0u};
          const uint2 v = tiles::loadPair(sums, x, y);
          return Lanes{v.x, v.y & 0xFFFFu};
        },
        taps, s);
  }
VP_UNROLL
  for (int k = 0; k < kOutputs; ++k)
    if (y0 + k < h) {
      const uint32_t alpha = tiles::loadPair(sums, x, y0 + k).y >> 16;
      tiles::storePixel(out, x, y0 + k,
                        roundColumnSum(s[0][k]) | roundColumnSum(s[1][k]) << 8 | roundColumnSum(s[2][k]) << 16 |
                            alpha << 24);
    }
}

}  // namespace vp::gauss
