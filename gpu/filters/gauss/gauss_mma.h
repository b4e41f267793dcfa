// The Gaussian blur on tensor cores (sm_80+, radius <= kMaxMmaGaussRadius): the shared-memory
// layout and the taps as the matrices the kernel multiplies, apart from any kernel, so the
// host parts are tested without a GPU. The kernel is gauss_mma.cuh; the method and its
// figures are in docs/design/gauss.md.
//
// Each pass is a product of integer matrices on the tensor cores (PTX mma m16n8k32, u8 x u8
// into s32, exact). Along the pass's axis, 16 consecutive outputs are a banded Toeplitz
// matrix A (16 x 32 s, A[m][k] = q[|k - m - R|], 0 outside the band) times 32 s consecutive
// samples of 8 rows or columns (B). The taps and the row sums are wider than 8 bits, so they
// are split into bytes (planes) and each plane multiplied on its own; the products
// recombine with shifts: sum_p,h 2^(8 (p + h)) (A_p B_h) = the contract's sums, exact in
// uint32 because every sum is < 2^32 (gauss.h). The row pass multiplies the 3 bytes of the
// 24-bit row taps by the 8-bit samples; the column pass the 2 or 3 bytes of the 17-bit
// column taps by the 2 bytes of the 15-bit row sums H.
#pragma once

#include "gpu/filters/gauss/gauss_params.h"

#include <cuda_runtime_api.h>  // __host__ __device__

#include <cstddef>
#include <cstdint>

namespace vp::gauss {

constexpr int kMmaThreads = 256;        // 8 warps
constexpr int kMmaCols = 64;            // output tile width (4 row-pass groups of 16)
constexpr int kMmaMaxSteps = 2;         // k-steps of 32 samples at kMaxMmaGaussRadius

// The halo a block stages each side: R rounded up to 4, so the staged tile starts on a
// 16-byte boundary of a row and 4 pixels load as one vector.
__host__ __device__ constexpr int mmaHalo(int radius) { return (radius + 3) / 4 * 4; }
// k-steps of 32 samples that 16 outputs and their halo need: 1 for R <= 8, 2 for R <= 24.
__host__ __device__ constexpr int mmaSteps(int radius) { return (16 + 2 * mmaHalo(radius) + 31) / 32; }
// Output tile height at every radius: 32-row tiles measured slower (docs/design/gauss.md).
constexpr int kMmaTileRows = 64;

// The Toeplitz matrices' bytes, laid out so that every A fragment register (4 consecutive
// k of one row m) is one aligned 32-bit word. Sample k of output m is at offset
// d = k - m - h from it (h = mmaHalo(R): sample 0 is h before output 0), and A[m][k] is
// q[|d|] for |d| <= R, else 0. For the fragment starting at (m, k0) let i = k0 - m + 15
// (0..32 s + 11, whatever R): copy (i & 3) holds at word (i >> 2) the bytes of
// d = i - 15 - h .. i - 12 - h.
constexpr int kMmaStripWords = 8 * kMmaMaxSteps + 3;
struct MmaTaps {
  int radius = 0;
  int columnPlanes = 2;  // 3 when a column tap reaches 2^16 (sigma below ~0.8)
  // [pass: 0 rows, 1 columns][byte plane][copy = shift][word]
  uint32_t words[2][3][4][kMmaStripWords] = {};
};

// The strips of `rows` (makeGaussTaps(sigma, kGaussRowBits)) and `columns` (.., kGaussColumnBits).
inline MmaTaps makeMmaTaps(const GaussTaps& rows, const GaussTaps& columns) {
  MmaTaps m;
  m.radius = rows.radius;
  for (int i = 0; i <= columns.radius; ++i)
    if (columns.q[i] >= (uint32_t(1) << 16)) m.columnPlanes = 3;
  const GaussTaps* passes[2] = {&rows, &columns};
  for (int pass = 0; pass < 2; ++pass)
    for (int plane = 0; plane < 3; ++plane)
      for (int copy = 0; copy < 4; ++copy)
        for (int word = 0; word < kMmaStripWords; ++word) {
          uint32_t v = 0;
          for (int byte = 0; byte < 4; ++byte) {
            const int d = 4 * word + copy + byte - 15 - mmaHalo(rows.radius);
            const int a = d < 0 ? -d : d;
            if (a <= rows.radius) v |= ((passes[pass]->q[a] >> (8 * plane)) & 0xFFu) << (8 * byte);
          }
          m.words[pass][plane][copy][word] = v;
        }
  return m;
}

// A[m][k] of `pass` and `plane` read back from the strips (the kernel's fragment rule), for tests.
inline uint32_t mmaTapByte(const MmaTaps& t, int pass, int plane, int m, int k) {
  const int i = (k & ~3) - m + 15;  // the fragment register holding k starts at k & ~3
  return (t.words[pass][plane][i & 3][i >> 2] >> (8 * (k & 3))) & 0xFFu;
}

// Shared memory of one block: the strips; the staged input as three byte planes (R, G, B),
// `rows` rows of `inStride` bytes; the row sums H transposed (a column of the tile is
// contiguous) as two byte planes (low, high) of three channels, kMmaCols columns of
// `hStride` bytes. The outputs, three byte planes of tileRows rows of `outStride` bytes,
// reuse the input planes once the row pass is done. Strides are 4 (mod 8) words, so the 8
// rows or columns a fragment touches fall in distinct banks; the input and H strides cover
// what the last fragment reads (the zero taps past the band multiply whatever lies there).
struct MmaLayout {
  int radius, halo, steps;
  int tileRows;  // output rows per block: a multiple of 16
  int rows;      // staged rows = H rows: tileRows + 2 halo (a multiple of 8: row-pass groups)
  int inStride;  // bytes per staged row
  int hStride;   // bytes per H column
  int outStride; // bytes per output row (within the input planes, which it never outgrows)
  __host__ __device__ static constexpr int fourMod8Words(int bytes) {
    const int words = (bytes + 3) / 4;
    return 4 * (words + ((12 - words % 8) % 8));
  }
  __host__ __device__ static constexpr int atLeast(int a, int b) { return a > b ? a : b; }
  __host__ __device__ constexpr explicit MmaLayout(int r)
      : radius(r),
        halo(mmaHalo(r)),
        steps(mmaSteps(r)),
        tileRows(kMmaTileRows),
        rows(tileRows + 2 * halo),
        inStride(fourMod8Words(atLeast(kMmaCols - 16 + 32 * steps, kMmaCols + 2 * halo))),
        hStride(fourMod8Words(atLeast(tileRows - 16 + 32 * steps, rows))),
        outStride(fourMod8Words(kMmaCols)) {}
  __host__ __device__ constexpr size_t stripBytes() const { return sizeof(MmaTaps::words); }
  __host__ __device__ constexpr size_t planeOffset(int channel) const {
    return stripBytes() + size_t(channel) * rows * inStride;
  }
  __host__ __device__ constexpr size_t outOffset(int channel) const {
    return stripBytes() + size_t(channel) * tileRows * outStride;
  }
  __host__ __device__ constexpr size_t hOffset(int plane, int channel) const {
    return planeOffset(3) + (size_t(plane) * 3 + channel) * kMmaCols * hStride;
  }
  __host__ __device__ constexpr size_t bytes() const { return hOffset(2, 0); }
};

// Whether the tensor-core path can run radius R with `sharedOptin` bytes of shared memory a block.
inline bool mmaFits(int radius, size_t sharedOptin) {
  return radius <= kMaxMmaGaussRadius && MmaLayout(radius).bytes() <= sharedOptin;
}

}  // namespace vp::gauss
