// CUDA colour conversion kernels: native layouts -> RGBA8 and RGBA8 -> yuv420p.
//
// Method: one thread per tile of 4 pixels x R rows (R = 2 for 4:2:0 so both rows share
// one chroma load and one set of chroma terms; R = 1 otherwise). A warp covers 128
// pixels of a row: its RGBA stores are 512 contiguous bytes, its Y loads 128 bytes.
// When every plane base and pitch is aligned for the format's wide loads and the
// destination for 16-byte stores (checked once per launch, picking a kernel
// instantiation), full tiles load 2/4/8/16 bytes at a time and store 16 bytes per row;
// tiles crossing the right edge, and all tiles of unaligned layouts, take the per-pixel
// byte path (color::pixelAt), which is also the CPU twin. Both paths do the same integer
// arithmetic, so GPU == CPU exactly.
// Cost: O(w*h); about 12 B read + 32 B written per 4:2:0 tile, bandwidth bound.
#include "gpu/color/color_convert.h"

#include "gpu/color/color_math.h"
#include "gpu/cuda/cuda_check.h"

#include <cstdint>
#include <stdexcept>

namespace vp {
namespace {

using color::ChromaTerms;
using color::RgbToYuvCoeffs;
using color::YuvToRgbCoeffs;

constexpr int kTileW = 4;   // pixels per thread along a row (one 16-byte RGBA store)
constexpr int kBlockX = 32;  // threads per block along x: a warp spans one row
constexpr int kBlockY = 8;   // threads per block along y

template <PixelFormat F>
constexpr int tileRows() {
  return (F == PixelFormat::Yuv420p || F == PixelFormat::Nv12 || F == PixelFormat::Yuv420p10 ||
          F == PixelFormat::P010)
             ? 2
             : 1;
}

// 10-bit formats: samples are read with byte loads (color::pixelAt); full tiles still
// store 16 bytes per row.
template <PixelFormat F>
constexpr bool isDeep() {
  return F == PixelFormat::Yuv420p10 || F == PixelFormat::Yuv422p10 || F == PixelFormat::Yuv444p10 ||
         F == PixelFormat::P010 || F == PixelFormat::Yuv444p16;
}

// Byte alignment the wide path needs of each plane's base and pitch (0 = unused).
template <PixelFormat F>
constexpr int planeAlign(int p) {
  switch (F) {
    case PixelFormat::Yuv420p:
    case PixelFormat::Yuv422p: return p == 0 ? 4 : 2;  // Y: 4 bytes, U/V: 2 bytes per tile
    case PixelFormat::Nv12: return p < 2 ? 4 : 0;
    case PixelFormat::Yuv444p: return 4;
    case PixelFormat::Yuyv422: return p == 0 ? 8 : 0;
    case PixelFormat::Gray:
    case PixelFormat::Rgb24:  // 12 bytes = three 4-byte loads
    case PixelFormat::Bgr24: return p == 0 ? 4 : 0;
    case PixelFormat::Rgba:
    case PixelFormat::Bgra: return p == 0 ? 16 : 0;
    default: return 0;  // 10-bit formats: byte loads
  }
}

bool aligned(const void* p, size_t pitch, size_t a) { return ((reinterpret_cast<uintptr_t>(p) | pitch) % a) == 0; }

template <PixelFormat F>
bool wideOk(const PlanarView& s, const RgbaView& d) {
  if (!aligned(d.data, d.pitch, 16)) return false;
  for (int p = 0; p < kMaxPlanes; ++p)
    if (planeAlign<F>(p) && !aligned(s.data[p], s.pitch[p], size_t(planeAlign<F>(p)))) return false;
  return true;
}

__device__ __forceinline__ uint32_t ld16(const uint8_t* p) { return *reinterpret_cast<const uint16_t*>(p); }
__device__ __forceinline__ uint32_t ld32(const uint8_t* p) { return *reinterpret_cast<const uint32_t*>(p); }
__device__ __forceinline__ int byteOf(uint32_t w, int i) { return int((w >> (8 * i)) & 0xFFu); }
__device__ __forceinline__ void st16(uchar4* p, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  *reinterpret_cast<uint4*>(p) = make_uint4(a, b, c, d);
}

// Four pixels of one Y word whose pixel pairs share chroma terms t0, t1 (4:2:x).
__device__ __forceinline__ void store422(uchar4* out, uint32_t y, const YuvToRgbCoeffs& c, ChromaTerms t0,
                                         ChromaTerms t1) {
  st16(out, color::yuvToRgba(c, byteOf(y, 0), t0), color::yuvToRgba(c, byteOf(y, 1), t0),
       color::yuvToRgba(c, byteOf(y, 2), t1), color::yuvToRgba(c, byteOf(y, 3), t1));
}

// Wide path for one full tile: x0 % 4 == 0, x0 + 3 < width, planes aligned (wideOk).
template <PixelFormat F>
__device__ __forceinline__ void fastTile(const PlanarView& s, const RgbaView& d, int x0, int y0,
                                         const YuvToRgbCoeffs& c) {
  const uint8_t* r0 = s.data[0] + size_t(y0) * s.pitch[0];
  uchar4* out = d.row(y0) + x0;
  if constexpr (isDeep<F>()) {
    for (int y = y0; y < y0 + tileRows<F>() && y < d.height; ++y)
      st16(d.row(y) + x0, color::pixelAt<F>(s, x0, y, c), color::pixelAt<F>(s, x0 + 1, y, c),
           color::pixelAt<F>(s, x0 + 2, y, c), color::pixelAt<F>(s, x0 + 3, y, c));
  } else if constexpr (F == PixelFormat::Yuv420p || F == PixelFormat::Nv12) {
    const bool two = y0 + 1 < d.height;  // odd height: the last tile has one row
    const uint32_t ya = ld32(r0 + x0);
    const uint32_t yb = two ? ld32(r0 + s.pitch[0] + x0) : 0u;
    const size_t cy = size_t(y0 >> 1);
    int u0, v0, u1, v1;
    if constexpr (F == PixelFormat::Yuv420p) {
      const uint32_t u = ld16(s.data[1] + cy * s.pitch[1] + (x0 >> 1));
      const uint32_t v = ld16(s.data[2] + cy * s.pitch[2] + (x0 >> 1));
      u0 = byteOf(u, 0), u1 = byteOf(u, 1), v0 = byteOf(v, 0), v1 = byteOf(v, 1);
    } else {
      const uint32_t uv = ld32(s.data[1] + cy * s.pitch[1] + x0);  // U0 V0 U1 V1
      u0 = byteOf(uv, 0), v0 = byteOf(uv, 1), u1 = byteOf(uv, 2), v1 = byteOf(uv, 3);
    }
    const ChromaTerms t0 = color::chromaTerms(c, u0, v0), t1 = color::chromaTerms(c, u1, v1);
    store422(out, ya, c, t0, t1);
    if (two) store422(d.row(y0 + 1) + x0, yb, c, t0, t1);
  } else if constexpr (F == PixelFormat::Yuv422p) {
    const uint32_t y = ld32(r0 + x0);
    const uint32_t u = ld16(s.data[1] + size_t(y0) * s.pitch[1] + (x0 >> 1));
    const uint32_t v = ld16(s.data[2] + size_t(y0) * s.pitch[2] + (x0 >> 1));
    store422(out, y, c, color::chromaTerms(c, byteOf(u, 0), byteOf(v, 0)),
             color::chromaTerms(c, byteOf(u, 1), byteOf(v, 1)));
  } else if constexpr (F == PixelFormat::Yuv444p) {
    const uint32_t y = ld32(r0 + x0);
    const uint32_t u = ld32(s.data[1] + size_t(y0) * s.pitch[1] + x0);
    const uint32_t v = ld32(s.data[2] + size_t(y0) * s.pitch[2] + x0);
    uint32_t p[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      p[i] = color::yuvToRgba(c, byteOf(y, i), color::chromaTerms(c, byteOf(u, i), byteOf(v, i)));
    st16(out, p[0], p[1], p[2], p[3]);
  } else if constexpr (F == PixelFormat::Yuyv422) {
    const uint2 w = *reinterpret_cast<const uint2*>(r0 + 2 * x0);  // Y0 U0 Y1 V0 | Y2 U1 Y3 V1
    const ChromaTerms t0 = color::chromaTerms(c, byteOf(w.x, 1), byteOf(w.x, 3));
    const ChromaTerms t1 = color::chromaTerms(c, byteOf(w.y, 1), byteOf(w.y, 3));
    st16(out, color::yuvToRgba(c, byteOf(w.x, 0), t0), color::yuvToRgba(c, byteOf(w.x, 2), t0),
         color::yuvToRgba(c, byteOf(w.y, 0), t1), color::yuvToRgba(c, byteOf(w.y, 2), t1));
  } else if constexpr (F == PixelFormat::Gray) {
    const uint32_t y = ld32(r0 + x0);
    st16(out, color::grayToRgba(c, byteOf(y, 0)), color::grayToRgba(c, byteOf(y, 1)),
         color::grayToRgba(c, byteOf(y, 2)), color::grayToRgba(c, byteOf(y, 3)));
  } else if constexpr (F == PixelFormat::Rgb24 || F == PixelFormat::Bgr24) {
    const uint8_t* q = r0 + 3 * x0;  // R0 G0 B0 R1 | G1 B1 R2 G2 | B2 R3 G3 B3
    const uint32_t a = ld32(q), b = ld32(q + 4), e = ld32(q + 8);
    uint32_t p0 = (a & 0xFFFFFFu) | color::kOpaque;
    uint32_t p1 = (a >> 24) | ((b & 0xFFFFu) << 8) | color::kOpaque;
    uint32_t p2 = (b >> 16) | ((e & 0xFFu) << 16) | color::kOpaque;
    uint32_t p3 = (e >> 8) | color::kOpaque;
    if constexpr (F == PixelFormat::Bgr24) {
      p0 = color::swapRB(p0), p1 = color::swapRB(p1), p2 = color::swapRB(p2), p3 = color::swapRB(p3);
    }
    st16(out, p0, p1, p2, p3);
  } else {  // Rgba, Bgra
    uint4 p = *reinterpret_cast<const uint4*>(r0 + 4 * x0);
    if constexpr (F == PixelFormat::Bgra) {
      p.x = color::swapRB(p.x), p.y = color::swapRB(p.y), p.z = color::swapRB(p.z), p.w = color::swapRB(p.w);
    }
    *reinterpret_cast<uint4*>(out) = p;
  }
}

// The tile at (x0, y0): wide path when allowed and the tile is full, else byte path.
template <PixelFormat F, bool kWide>
__device__ __forceinline__ void toRgbaTile(const PlanarView& s, const RgbaView& d, int x0, int y0,
                                           const YuvToRgbCoeffs& c) {
  if constexpr (kWide) {
    if (x0 + kTileW <= d.width) return fastTile<F>(s, d, x0, y0, c);
  }
  for (int y = y0; y < y0 + tileRows<F>() && y < d.height; ++y) {
    uchar4* out = d.row(y);
    for (int x = x0; x < x0 + kTileW && x < d.width; ++x) out[x] = color::unpackRgba(color::pixelAt<F>(s, x, y, c));
  }
}

template <PixelFormat F, bool kWide>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    toRgbaKernel(PlanarView s, RgbaView d, YuvToRgbCoeffs c) {
  const int x0 = int(blockIdx.x * kBlockX + threadIdx.x) * kTileW;
  const int y0 = int(blockIdx.y * kBlockY + threadIdx.y) * tileRows<F>();
  if (x0 < d.width && y0 < d.height) toRgbaTile<F, kWide>(s, d, x0, y0, c);
}

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

template <PixelFormat F>
void launchToRgba(const PlanarView& s, const RgbaView& d, const YuvToRgbCoeffs& c, cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceilDiv(d.width, kTileW * kBlockX), ceilDiv(d.height, tileRows<F>() * kBlockY));
  if (wideOk<F>(s, d))
    toRgbaKernel<F, true><<<grid, block, 0, stream>>>(s, d, c);
  else
    toRgbaKernel<F, false><<<grid, block, 0, stream>>>(s, d, c);
  VP_CUDA_CHECK_LAUNCH();
}

// ---- RGBA -> yuv420p: one thread per 4x2 tile = two chroma blocks ---------------------------

__device__ __forceinline__ int rOf(uint32_t p) { return int(p & 0xFFu); }
__device__ __forceinline__ int gOf(uint32_t p) { return int((p >> 8) & 0xFFu); }
__device__ __forceinline__ int bOf(uint32_t p) { return int((p >> 16) & 0xFFu); }

__device__ __forceinline__ uint32_t lumaWord(const RgbToYuvCoeffs& c, uint4 p) {
  return uint32_t(color::rgbToY(c, rOf(p.x), gOf(p.x), bOf(p.x))) |
         (uint32_t(color::rgbToY(c, rOf(p.y), gOf(p.y), bOf(p.y))) << 8) |
         (uint32_t(color::rgbToY(c, rOf(p.z), gOf(p.z), bOf(p.z))) << 16) |
         (uint32_t(color::rgbToY(c, rOf(p.w), gOf(p.w), bOf(p.w))) << 24);
}

// The 4x2 tile at (x0, y0) = chroma blocks (x0/2, y0/2) and (x0/2 + 1, y0/2).
template <bool kWide>
__device__ __forceinline__ void yuvTile(const ConstRgbaView& s, const color::Yuv420pPlanes& d, int x0, int y0,
                                        const RgbToYuvCoeffs& c) {
  const int cx0 = x0 >> 1, cy = y0 >> 1;
  if constexpr (kWide) {
    if (x0 + kTileW <= s.width) {
      const bool two = y0 + 1 < s.height;
      const uint4 a = *reinterpret_cast<const uint4*>(s.row(y0) + x0);
      const uint4 b = two ? *reinterpret_cast<const uint4*>(s.row(y0 + 1) + x0) : make_uint4(0, 0, 0, 0);
      *reinterpret_cast<uint32_t*>(d.y + size_t(y0) * d.pitchY + x0) = lumaWord(c, a);
      if (two) *reinterpret_cast<uint32_t*>(d.y + size_t(y0 + 1) * d.pitchY + x0) = lumaWord(c, b);
      // Missing second row contributes zeros to the sums and halves n instead of quartering it.
      const int log2n = two ? 2 : 1;
      const int r0 = rOf(a.x) + rOf(a.y) + rOf(b.x) + rOf(b.y), r1 = rOf(a.z) + rOf(a.w) + rOf(b.z) + rOf(b.w);
      const int g0 = gOf(a.x) + gOf(a.y) + gOf(b.x) + gOf(b.y), g1 = gOf(a.z) + gOf(a.w) + gOf(b.z) + gOf(b.w);
      const int b0 = bOf(a.x) + bOf(a.y) + bOf(b.x) + bOf(b.y), b1 = bOf(a.z) + bOf(a.w) + bOf(b.z) + bOf(b.w);
      const uint32_t u = uint32_t(color::chromaFromSums(c.ur, c.ug, c.ub, r0, g0, b0, log2n)) |
                         (uint32_t(color::chromaFromSums(c.ur, c.ug, c.ub, r1, g1, b1, log2n)) << 8);
      const uint32_t v = uint32_t(color::chromaFromSums(c.vr, c.vg, c.vb, r0, g0, b0, log2n)) |
                         (uint32_t(color::chromaFromSums(c.vr, c.vg, c.vb, r1, g1, b1, log2n)) << 8);
      *reinterpret_cast<uint16_t*>(d.u + size_t(cy) * d.pitchU + cx0) = uint16_t(u);
      *reinterpret_cast<uint16_t*>(d.v + size_t(cy) * d.pitchV + cx0) = uint16_t(v);
      return;
    }
  }
  for (int cx = cx0; cx < cx0 + 2 && 2 * cx < s.width; ++cx) color::rgbaBlockToYuv420p(s, d, cx, cy, c);
}

template <bool kWide>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    rgbaToYuv420pKernel(ConstRgbaView s, color::Yuv420pPlanes d, RgbToYuvCoeffs c) {
  const int x0 = int(blockIdx.x * kBlockX + threadIdx.x) * kTileW;
  const int y0 = int(blockIdx.y * kBlockY + threadIdx.y) * 2;
  if (x0 < s.width && y0 < s.height) yuvTile<kWide>(s, d, x0, y0, c);
}

}  // namespace

void convertToRgbaGpu(const PlanarView& src, RgbaView dst, ColorSpace color, cudaStream_t stream) {
  detail::checkToRgbaArgs(src, dst, "convertToRgbaGpu");
  const YuvToRgbCoeffs c = color::yuvToRgbCoeffs(color, pixelFormatDepth(src.format));
  switch (src.format) {
    case PixelFormat::Yuv420p10: return launchToRgba<PixelFormat::Yuv420p10>(src, dst, c, stream);
    case PixelFormat::Yuv422p10: return launchToRgba<PixelFormat::Yuv422p10>(src, dst, c, stream);
    case PixelFormat::Yuv444p10: return launchToRgba<PixelFormat::Yuv444p10>(src, dst, c, stream);
    case PixelFormat::P010: return launchToRgba<PixelFormat::P010>(src, dst, c, stream);
    case PixelFormat::Yuv444p16: return launchToRgba<PixelFormat::Yuv444p16>(src, dst, c, stream);
    case PixelFormat::Yuv420p: return launchToRgba<PixelFormat::Yuv420p>(src, dst, c, stream);
    case PixelFormat::Nv12: return launchToRgba<PixelFormat::Nv12>(src, dst, c, stream);
    case PixelFormat::Yuv422p: return launchToRgba<PixelFormat::Yuv422p>(src, dst, c, stream);
    case PixelFormat::Yuv444p: return launchToRgba<PixelFormat::Yuv444p>(src, dst, c, stream);
    case PixelFormat::Yuyv422: return launchToRgba<PixelFormat::Yuyv422>(src, dst, c, stream);
    case PixelFormat::Gray: return launchToRgba<PixelFormat::Gray>(src, dst, c, stream);
    case PixelFormat::Rgb24: return launchToRgba<PixelFormat::Rgb24>(src, dst, c, stream);
    case PixelFormat::Bgr24: return launchToRgba<PixelFormat::Bgr24>(src, dst, c, stream);
    case PixelFormat::Rgba: return launchToRgba<PixelFormat::Rgba>(src, dst, c, stream);
    case PixelFormat::Bgra: return launchToRgba<PixelFormat::Bgra>(src, dst, c, stream);
  }
  throw std::invalid_argument("convertToRgbaGpu: unknown pixel format");
}

void rgbaToYuv420pGpu(ConstRgbaView src, const FrameLayout& layout, void* dstBase, ColorSpace color,
                      cudaStream_t stream) {
  detail::checkToYuv420pArgs(src, layout, dstBase, "rgbaToYuv420pGpu");
  const RgbToYuvCoeffs c = color::rgbToYuvCoeffs(color);
  uint8_t* base = static_cast<uint8_t*>(dstBase);
  const color::Yuv420pPlanes d{base + layout.plane[0].offset, base + layout.plane[1].offset,
                               base + layout.plane[2].offset, layout.plane[0].pitch,
                               layout.plane[1].pitch,         layout.plane[2].pitch};
  const bool wide = aligned(src.data, src.pitch, 16) && aligned(d.y, d.pitchY, 4) && aligned(d.u, d.pitchU, 2) &&
                    aligned(d.v, d.pitchV, 2);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceilDiv(src.width, kTileW * kBlockX), ceilDiv(src.height, 2 * kBlockY));
  if (wide)
    rgbaToYuv420pKernel<true><<<grid, block, 0, stream>>>(src, d, c);
  else
    rgbaToYuv420pKernel<false><<<grid, block, 0, stream>>>(src, d, c);
  VP_CUDA_CHECK_LAUNCH();
}

namespace {

// One thread packs 4 pixels: one 16-byte load, three 4-byte stores when the
// destination row start is 4-byte aligned (the tight pitch 3w is whenever w % 4 == 0),
// byte stores at the right edge and otherwise.
template <bool Wide>
__global__ void rgbaToRgb24Kernel(ConstRgbaView src, uint8_t* dst, size_t dstPitch) {
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * kTileW;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x0 >= src.width || y >= src.height) return;
  const uchar4* in = src.row(y) + x0;
  uint8_t* out = dst + size_t(y) * dstPitch + 3 * size_t(x0);
  if (Wide && x0 + kTileW <= src.width) {
    const uint4 v = *reinterpret_cast<const uint4*>(in);  // RGBA RGBA RGBA RGBA, little endian
    uint32_t* o = reinterpret_cast<uint32_t*>(out);
    o[0] = (v.x & 0xFFFFFFu) | (v.y << 24);
    o[1] = ((v.y >> 8) & 0xFFFFu) | (v.z << 16);
    o[2] = ((v.z >> 16) & 0xFFu) | (v.w << 8);
    return;
  }
  for (int i = 0; i < kTileW && x0 + i < src.width; ++i) {
    const uchar4 p = in[i];
    out[3 * i] = p.x;
    out[3 * i + 1] = p.y;
    out[3 * i + 2] = p.z;
  }
}

}  // namespace

void rgbaToRgb24Gpu(ConstRgbaView src, uint8_t* dst, size_t dstPitch, cudaStream_t stream) {
  detail::checkToRgb24Args(src, dst, dstPitch, "rgbaToRgb24Gpu");
  const bool wide = aligned(src.data, src.pitch, 16) && aligned(dst, dstPitch, 4);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(ceilDiv(src.width, kTileW * kBlockX), ceilDiv(src.height, kBlockY));
  if (wide)
    rgbaToRgb24Kernel<true><<<grid, block, 0, stream>>>(src, dst, dstPitch);
  else
    rgbaToRgb24Kernel<false><<<grid, block, 0, stream>>>(src, dst, dstPitch);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace vp
