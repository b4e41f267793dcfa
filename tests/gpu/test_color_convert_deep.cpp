// Colour conversion of 10-bit YUV (yuv420p10le, yuv422p10le, yuv444p10le, p010le,
// yuv444p16le as NVDEC writes it) and of the BT.2020 NCL matrix: the CPU twin against a
// plain double-precision reference that uses all 10 bits (tolerance: max |difference|
// <= 1 level per channel, alpha exact), the GPU against the CPU twin (exact, poisoned
// outputs, tight and padded layouts, odd sizes), and the 10-bit path against the 8-bit
// one on 8-bit values shifted up (within one level: the same picture either way).
#include "gpu/color/color_convert.h"
#include "gpu/cuda/cuda_resources.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace vp {
namespace {

constexpr int kRefTolerance = 1;  // levels: fixed point vs exactly rounded real arithmetic

constexpr PixelFormat kDeep[] = {PixelFormat::Yuv420p10, PixelFormat::Yuv422p10, PixelFormat::Yuv444p10,
                                 PixelFormat::P010, PixelFormat::Yuv444p16};
constexpr ColorSpace kSpaces[] = {
    {ColorMatrix::Bt601, ColorRange::Limited},  {ColorMatrix::Bt709, ColorRange::Limited},
    {ColorMatrix::Bt2020, ColorRange::Limited}, {ColorMatrix::Bt2020, ColorRange::Full},
    {ColorMatrix::Bt709, ColorRange::Full}};

struct Size {
  int w, h;
};

std::string describe(PixelFormat f, ColorSpace cs, int w, int h, const char* what) {
  return std::string(pixelFormatName(f)) + " " + std::string(colorMatrixName(cs.matrix)) +
         (cs.range == ColorRange::Full ? " full " : " limited ") + std::to_string(w) + "x" + std::to_string(h) + " " +
         what;
}

bool msbAligned(PixelFormat f) { return f == PixelFormat::P010 || f == PixelFormat::Yuv444p16; }
int chromaShiftX(PixelFormat f) { return f == PixelFormat::Yuv444p10 || f == PixelFormat::Yuv444p16 ? 0 : 1; }
int chromaShiftY(PixelFormat f) { return f == PixelFormat::Yuv420p10 || f == PixelFormat::P010 ? 1 : 0; }

// A frame of 16-bit samples laid out as `layout`.
struct Frame {
  FrameLayout layout;
  std::vector<uint8_t> bytes;
  uint8_t* word(int p, int i, int y) { return bytes.data() + layout.plane[p].offset + y * layout.plane[p].pitch + 2 * i; }
  const uint8_t* word(int p, int i, int y) const {
    return bytes.data() + layout.plane[p].offset + y * layout.plane[p].pitch + 2 * i;
  }
  // The 10-bit value of sample i of row y in plane p (as the format stores it).
  int sample(int p, int i, int y) const {
    const uint8_t* q = word(p, i, y);
    const int w = q[0] | (q[1] << 8);
    return msbAligned(layout.format) ? w >> 6 : w & 0x3FF;
  }
  void put(int p, int i, int y, int v10, int junk) {
    const int w = msbAligned(layout.format) ? (v10 << 6) | (junk & 0x3F) : v10 | (junk & 0xFC00);
    uint8_t* q = word(p, i, y);
    q[0] = uint8_t(w), q[1] = uint8_t(w >> 8);
  }
  PlanarView view() const { return planarView(layout, bytes.data()); }
};

// Reads (Y, U, V) of pixel (x, y): nearest chroma siting.
void yuvAt(const Frame& f, int x, int y, int& Y, int& U, int& V) {
  const PixelFormat fmt = f.layout.format;
  const int cx = x >> chromaShiftX(fmt), cy = y >> chromaShiftY(fmt);
  Y = f.sample(0, x, y);
  if (fmt == PixelFormat::P010) {
    U = f.sample(1, 2 * cx, cy), V = f.sample(1, 2 * cx + 1, cy);
  } else {
    U = f.sample(1, cx, cy), V = f.sample(2, cx, cy);
  }
}

void weights(ColorMatrix m, double& kr, double& kb) {
  if (m == ColorMatrix::Bt709) kr = 0.2126, kb = 0.0722;
  else if (m == ColorMatrix::Bt2020) kr = 0.2627, kb = 0.0593;
  else kr = 0.299, kb = 0.114;
}
int roundClamp(double v) { return int(std::floor(std::clamp(v, 0.0, 255.0) + 0.5)); }

// Real-valued YUV (depth d) -> RGB8, the textbook formulas.
uchar4 refYuv(ColorSpace cs, int depth, int Y, int U, int V) {
  double kr, kb;
  weights(cs.matrix, kr, kb);
  const double kg = 1 - kr - kb, k = double(1 << (depth - 8));
  const bool lim = cs.range == ColorRange::Limited;
  const double full = 255.0 / ((1 << depth) - 1), c0 = 128 * k;
  const double y = lim ? (Y - 16 * k) * 255.0 / (219 * k) : Y * full;
  const double u = (U - c0) * (lim ? 255.0 / (224 * k) : full), v = (V - c0) * (lim ? 255.0 / (224 * k) : full);
  return make_uchar4(uint8_t(roundClamp(y + 2 * (1 - kr) * v)),
                     uint8_t(roundClamp(y - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v)),
                     uint8_t(roundClamp(y + 2 * (1 - kb) * u)), 255);
}

HostImage refToRgba(const Frame& f, ColorSpace cs) {
  HostImage out(f.layout.width, f.layout.height);
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      int Y, U, V;
      yuvAt(f, x, y, Y, U, V);
      out.at(x, y) = refYuv(cs, 10, Y, U, V);
    }
  return out;
}

// Number of samples per row of plane p (a P010 UV pair counts two).
int samplesPerRow(const FrameLayout& l, int p) { return int(l.plane[p].widthBytes / 2); }

// Random 10-bit samples over the whole code range, random junk in the ignored bits.
Frame randomFrame(PixelFormat f, int w, int h, size_t rowAlign, uint64_t seed) {
  Frame fr{frameLayout(f, w, h, rowAlign), {}};
  fr.bytes.assign(fr.layout.bytes, test::kPoison);
  std::mt19937_64 rng(seed);
  for (int p = 0; p < fr.layout.planes; ++p)
    for (int y = 0; y < fr.layout.plane[p].rows; ++y)
      for (int i = 0; i < samplesPerRow(fr.layout, p); ++i) fr.put(p, i, y, int(rng() & 0x3FF), int(rng()));
  return fr;
}

// Natural content: makeNatural RGB through the double-precision inverse into 10 bits;
// subsampled chroma from the top-left pixel of each block.
Frame naturalFrame(PixelFormat f, int w, int h, ColorSpace cs) {
  const HostImage rgb = test::makeNatural(w, h, 19);
  Frame fr{frameLayout(f, w, h), {}};
  fr.bytes.assign(fr.layout.bytes, 0);
  double kr, kb;
  weights(cs.matrix, kr, kb);
  const bool lim = cs.range == ColorRange::Limited;
  auto to10 = [&](int x, int y, int& Y, int& U, int& V) {
    const uchar4 q = rgb.at(x, y);
    const double l = kr * q.x + (1 - kr - kb) * q.y + kb * q.z;
    const double yy = lim ? 64 + l * 876.0 / 255.0 : l * 1023.0 / 255.0;
    const double s = lim ? 896.0 / 255.0 : 1023.0 / 255.0;
    Y = int(std::lround(yy));
    U = int(std::lround(512 + s * (q.z - l) / (2 * (1 - kb))));
    V = int(std::lround(512 + s * (q.x - l) / (2 * (1 - kr))));
    Y = std::clamp(Y, 0, 1023), U = std::clamp(U, 0, 1023), V = std::clamp(V, 0, 1023);
  };
  const int sx = chromaShiftX(f), sy = chromaShiftY(f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int Y, U, V;
      to10(x, y, Y, U, V);
      fr.put(0, x, y, Y, 0);
      if ((x & ((1 << sx) - 1)) || (y & ((1 << sy) - 1))) continue;
      if (f == PixelFormat::P010) fr.put(1, 2 * (x >> 1), y >> 1, U, 0), fr.put(1, 2 * (x >> 1) + 1, y >> 1, V, 0);
      else fr.put(1, x >> sx, y >> sy, U, 0), fr.put(2, x >> sx, y >> sy, V, 0);
    }
  return fr;
}

HostImage cpuToRgba(const Frame& f, ColorSpace cs) {
  HostImage out(f.layout.width, f.layout.height);
  test::poison(out);
  convertToRgbaCpu(f.view(), out.view(), cs);
  return out;
}

const Size kRefSizes[] = {{1, 1}, {2, 3}, {5, 3}, {33, 17}, {1918, 1078}};

TEST(ColorConvertDeepCpu, TenBitWithinOneLevelOfDoubleReference) {
  for (const Size s : kRefSizes)
    for (PixelFormat f : kDeep)
      for (ColorSpace cs : kSpaces) {
        const Frame frames[2] = {randomFrame(f, s.w, s.h, 1, 700 + uint64_t(s.w)), naturalFrame(f, s.w, s.h, cs)};
        for (int k = 0; k < 2; ++k) {
          SCOPED_TRACE(describe(f, cs, s.w, s.h, k ? "natural" : "random"));
          EXPECT_LE(test::maxRgbDiff(cpuToRgba(frames[k], cs), refToRgba(frames[k], cs)), kRefTolerance);
        }
      }
}

// The 10 bits are used: values 4 codes apart (one 8-bit step) with the steps between
// them give distinct outputs where an 8-bit intermediate could not.
TEST(ColorConvertDeepCpu, UsesTheTwoExtraBits) {
  const ColorSpace cs{ColorMatrix::Bt709, ColorRange::Full};
  Frame fr{frameLayout(PixelFormat::Yuv444p10, 1024, 1), {}};
  fr.bytes.assign(fr.layout.bytes, 0);
  for (int x = 0; x < 1024; ++x) fr.put(0, x, 0, x, 0), fr.put(1, x, 0, 512, 0), fr.put(2, x, 0, 512, 0);
  const HostImage out = cpuToRgba(fr, cs);
  // Full-range grey: R = round(Y * 255 / 1023); an 8-bit intermediate (Y >> 2) would
  // make R(4k + 3) == R(4k) for every k.
  int differentWithinStep = 0;
  for (int k = 0; k < 255; ++k) differentWithinStep += out.at(4 * k + 3, 0).x != out.at(4 * k, 0).x;
  EXPECT_GT(differentWithinStep, 100);
  for (int x = 0; x < 1024; ++x) ASSERT_EQ(out.at(x, 0).x, roundClamp(x * 255.0 / 1023.0)) << x;
}

// 8-bit values shifted up by 2 bits read (almost) as the 8-bit frame does.
TEST(ColorConvertDeepCpu, ShiftedEightBitMatchesTheEightBitPath) {
  const int w = 37, h = 21;
  const FrameLayout l8 = frameLayout(PixelFormat::Yuv420p, w, h);
  const std::vector<uint8_t> b8 = test::randomBytes(l8.bytes, 99);
  Frame fr{frameLayout(PixelFormat::Yuv420p10, w, h), {}};
  fr.bytes.assign(fr.layout.bytes, 0);
  for (int p = 0; p < 3; ++p)
    for (int y = 0; y < l8.plane[p].rows; ++y)
      for (int i = 0; i < int(l8.plane[p].widthBytes); ++i)
        fr.put(p, i, y, b8[l8.plane[p].offset + y * l8.plane[p].pitch + i] << 2, 0);
  for (ColorSpace cs : {ColorSpace{ColorMatrix::Bt601, ColorRange::Limited}, ColorSpace{ColorMatrix::Bt2020, ColorRange::Limited}}) {
    HostImage a(w, h);
    convertToRgbaCpu(planarView(l8, b8.data()), a.view(), cs);
    EXPECT_LE(test::maxRgbDiff(cpuToRgba(fr, cs), a), 1) << colorMatrixName(cs.matrix);
  }
}

// BT.2020: primaries' worth of saturated inputs against the reference (8-bit).
TEST(ColorConvertDeepCpu, Bt2020EightBitWithinOneLevelOfDoubleReference) {
  for (ColorRange range : {ColorRange::Limited, ColorRange::Full}) {
    const ColorSpace cs{ColorMatrix::Bt2020, range};
    const FrameLayout l = frameLayout(PixelFormat::Yuv444p, 256, 256);
    std::vector<uint8_t> b(l.bytes);
    for (int y = 0; y < 256; ++y)
      for (int x = 0; x < 256; ++x) {
        b[l.plane[0].offset + y * l.plane[0].pitch + x] = uint8_t((x * 7 + y * 3) & 255);
        b[l.plane[1].offset + y * l.plane[1].pitch + x] = uint8_t(x);
        b[l.plane[2].offset + y * l.plane[2].pitch + x] = uint8_t(y);
      }
    HostImage out(256, 256), want(256, 256);
    convertToRgbaCpu(planarView(l, b.data()), out.view(), cs);
    for (int y = 0; y < 256; ++y)
      for (int x = 0; x < 256; ++x) want.at(x, y) = refYuv(cs, 8, (x * 7 + y * 3) & 255, x, y);
    EXPECT_LE(test::maxRgbDiff(out, want), kRefTolerance) << (range == ColorRange::Full ? "full" : "limited");
  }
}

// ---- GPU vs CPU twin, exact ---------------------------------------------------------

const Size kGpuSizes[] = {{1, 1}, {2, 3}, {5, 3}, {8, 2}, {37, 17}, {1918, 1078}, {1921, 1081}};

class ColorConvertDeepGpu : public ::testing::TestWithParam<Size> {};

TEST_P(ColorConvertDeepGpu, MatchesCpuTwinExactly) {
  VP_REQUIRE_GPU();
  const Size s = GetParam();
  Stream stream;
  DeviceImage out(s.w, s.h);
  DeviceImage wider(s.w + 1, s.h);  // viewed one pixel in: rows 4 bytes past 16-byte alignment
  const RgbaView shifted{wider.view().data + 1, wider.pitch(), s.w, s.h};
  for (PixelFormat f : kDeep)
    for (ColorSpace cs : kSpaces)
      for (size_t align : {size_t(1), size_t(64), size_t(512)}) {
        SCOPED_TRACE(describe(f, cs, s.w, s.h, ("rowAlign " + std::to_string(align)).c_str()));
        const Frame fr = randomFrame(f, s.w, s.h, align, 900 + uint64_t(s.h) + align);
        const HostImage want = cpuToRgba(fr, cs);
        DeviceBuffer dev(fr.bytes.size());
        VP_CUDA_CHECK(cudaMemcpy(dev.get(), fr.bytes.data(), fr.bytes.size(), cudaMemcpyHostToDevice));
        VP_CUDA_CHECK(cudaDeviceSynchronize());
        const PlanarView src = planarView(fr.layout, dev.get());
        test::poison(out);
        convertToRgbaGpu(src, out.view(), cs, stream);
        stream.synchronize();
        const test::ImageDiff d = test::compare(test::download(out), want);
        EXPECT_EQ(d.differing, 0u) << d.first;
        if (align != 64) continue;
        test::poison(wider);
        convertToRgbaGpu(src, shifted, cs, stream);
        stream.synchronize();
        HostImage got(s.w, s.h);
        VP_CUDA_CHECK(cudaMemcpy2D(got.data(), got.pitch(), shifted.data, shifted.pitch, got.pitch(), s.h,
                                   cudaMemcpyDeviceToHost));
        EXPECT_EQ(test::compare(got, want).differing, 0u) << "unaligned destination";
      }
}
INSTANTIATE_TEST_SUITE_P(Sizes, ColorConvertDeepGpu, ::testing::ValuesIn(kGpuSizes),
                         [](const ::testing::TestParamInfo<Size>& i) {
                           return std::to_string(i.param.w) + "x" + std::to_string(i.param.h);
                         });

// 8-bit formats with the BT.2020 matrix on the GPU equal the twin too.
TEST(ColorConvertDeepGpuBt2020, EightBitMatchesCpuTwinExactly) {
  VP_REQUIRE_GPU();
  Stream stream;
  const int w = 1921, h = 1081;
  DeviceImage out(w, h);
  for (PixelFormat f : {PixelFormat::Yuv420p, PixelFormat::Nv12, PixelFormat::Yuv444p})
    for (ColorRange r : {ColorRange::Limited, ColorRange::Full}) {
      const ColorSpace cs{ColorMatrix::Bt2020, r};
      const FrameLayout l = frameLayout(f, w, h);
      const std::vector<uint8_t> b = test::randomBytes(l.bytes, 31);
      HostImage want(w, h);
      convertToRgbaCpu(planarView(l, b.data()), want.view(), cs);
      DeviceBuffer dev(b.size());
      VP_CUDA_CHECK(cudaMemcpy(dev.get(), b.data(), b.size(), cudaMemcpyHostToDevice));
      VP_CUDA_CHECK(cudaDeviceSynchronize());
      test::poison(out);
      convertToRgbaGpu(planarView(l, dev.get()), out.view(), cs, stream);
      stream.synchronize();
      EXPECT_EQ(test::compare(test::download(out), want).differing, 0u) << pixelFormatName(f);
    }
}

}  // namespace
}  // namespace vp
