// The Gaussian blur's tensor-core kernel body (sm_80+; gauss_mma.h has the method, the
// layout and the taps' strips). One 256-thread block (8 warps) per kMmaCols x tileRows
// output tile, four phases between barriers:
//   1. stage: the strips into shared memory; the border-extended input tile as R, G, B
//      byte planes (a warp stages whole rows, a lane 4 pixels: one 16-byte load, one word
//      per plane);
//   2. rows: warp w computes H for columns 16 (w % 4) .. + 15 of every other group of 8
//      rows, the three channels at once (independent mma chains), and stores H
//      transposed, low and high bytes apart;
//   3. columns: warp w computes columns 8 w .. + 7 of every group of 16 rows, a channel at
//      a time, into output byte planes;
//   4. write: a thread packs 4 pixels (alpha from the input) into one 16-byte store.
#pragma once

#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/gauss/gauss_math.h"
#include "gpu/filters/gauss/gauss_mma.h"
#include "gpu/filters/common/tile_access.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::gauss::mma {

// d += A B for one m16n8k32 tile: u8 x u8, s32 accumulators (exact: every plane's sum is
// below 2^31). Fragments as the PTX ISA lays them out: g = lane / 4, t = lane % 4;
// a = A[g][4t..], A[g+8][4t..], A[g][16+4t..], A[g+8][16+4t..]; b = B[4t..][g], B[16+4t..][g];
// d = D[g][2t], D[g][2t+1], D[g+8][2t], D[g+8][2t+1].
__device__ inline void mmaU8(uint32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  __trap();  // the path is selected on sm_80+ only
#endif
}

__device__ inline uint32_t lds32(const unsigned char* smem, size_t byte) {
  return *reinterpret_cast<const uint32_t*>(smem + byte);
}

// A fragment registers of `pass` for this lane, all planes and k-steps.
template <int Planes, int Steps>
__device__ inline void loadA(const uint32_t* strips, int pass, int lane, uint32_t (&a)[Planes][Steps][4]) {
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int p = 0; p < Planes; ++p)
#pragma unroll
    for (int s = 0; s < Steps; ++s)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int i = 32 * s + 4 * t + (r & 2 ? 16 : 0) - (g + (r & 1 ? 8 : 0)) + 15;
        a[p][s][r] = strips[((pass * 3 + p) * 4 + (i & 3)) * kMmaStripWords + (i >> 2)];
      }
}

// Four staged pixels as one word per plane: R, G, B.
__device__ inline void storeGroup(unsigned char* smem, const MmaLayout& l, size_t at, uint4 p) {
  const uint32_t rg01 = __byte_perm(p.x, p.y, 0x5140), rg23 = __byte_perm(p.z, p.w, 0x5140);
  const uint32_t ba01 = __byte_perm(p.x, p.y, 0x7362), ba23 = __byte_perm(p.z, p.w, 0x7362);
  *reinterpret_cast<uint32_t*>(smem + l.planeOffset(0) + at) = __byte_perm(rg01, rg23, 0x5410);
  *reinterpret_cast<uint32_t*>(smem + l.planeOffset(1) + at) = __byte_perm(rg01, rg23, 0x7632);
  *reinterpret_cast<uint32_t*>(smem + l.planeOffset(2) + at) = __byte_perm(ba01, ba23, 0x5410);
}

// Pixels xs..xs+3 of row y (already extended; -1: a zero-border row) through the border.
__device__ inline uint4 loadGroup(ConstRgbaView in, BorderMode border, int xs, int y, bool vectors) {
  if (y < 0) return make_uint4(0u, 0u, 0u, 0u);
  if (xs >= 0 && xs + 3 < in.width) {
    if (vectors) return __ldg(reinterpret_cast<const uint4*>(in.row(y) + xs));
    return make_uint4(tiles::loadPixel(in, xs, y), tiles::loadPixel(in, xs + 1, y), tiles::loadPixel(in, xs + 2, y),
                      tiles::loadPixel(in, xs + 3, y));
  }
  uint32_t p[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int x = extendIndex(xs + i, in.width, border);
    p[i] = x < 0 ? 0u : tiles::loadPixel(in, x, y);
  }
  return make_uint4(p[0], p[1], p[2], p[3]);
}

constexpr int kMmaWarps = kMmaThreads / 32;
constexpr int kStageBatch = 6;  // rows a warp loads before it stores any: loads in flight

// Phase 1. `taps` is the kernel parameter; `smem` the block's dynamic shared memory.
// `vectors`: the views and their rows start on 16-byte boundaries (4 pixels, one load).
__device__ inline void stage(unsigned char* smem, const MmaLayout& l, const MmaTaps& taps, ConstRgbaView in,
                             BorderMode border, bool vectors, int x0, int y0, int t) {
  uint32_t* strips = reinterpret_cast<uint32_t*>(smem);
  const uint32_t* src = &taps.words[0][0][0][0];
  for (int i = t; i < int(sizeof(taps.words) / 4); i += kMmaThreads) strips[i] = src[i];
  const int warp = t / 32, lane = t % 32;
  if (lane >= kMmaCols / 4 + l.halo / 2) return;  // 4 pixels a lane: at most 28 lanes a row
  const int xs = x0 - l.halo + 4 * lane;
  for (int first = warp; first < l.rows; first += kStageBatch * kMmaWarps) {
    uint4 p[kStageBatch];
#pragma unroll
    for (int b = 0; b < kStageBatch; ++b) {
      const int r = first + b * kMmaWarps;
      if (r < l.rows) p[b] = loadGroup(in, border, xs, extendIndex(y0 - l.halo + r, in.height, border), vectors);
    }
#pragma unroll
    for (int b = 0; b < kStageBatch; ++b) {
      const int r = first + b * kMmaWarps;
      if (r < l.rows) storeGroup(smem, l, size_t(r) * l.inStride + 4 * lane, p[b]);
    }
  }
}

// Phase 2: H of every staged row for the tile's columns inside the image.
template <int Steps>
__device__ inline void rows(unsigned char* smem, const MmaLayout& l, int x0, int width, int t) {
  const int warp = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  const int cg = warp % 4;              // columns 16 cg .. 16 cg + 15
  if (x0 + 16 * cg >= width) return;    // warp-uniform; no output needs them
  uint32_t a[3][Steps][4];
  loadA(reinterpret_cast<const uint32_t*>(smem), 0, lane, a);
  for (int rg = warp / 4; rg < l.rows / 8; rg += kMmaWarps / 4) {
    const size_t at = size_t(8 * rg + g) * l.inStride + 16 * cg + 4 * q;
    uint32_t d[3][3][4] = {};  // [channel][tap plane][element]
#pragma unroll
    for (int s = 0; s < Steps; ++s)
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        const size_t b = l.planeOffset(c) + at + 32 * s;
        const uint32_t b0 = lds32(smem, b), b1 = lds32(smem, b + 16);
#pragma unroll
        for (int p = 0; p < 3; ++p) mmaU8(d[c][p], a[p][s], b0, b1);
      }
    // Element e: column 16 cg + g (+ 8 for e >= 2), row 8 rg + 2q (+ 1 for odd e); stored
    // as two bytes (rows 2q, 2q + 1) of the column in each H plane.
    const int row = 8 * rg + 2 * q;
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      uint32_t h[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) h[e] = roundRowSum(d[c][0][e] + (d[c][1][e] << 8) + (d[c][2][e] << 16));
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const size_t col = size_t(16 * cg + g + 8 * half) * l.hStride + row;
        *reinterpret_cast<uint16_t*>(smem + l.hOffset(0, c) + col) =
            uint16_t(__byte_perm(h[2 * half], h[2 * half + 1], 0x0040));
        *reinterpret_cast<uint16_t*>(smem + l.hOffset(1, c) + col) =
            uint16_t(__byte_perm(h[2 * half], h[2 * half + 1], 0x0051));
      }
    }
  }
}

// Phase 3: the outputs of the tile's rows inside the image into the output byte planes.
// Planes: the column taps' byte planes (2, or 3 when a tap reaches 2^16).
template <int Steps, int Planes>
__device__ inline void columns(unsigned char* smem, const MmaLayout& l, int x0, int y0, int width, int height, int t) {
  const int warp = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  if (x0 + 8 * warp >= width) return;  // warp-uniform: columns 8 warp .. + 7
  uint32_t a[Planes][Steps][4];
  loadA(reinterpret_cast<const uint32_t*>(smem), 1, lane, a);
  const size_t column = size_t(8 * warp + g) * l.hStride + 4 * q;
  for (int yg = 0; yg < l.tileRows / 16 && y0 + 16 * yg < height; ++yg) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      uint32_t d[Planes][2][4] = {};  // [tap plane][H plane][element]
#pragma unroll
      for (int s = 0; s < Steps; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const size_t b = l.hOffset(h, c) + column + 16 * yg + 32 * s;
          const uint32_t b0 = lds32(smem, b), b1 = lds32(smem, b + 16);
#pragma unroll
          for (int p = 0; p < Planes; ++p) mmaU8(d[p][h], a[p][s], b0, b1);
        }
      uint32_t v[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        uint32_t sum = d[0][0][e] + ((d[0][1][e] + d[1][0][e]) << 8) + (d[1][1][e] << 16);
        if constexpr (Planes == 3) sum += (d[2][0][e] << 16) + (d[2][1][e] << 24);
        v[e] = roundColumnSum(sum);
      }
      // Element e: row 16 yg + g (+ 8 for e >= 2), column 8 warp + 2q (+ 1 for odd e).
      const size_t at = l.outOffset(c) + size_t(16 * yg + g) * l.outStride + 8 * warp + 2 * q;
      *reinterpret_cast<uint16_t*>(smem + at) = uint16_t(v[0] | v[1] << 8);
      *reinterpret_cast<uint16_t*>(smem + at + 8 * l.outStride) = uint16_t(v[2] | v[3] << 8);
    }
  }
}

// Phase 4: the output planes as RGBA pixels, 4 a thread and item, alpha from the input. A
// thread's alpha loads are all issued before its first store, so their latencies overlap
// instead of adding up.
__device__ inline void write(const unsigned char* smem, const MmaLayout& l, ConstRgbaView in, RgbaView out,
                             bool vectors, int x0, int y0, int t) {
  constexpr int kGroups = kMmaCols / 4, kItems = kMmaTileRows * kGroups / kMmaThreads;
  static_assert(kMmaTileRows * kGroups % kMmaThreads == 0, "every thread writes kItems groups");
  uint32_t alpha[kItems][4];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int item = t + i * kMmaThreads, x = x0 + 4 * (item % kGroups), y = y0 + item / kGroups;
    alpha[i][0] = alpha[i][1] = alpha[i][2] = alpha[i][3] = 0u;
    if (y >= out.height || x >= out.width) continue;
    if (vectors && x + 3 < out.width) {
      const uint4 a = __ldg(reinterpret_cast<const uint4*>(in.row(y) + x));
      alpha[i][0] = a.x, alpha[i][1] = a.y, alpha[i][2] = a.z, alpha[i][3] = a.w;
    } else {
#pragma unroll
      for (int p = 0; p < 4; ++p)
        if (x + p < out.width) alpha[i][p] = tiles::loadPixel(in, x + p, y);
    }
  }
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int item = t + i * kMmaThreads, r = item / kGroups, j = item % kGroups, x = x0 + 4 * j, y = y0 + r;
    if (y >= out.height || x >= out.width) continue;
    const size_t at = size_t(r) * l.outStride + 4 * j;
    const uint32_t R = lds32(smem, l.outOffset(0) + at), G = lds32(smem, l.outOffset(1) + at),
                   B = lds32(smem, l.outOffset(2) + at);
    const uint32_t rg01 = __byte_perm(R, G, 0x5140), rg23 = __byte_perm(R, G, 0x7362);
    // R, G, B of pixel p in bytes 0..2, alpha in byte 3.
    constexpr uint32_t kRgb = 0x00FFFFFFu, kAlpha = 0xFF000000u;
    const uint32_t px[4] = {(__byte_perm(rg01, B, 0x0410) & kRgb) | (alpha[i][0] & kAlpha),
                            (__byte_perm(rg01, B, 0x0532) & kRgb) | (alpha[i][1] & kAlpha),
                            (__byte_perm(rg23, B, 0x0610) & kRgb) | (alpha[i][2] & kAlpha),
                            (__byte_perm(rg23, B, 0x0732) & kRgb) | (alpha[i][3] & kAlpha)};
    if (vectors && x + 3 < out.width) {
      *reinterpret_cast<uint4*>(out.row(y) + x) = make_uint4(px[0], px[1], px[2], px[3]);
    } else {
#pragma unroll
      for (int p = 0; p < 4; ++p)
        if (x + p < out.width) tiles::storePixel(out, x + p, y, px[p]);
    }
  }
}

// The kernel body: the four phases. Steps: k-steps (mmaSteps(R)).
template <int Steps>
__device__ inline void blurTile(unsigned char* smem, ConstRgbaView in, RgbaView out, BorderMode border,
                                const MmaTaps& taps, bool vectors, int x0, int y0, int t) {
  const MmaLayout l(taps.radius);
  stage(smem, l, taps, in, border, vectors, x0, y0, t);
  __syncthreads();
  rows<Steps>(smem, l, x0, in.width, t);
  __syncthreads();
  if (taps.columnPlanes == 3)
    columns<Steps, 3>(smem, l, x0, y0, out.width, out.height, t);
  else
    columns<Steps, 2>(smem, l, x0, y0, out.width, out.height, t);
  __syncthreads();
  write(smem, l, in, out, vectors, x0, y0, t);
}

}  // namespace vp::gauss::mma
