// Fixed-point colour arithmetic shared, bit for bit, by the CUDA kernels and their CPU twins.
//
// YUV -> RGB (BT.601 / BT.709 / BT.2020 NCL, limited or full range, 8- or 10-bit samples),
// in 16 fractional bits:
//   base = yScale * (Y - yOffset) + 0.5
//   R = (base + rv*(V-cOffset)) >> 16,  G = (base - gu*(U-cOffset) - gv*(V-cOffset)) >> 16,
//   B = (base + bu*(U-cOffset)) >> 16,  each clamped to 0..255.
// For bit depth d the scales map the d-bit code range onto 0..255 directly: limited range
// yScale = 255 / (219 * 2^(d-8)), chroma 255 / (224 * 2^(d-8)), offsets 16 * 2^(d-8) and
// 128 * 2^(d-8); full range 255 / (2^d - 1), offsets 0 and 2^(d-1). So 10-bit input keeps
// its precision up to the one rounding to 8-bit RGB (no 8-bit YUV intermediate).
// The +0.5 and the arithmetic (flooring) shift round to nearest, ties up. The constant
// 0.5 - yScale*yOffset is folded into the chroma terms (exact in integers), so a pixel
// costs one multiply, three adds, three shifts and three clamps. Every
// coefficient is within 2^-17 of its real value, so with inputs < 2^10 each term is
// within 2^-7 of a level and the result within one level of the exactly rounded
// real-valued conversion. All sums fit in int32 (|terms| < 2^26).
//
// Chroma siting is nearest: pixel (x, y) reads chroma sample (x/2, y/2) for 4:2:0,
// (x/2, y) for 4:2:2. This is exact (no interpolation), cheap, and the double-precision
// reference in the tests uses the same siting. Odd widths/heights use the last chroma
// column/row for the last pixel, which x/2 and y/2 give naturally.
//
// 10-bit samples are 16-bit little-endian words: LSB-aligned formats use bits 0..9,
// MSB-aligned ones (P010, yuv444p16) bits 6..15; the other bits are ignored.
//
// RGB -> yuv420p: Y per pixel; U, V from the sums of R, G, B over the pixels of the 2x2
// block that exist (1, 2 or 4 at odd edges), i.e. the rounded mean of the unrounded
// per-pixel chroma.
//
// Coefficient tables are built on the host (yuvToRgbCoeffs / rgbToYuvCoeffs) and passed
// by value to kernels and twins, so both see the same integers.
#pragma once

#include "gpu/image.h"
#include "gpu/color/pixel_format.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace vp::color {

constexpr int kFracBits = 16;                  // fractional bits of every coefficient
constexpr int kHalf = 1 << (kFracBits - 1);    // 0.5 in fixed point
constexpr uint32_t kOpaque = 0xFF000000u;      // alpha 255 in a packed RGBA word

struct YuvToRgbCoeffs {
  int yScale = 0;   // luma gain (255/219 limited, 1 full), 16 fractional bits
  int yOffset = 0;  // black level subtracted from Y: 16 << (d-8) limited, 0 full
  int cOffset = 128;  // chroma zero subtracted from U and V: 1 << (d-1)
  int rv = 0;       // V -> R gain
  int gu = 0;       // U -> G gain (subtracted)
  int gv = 0;       // V -> G gain (subtracted)
  int bu = 0;       // U -> B gain
};

struct RgbToYuvCoeffs {
  int yr = 0, yg = 0, yb = 0;  // R, G, B -> Y weights including the range scale
  int yOffset = 0;             // added to Y: 16 limited, 0 full
  int ur = 0, ug = 0, ub = 0;  // R, G, B -> U (Cb) weights, sum exactly 0
  int vr = 0, vg = 0, vb = 0;  // R, G, B -> V (Cr) weights, sum exactly 0
};

// Chroma contribution of one (U, V) sample to R, G and B plus the rounding and black-level
// constant 0.5 - yScale*yOffset, 16 fractional bits.
struct ChromaTerms {
  int r, g, b;
};

// ---- host-side coefficient tables -------------------------------------------------

inline int toFixed(double v) { return int(std::lround(v * double(1 << kFracBits))); }

inline void lumaWeights(ColorMatrix m, double& kr, double& kb) {
  if (m == ColorMatrix::Bt709) { kr = 0.2126; kb = 0.0722; }
  else if (m == ColorMatrix::Bt2020) { kr = 0.2627; kb = 0.0593; }
  else { kr = 0.299; kb = 0.114; }
}

// `depth`: bits per sample, 8 or 10 (pixelFormatDepth).
inline YuvToRgbCoeffs yuvToRgbCoeffs(ColorSpace cs, int depth = 8) {
  double kr, kb;
  lumaWeights(cs.matrix, kr, kb);
  const double kg = 1.0 - kr - kb;
  const bool limited = cs.range == ColorRange::Limited;
  const int shift = depth - 8;
  const double full = 255.0 / double((1 << depth) - 1);
  const double ys = limited ? 255.0 / double(219 << shift) : full, s = limited ? 255.0 / double(224 << shift) : full;
  YuvToRgbCoeffs c;
  c.yScale = toFixed(ys);
  c.yOffset = limited ? 16 << shift : 0;
  c.cOffset = 128 << shift;
  c.rv = toFixed(s * 2.0 * (1.0 - kr));
  c.gu = toFixed(s * 2.0 * (1.0 - kb) * kb / kg);
  c.gv = toFixed(s * 2.0 * (1.0 - kr) * kr / kg);
  c.bu = toFixed(s * 2.0 * (1.0 - kb));
  return c;
}

inline RgbToYuvCoeffs rgbToYuvCoeffs(ColorSpace cs) {
  double kr, kb;
  lumaWeights(cs.matrix, kr, kb);
  const bool limited = cs.range == ColorRange::Limited;
  const double ys = limited ? 219.0 / 255.0 : 1.0, s = limited ? 224.0 / 255.0 : 1.0;
  RgbToYuvCoeffs c;
  c.yr = toFixed(ys * kr);
  c.yb = toFixed(ys * kb);
  c.yg = toFixed(ys) - c.yr - c.yb;  // white maps exactly onto 235 / 255
  c.yOffset = limited ? 16 : 0;
  const double su = s / (2.0 * (1.0 - kb)), sv = s / (2.0 * (1.0 - kr));
  c.ur = toFixed(-su * kr);
  c.ub = toFixed(s * 0.5);
  c.ug = -c.ur - c.ub;  // grey maps exactly onto 128
  c.vb = toFixed(-sv * kb);
  c.vr = toFixed(s * 0.5);
  c.vg = -c.vr - c.vb;
  return c;
}

// ---- shared per-pixel arithmetic ---------------------------------------------------

__host__ __device__ inline int clamp255(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vimin_s32_relu(v, 255);  // max(min(v, 255), 0): one DPX instruction on sm_90
#else
  return v < 0 ? 0 : (v > 255 ? 255 : v);
#endif
}

// R in the low byte: the word stored little-endian is R, G, B, A in memory (a uchar4).
__host__ __device__ inline uint32_t packRgba(int r, int g, int b, uint32_t alphaBits) {
  return uint32_t(r) | (uint32_t(g) << 8) | (uint32_t(b) << 16) | alphaBits;
}
__host__ __device__ inline uchar4 unpackRgba(uint32_t p) {
  return make_uchar4(uint8_t(p), uint8_t(p >> 8), uint8_t(p >> 16), uint8_t(p >> 24));
}
// Exchanges bytes 0 and 2 (RGBA <-> BGRA).
__host__ __device__ inline uint32_t swapRB(uint32_t p) {
  return (p & 0xFF00FF00u) | ((p >> 16) & 0xFFu) | ((p & 0xFFu) << 16);
}

__host__ __device__ inline int lumaBias(const YuvToRgbCoeffs& c) { return kHalf - c.yScale * c.yOffset; }

__host__ __device__ inline ChromaTerms chromaTerms(const YuvToRgbCoeffs& c, int u, int v) {
  const int du = u - c.cOffset, dv = v - c.cOffset, bias = lumaBias(c);
  return {bias + c.rv * dv, bias - c.gu * du - c.gv * dv, bias + c.bu * du};
}

// `>>` on a negative int floors (arithmetic shift) with gcc, clang and nvcc.
__host__ __device__ inline uint32_t yuvToRgba(const YuvToRgbCoeffs& c, int y, ChromaTerms t) {
  const int base = c.yScale * y;
  return packRgba(clamp255((base + t.r) >> kFracBits), clamp255((base + t.g) >> kFracBits),
                  clamp255((base + t.b) >> kFracBits), kOpaque);
}

// Grey: R = G = B = Y, range-expanded when limited (yScale = 1.0 and offset 0 copy it).
__host__ __device__ inline uint32_t grayToRgba(const YuvToRgbCoeffs& c, int y) {
  const int v = clamp255((c.yScale * y + lumaBias(c)) >> kFracBits);
  return packRgba(v, v, v, kOpaque);
}

// One 10-bit sample from a little-endian 16-bit word, read with byte loads.
__host__ __device__ inline int lsb10(const uint8_t* p) { return (p[0] | (p[1] << 8)) & 0x3FF; }
__host__ __device__ inline int msb10(const uint8_t* p) { return (p[0] | (p[1] << 8)) >> 6; }

// One pixel of any format, read with byte loads. The reference path of the kernels
// (odd edges, unaligned planes) and the whole of the CPU twin.
template <PixelFormat F>
__host__ __device__ inline uint32_t pixelAt(const PlanarView& s, int x, int y, const YuvToRgbCoeffs& c) {
  const uint8_t* r0 = s.data[0] + size_t(y) * s.pitch[0];
  if constexpr (F == PixelFormat::Yuv420p || F == PixelFormat::Yuv422p || F == PixelFormat::Yuv444p) {
    const int cx = F == PixelFormat::Yuv444p ? x : x >> 1;
    const int cy = F == PixelFormat::Yuv420p ? y >> 1 : y;
    const int u = s.data[1][size_t(cy) * s.pitch[1] + cx], v = s.data[2][size_t(cy) * s.pitch[2] + cx];
    return yuvToRgba(c, r0[x], chromaTerms(c, u, v));
  } else if constexpr (F == PixelFormat::Yuv420p10 || F == PixelFormat::Yuv422p10 || F == PixelFormat::Yuv444p10 ||
                       F == PixelFormat::Yuv444p16) {
    const int cx = (F == PixelFormat::Yuv444p10 || F == PixelFormat::Yuv444p16) ? x : x >> 1;
    const int cy = F == PixelFormat::Yuv420p10 ? y >> 1 : y;
    const uint8_t* u = s.data[1] + size_t(cy) * s.pitch[1] + 2 * cx;
    const uint8_t* v = s.data[2] + size_t(cy) * s.pitch[2] + 2 * cx;
    if constexpr (F == PixelFormat::Yuv444p16) return yuvToRgba(c, msb10(r0 + 2 * x), chromaTerms(c, msb10(u), msb10(v)));
    else return yuvToRgba(c, lsb10(r0 + 2 * x), chromaTerms(c, lsb10(u), lsb10(v)));
  } else if constexpr (F == PixelFormat::P010) {
    const uint8_t* uv = s.data[1] + size_t(y >> 1) * s.pitch[1] + 4 * (x >> 1);
    return yuvToRgba(c, msb10(r0 + 2 * x), chromaTerms(c, msb10(uv), msb10(uv + 2)));
  } else if constexpr (F == PixelFormat::Nv12) {
    const uint8_t* uv = s.data[1] + size_t(y >> 1) * s.pitch[1] + 2 * (x >> 1);
    return yuvToRgba(c, r0[x], chromaTerms(c, uv[0], uv[1]));
  } else if constexpr (F == PixelFormat::Yuyv422) {
    const uint8_t* q = r0 + 4 * (x >> 1);  // Y0 U Y1 V
    return yuvToRgba(c, q[2 * (x & 1)], chromaTerms(c, q[1], q[3]));
  } else if constexpr (F == PixelFormat::Gray) {
    return grayToRgba(c, r0[x]);
  } else if constexpr (F == PixelFormat::Rgb24) {
    const uint8_t* q = r0 + 3 * x;
    return packRgba(q[0], q[1], q[2], kOpaque);
  } else if constexpr (F == PixelFormat::Bgr24) {
    const uint8_t* q = r0 + 3 * x;
    return packRgba(q[2], q[1], q[0], kOpaque);
  } else if constexpr (F == PixelFormat::Rgba) {
    const uint8_t* q = r0 + 4 * x;
    return packRgba(q[0], q[1], q[2], uint32_t(q[3]) << 24);
  } else {  // Bgra
    const uint8_t* q = r0 + 4 * x;
    return packRgba(q[2], q[1], q[0], uint32_t(q[3]) << 24);
  }
}

// ---- RGB -> yuv420p -----------------------------------------------------------------

// Writable yuv420p planes (device or host memory).
struct Yuv420pPlanes {
  uint8_t* y = nullptr;
  uint8_t* u = nullptr;
  uint8_t* v = nullptr;
  size_t pitchY = 0, pitchU = 0, pitchV = 0;  // bytes between rows
};

__host__ __device__ inline int rgbToY(const RgbToYuvCoeffs& c, int r, int g, int b) {
  return clamp255(((c.yr * r + c.yg * g + c.yb * b + kHalf) >> kFracBits) + c.yOffset);
}

// Chroma from channel sums over n = 2^log2n pixels: 128 + round(weighted sum / n).
__host__ __device__ inline int chromaFromSums(int wr, int wg, int wb, int sr, int sg, int sb, int log2n) {
  return clamp255(128 + ((wr * sr + wg * sg + wb * sb + (kHalf << log2n)) >> (kFracBits + log2n)));
}

// Chroma block (cx, cy): Y of its existing pixels, then its U and V.
__host__ __device__ inline void rgbaBlockToYuv420p(const ConstRgbaView& s, const Yuv420pPlanes& d, int cx, int cy,
                                                   const RgbToYuvCoeffs& c) {
  int sr = 0, sg = 0, sb = 0, n = 0;
  for (int y = 2 * cy; y < 2 * cy + 2 && y < s.height; ++y)
    for (int x = 2 * cx; x < 2 * cx + 2 && x < s.width; ++x) {
      const uchar4 p = s.at(x, y);
      d.y[size_t(y) * d.pitchY + x] = uint8_t(rgbToY(c, p.x, p.y, p.z));
      sr += p.x;
      sg += p.y;
      sb += p.z;
      ++n;
    }
  const int log2n = n >> 1;  // n is 1, 2 or 4
  d.u[size_t(cy) * d.pitchU + cx] = uint8_t(chromaFromSums(c.ur, c.ug, c.ub, sr, sg, sb, log2n));
  d.v[size_t(cy) * d.pitchV + cx] = uint8_t(chromaFromSums(c.vr, c.vg, c.vb, sr, sg, sb, log2n));
}

}  // namespace vp::color
