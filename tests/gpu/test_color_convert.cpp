// Colour conversion: CPU twin against a plain double-precision reference (tolerance:
// max |difference| <= 1 level per channel, alpha exact), GPU against the CPU twin
// (exact, poisoned outputs, tight and padded layouts), the RGBA -> yuv420p -> RGBA round
// trip, and argument checks.
#include "gpu/color/color_convert.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace vp {
namespace {

constexpr int kRefTolerance = 1;  // levels: fixed point vs exactly rounded real arithmetic

constexpr PixelFormat kFormats[] = {PixelFormat::Yuv420p, PixelFormat::Nv12,    PixelFormat::Yuv422p,
                                    PixelFormat::Yuv444p, PixelFormat::Yuyv422, PixelFormat::Gray,
                                    PixelFormat::Rgb24,   PixelFormat::Bgr24,   PixelFormat::Rgba,
                                    PixelFormat::Bgra};
constexpr ColorSpace kSpaces[] = {{ColorMatrix::Bt601, ColorRange::Limited},
                                  {ColorMatrix::Bt601, ColorRange::Full},
                                  {ColorMatrix::Bt709, ColorRange::Limited},
                                  {ColorMatrix::Bt709, ColorRange::Full}};
constexpr size_t kRowAligns[] = {1, 64, 256};

struct Size {
  int w, h;
};
const Size kRefSizes[] = {{1, 1}, {2, 3}, {5, 3}, {1921, 1081}};

std::string describe(PixelFormat f, ColorSpace cs, int w, int h, const char* content) {
  return std::string(pixelFormatName(f)) + (cs.matrix == ColorMatrix::Bt709 ? " bt709" : " bt601") +
         (cs.range == ColorRange::Full ? " full " : " limited ") + std::to_string(w) + "x" + std::to_string(h) +
         " " + content;
}

// ---- plain double-precision reference ----------------------------------------------

void weights(ColorSpace cs, double& kr, double& kb) {
  kr = cs.matrix == ColorMatrix::Bt709 ? 0.2126 : 0.299;
  kb = cs.matrix == ColorMatrix::Bt709 ? 0.0722 : 0.114;
}
int roundClamp(double v) { return int(std::floor(std::clamp(v, 0.0, 255.0) + 0.5)); }

uchar4 refYuv(ColorSpace cs, int Y, int U, int V) {
  double kr, kb;
  weights(cs, kr, kb);
  const double kg = 1 - kr - kb;
  const bool lim = cs.range == ColorRange::Limited;
  const double y = lim ? (Y - 16) * 255.0 / 219.0 : Y;
  const double u = lim ? (U - 128) * 255.0 / 224.0 : U - 128.0, v = lim ? (V - 128) * 255.0 / 224.0 : V - 128.0;
  return make_uchar4(uint8_t(roundClamp(y + 2 * (1 - kr) * v)),
                     uint8_t(roundClamp(y - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v)),
                     uint8_t(roundClamp(y + 2 * (1 - kb) * u)), 255);
}

// Unrounded Y, U, V of one RGB pixel.
void refRgbToYuv(ColorSpace cs, double r, double g, double b, double& y, double& u, double& v) {
  double kr, kb;
  weights(cs, kr, kb);
  const double l = kr * r + (1 - kr - kb) * g + kb * b;
  const bool lim = cs.range == ColorRange::Limited;
  y = lim ? 16 + l * 219.0 / 255.0 : l;
  u = 128 + (lim ? 224.0 / 255.0 : 1.0) * (b - l) / (2 * (1 - kb));
  v = 128 + (lim ? 224.0 / 255.0 : 1.0) * (r - l) / (2 * (1 - kr));
}

// A frame of bytes laid out as `layout`.
struct Frame {
  FrameLayout layout;
  std::vector<uint8_t> bytes;
  const uint8_t* plane(int p) const { return bytes.data() + layout.plane[p].offset; }
  uint8_t* plane(int p) { return bytes.data() + layout.plane[p].offset; }
  const uint8_t* at(int p, int x, int y) const { return plane(p) + y * layout.plane[p].pitch + x; }
  PlanarView view() const { return planarView(layout, bytes.data()); }
};

// Chroma siting: pixel (x, y) uses chroma sample (x/2, y/2) for 4:2:0, (x/2, y) for 4:2:2.
HostImage refToRgba(const Frame& f, ColorSpace cs) {
  HostImage out(f.layout.width, f.layout.height);
  const bool lim = cs.range == ColorRange::Limited;
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      const int Y = *f.at(0, x, y);
      uchar4& o = out.at(x, y);
      switch (f.layout.format) {
        case PixelFormat::Yuv420p: o = refYuv(cs, Y, *f.at(1, x / 2, y / 2), *f.at(2, x / 2, y / 2)); break;
        case PixelFormat::Nv12: o = refYuv(cs, Y, f.at(1, x / 2 * 2, y / 2)[0], f.at(1, x / 2 * 2, y / 2)[1]); break;
        case PixelFormat::Yuv422p: o = refYuv(cs, Y, *f.at(1, x / 2, y), *f.at(2, x / 2, y)); break;
        case PixelFormat::Yuv444p: o = refYuv(cs, Y, *f.at(1, x, y), *f.at(2, x, y)); break;
        case PixelFormat::Yuyv422: {
          const uint8_t* q = f.at(0, x / 2 * 4, y);
          o = refYuv(cs, q[x % 2 * 2], q[1], q[3]);
          break;
        }
        case PixelFormat::Gray: {
          const uint8_t g = uint8_t(roundClamp(lim ? (Y - 16) * 255.0 / 219.0 : Y));
          o = make_uchar4(g, g, g, 255);
          break;
        }
        case PixelFormat::Rgb24: { const uint8_t* q = f.at(0, 3 * x, y); o = make_uchar4(q[0], q[1], q[2], 255); break; }
        case PixelFormat::Bgr24: { const uint8_t* q = f.at(0, 3 * x, y); o = make_uchar4(q[2], q[1], q[0], 255); break; }
        case PixelFormat::Rgba: { const uint8_t* q = f.at(0, 4 * x, y); o = make_uchar4(q[0], q[1], q[2], q[3]); break; }
        case PixelFormat::Bgra: { const uint8_t* q = f.at(0, 4 * x, y); o = make_uchar4(q[2], q[1], q[0], q[3]); break; }
        default: ADD_FAILURE() << "10-bit formats: test_color_convert_deep.cpp"; return out;
      }
    }
  return out;
}

// ---- inputs ------------------------------------------------------------------------

Frame randomFrame(PixelFormat f, int w, int h, uint64_t seed) {
  Frame fr{frameLayout(f, w, h), {}};
  fr.bytes = test::randomBytes(fr.layout.bytes, seed);
  return fr;
}

// Natural content: makeNatural RGB, converted with the double formula; subsampled chroma
// is taken from the top-left pixel of its block.
Frame naturalFrame(PixelFormat f, int w, int h, ColorSpace cs) {
  const HostImage rgb = test::makeNatural(w, h, 17);
  Frame fr{frameLayout(f, w, h), {}};
  fr.bytes.assign(fr.layout.bytes, 0);
  auto yuvAt = [&](int x, int y, int& Y, int& U, int& V) {
    const uchar4 p = rgb.at(x, y);
    double yy, uu, vv;
    refRgbToYuv(cs, p.x, p.y, p.z, yy, uu, vv);
    Y = roundClamp(yy), U = roundClamp(uu), V = roundClamp(vv);
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int Y, U, V, cu, cv, unused;
      yuvAt(x, y, Y, U, V);
      const int sx = x / 2 * 2, sy = y / 2 * 2;
      auto put = [&](int p, int bx, int by, int v) { fr.plane(p)[by * fr.layout.plane[p].pitch + bx] = uint8_t(v); };
      const uchar4 q = rgb.at(x, y);
      switch (f) {
        case PixelFormat::Yuv420p:
        case PixelFormat::Nv12:
          put(0, x, y, Y);
          if (x == sx && y == sy) {
            yuvAt(sx, sy, unused, cu, cv);
            if (f == PixelFormat::Nv12) put(1, x, y / 2, cu), put(1, x + 1, y / 2, cv);
            else put(1, x / 2, y / 2, cu), put(2, x / 2, y / 2, cv);
          }
          break;
        case PixelFormat::Yuv422p: put(0, x, y, Y); if (x == sx) put(1, x / 2, y, U), put(2, x / 2, y, V); break;
        case PixelFormat::Yuv444p: put(0, x, y, Y), put(1, x, y, U), put(2, x, y, V); break;
        case PixelFormat::Yuyv422:
          put(0, x / 2 * 4 + x % 2 * 2, y, Y);
          if (x == sx) put(0, x * 2 + 1, y, U), put(0, x * 2 + 3, y, V);
          break;
        case PixelFormat::Gray: put(0, x, y, Y); break;
        case PixelFormat::Rgb24: put(0, 3 * x, y, q.x), put(0, 3 * x + 1, y, q.y), put(0, 3 * x + 2, y, q.z); break;
        case PixelFormat::Bgr24: put(0, 3 * x, y, q.z), put(0, 3 * x + 1, y, q.y), put(0, 3 * x + 2, y, q.x); break;
        case PixelFormat::Rgba: for (int c = 0; c < 4; ++c) put(0, 4 * x + c, y, (&q.x)[c]); break;
        case PixelFormat::Bgra:
          put(0, 4 * x, y, q.z), put(0, 4 * x + 1, y, q.y), put(0, 4 * x + 2, y, q.x), put(0, 4 * x + 3, y, 200);
          break;
        default: ADD_FAILURE() << "10-bit formats: test_color_convert_deep.cpp"; return fr;
      }
    }
  return fr;
}

// The same frame in the layout of frameLayout(format, w, h, rowAlign); padding poisoned.
Frame repack(const Frame& tight, size_t rowAlign) {
  Frame fr{frameLayout(tight.layout.format, tight.layout.width, tight.layout.height, rowAlign), {}};
  fr.bytes.assign(fr.layout.bytes, test::kPoison);
  for (int p = 0; p < fr.layout.planes; ++p)
    for (int y = 0; y < fr.layout.plane[p].rows; ++y)
      std::memcpy(fr.plane(p) + y * fr.layout.plane[p].pitch, tight.at(p, 0, y), fr.layout.plane[p].widthBytes);
  return fr;
}

HostImage cpuToRgba(const Frame& f, ColorSpace cs) {
  HostImage out(f.layout.width, f.layout.height);
  test::poison(out);
  convertToRgbaCpu(f.view(), out.view(), cs);
  return out;
}

// ---- forward: CPU twin vs the double reference ---------------------------------------

TEST(ColorConvertCpu, ToRgbaWithinOneLevelOfDoubleReference) {
  for (const Size s : kRefSizes)
    for (PixelFormat f : kFormats)
      for (ColorSpace cs : kSpaces) {
        const Frame frames[2] = {randomFrame(f, s.w, s.h, 1000 + s.w), naturalFrame(f, s.w, s.h, cs)};
        for (int k = 0; k < 2; ++k) {
          SCOPED_TRACE(describe(f, cs, s.w, s.h, k ? "natural" : "random"));
          EXPECT_LE(test::maxRgbDiff(cpuToRgba(frames[k], cs), refToRgba(frames[k], cs)), kRefTolerance);
        }
      }
}

TEST(ColorConvertCpu, RgbFormatsAndFullRangeGrayAreExactCopies) {
  for (PixelFormat f : {PixelFormat::Gray, PixelFormat::Rgb24, PixelFormat::Bgr24, PixelFormat::Rgba,
                        PixelFormat::Bgra}) {
    const Frame fr = randomFrame(f, 33, 7, 5);
    const ColorSpace full{ColorMatrix::Bt709, ColorRange::Full};
    EXPECT_EQ(test::maxRgbDiff(cpuToRgba(fr, full), refToRgba(fr, full)), 0) << pixelFormatName(f);
  }
}

// ---- forward: GPU vs CPU twin, exact ------------------------------------------------

std::string sizeName(const ::testing::TestParamInfo<Size>& i) {
  return std::to_string(i.param.w) + "x" + std::to_string(i.param.h);
}
const Size kGpuSizes[] = {{1, 1}, {2, 3}, {5, 3}, {8, 2}, {37, 17}, {1920, 1080}, {1921, 1081}};

HostImage downloadView(const RgbaView& v) {
  HostImage h(v.width, v.height);
  VP_CUDA_CHECK(cudaMemcpy2D(h.data(), h.pitch(), v.data, v.pitch, h.pitch(), h.height(), cudaMemcpyDeviceToHost));
  return h;
}

class ColorConvertGpuToRgba : public ::testing::TestWithParam<Size> {};

TEST_P(ColorConvertGpuToRgba, MatchesCpuTwinExactly) {
  VP_REQUIRE_GPU();
  const Size s = GetParam();
  Stream stream;
  DeviceImage out(s.w, s.h);
  DeviceImage wider(s.w + 1, s.h);  // viewed one pixel in: rows 4 bytes past 16-byte alignment
  const RgbaView shifted{wider.view().data + 1, wider.pitch(), s.w, s.h};
  for (PixelFormat f : kFormats)
    for (ColorSpace cs : kSpaces) {
      const Frame tights[2] = {randomFrame(f, s.w, s.h, 2000 + s.h), naturalFrame(f, s.w, s.h, cs)};
      for (int k = 0; k < 2; ++k) {
        const HostImage want = cpuToRgba(tights[k], cs);
        for (size_t align : kRowAligns) {
          SCOPED_TRACE(describe(f, cs, s.w, s.h, k ? "natural" : "random") + " rowAlign " + std::to_string(align));
          const Frame fr = repack(tights[k], align);
          ASSERT_EQ(test::compare(cpuToRgba(fr, cs), want).differing, 0u);
          DeviceBuffer dev(fr.bytes.size());
          VP_CUDA_CHECK(cudaMemcpy(dev.get(), fr.bytes.data(), fr.bytes.size(), cudaMemcpyHostToDevice));
          VP_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream copy vs the non-blocking stream below
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
          const test::ImageDiff e = test::compare(downloadView(shifted), want);
          EXPECT_EQ(e.differing, 0u) << "unaligned destination " << e.first;
        }
      }
    }
}
INSTANTIATE_TEST_SUITE_P(Sizes, ColorConvertGpuToRgba, ::testing::ValuesIn(kGpuSizes), sizeName);

// ---- inverse: RGBA -> yuv420p -----------------------------------------------------------

// Y rounded per pixel; U, V = rounded mean of the unrounded values of the block's existing pixels.
Frame refToYuv420p(const HostImage& rgb, ColorSpace cs) {
  const int w = rgb.width(), h = rgb.height();
  Frame fr{frameLayout(PixelFormat::Yuv420p, w, h), {}};
  fr.bytes.assign(fr.layout.bytes, 0);
  for (int cy = 0; cy < (h + 1) / 2; ++cy)
    for (int cx = 0; cx < (w + 1) / 2; ++cx) {
      double su = 0, sv = 0;
      int n = 0;
      for (int y = 2 * cy; y < std::min(h, 2 * cy + 2); ++y)
        for (int x = 2 * cx; x < std::min(w, 2 * cx + 2); ++x) {
          const uchar4 p = rgb.at(x, y);
          double Y, U, V;
          refRgbToYuv(cs, p.x, p.y, p.z, Y, U, V);
          fr.plane(0)[y * fr.layout.plane[0].pitch + x] = uint8_t(roundClamp(Y));
          su += U, sv += V, ++n;
        }
      fr.plane(1)[cy * fr.layout.plane[1].pitch + cx] = uint8_t(roundClamp(su / n));
      fr.plane(2)[cy * fr.layout.plane[2].pitch + cx] = uint8_t(roundClamp(sv / n));
    }
  return fr;
}

Frame cpuToYuv420p(const HostImage& rgb, ColorSpace cs, size_t rowAlign) {
  Frame fr{frameLayout(PixelFormat::Yuv420p, rgb.width(), rgb.height(), rowAlign), {}};
  fr.bytes.assign(fr.layout.bytes, test::kPoison);
  rgbaToYuv420pCpu(rgb.view(), fr.layout, fr.bytes.data(), cs);
  return fr;
}

// Max |difference| over the meaningful bytes of every plane; 1000 if padding was written.
int maxPlaneDiff(const Frame& a, const Frame& b) {
  int m = 0;
  for (int p = 0; p < a.layout.planes; ++p)
    for (int y = 0; y < a.layout.plane[p].rows; ++y)
      for (size_t x = 0; x < a.layout.plane[p].pitch; ++x) {
        const int va = *a.at(p, int(x), y);
        if (x >= a.layout.plane[p].widthBytes) m = va == test::kPoison ? m : 1000;
        else m = std::max(m, std::abs(va - *b.at(p, int(x), y)));
      }
  return m;
}

TEST(ColorConvertCpu, Yuv420pWithinOneLevelOfDoubleReference) {
  for (const Size s : kRefSizes)
    for (ColorSpace cs : kSpaces) {
      const HostImage inputs[2] = {test::makeRandom(s.w, s.h, 3000 + s.w), test::makeNatural(s.w, s.h, 23)};
      for (int k = 0; k < 2; ++k) {
        const Frame want = refToYuv420p(inputs[k], cs);
        for (size_t align : {size_t(1), size_t(64)}) {
          SCOPED_TRACE(describe(PixelFormat::Yuv420p, cs, s.w, s.h, k ? "natural" : "random"));
          EXPECT_LE(maxPlaneDiff(cpuToYuv420p(inputs[k], cs, align), want), kRefTolerance);
        }
      }
    }
}

// Natural content loses little: 4:2:0 averaging of smooth chroma plus two roundings.
// Bounds (stated up front, per channel): at 641x359 and 1921x1081 mean |error| <= 0.75 and
// max <= 8 levels (measured 0.36..0.51 and 3..6); at 161x91 the blob edges are a few pixels
// wide, so mean <= 1.5 and max <= 24 (measured ~1.0 and 14..16).
TEST(ColorConvertCpu, Yuv420pRoundTripOnNaturalContentIsClose) {
  const struct {
    Size size;
    double meanBound;
    int maxBound;
  } cases[] = {{{161, 91}, 1.5, 24}, {{641, 359}, 0.75, 8}, {{1921, 1081}, 0.75, 8}};
  for (const auto& c : cases)
    for (ColorSpace cs : kSpaces) {
      const Size s = c.size;
      SCOPED_TRACE(describe(PixelFormat::Yuv420p, cs, s.w, s.h, "natural round trip"));
      const HostImage rgb = test::makeNatural(s.w, s.h, 29);
      const HostImage back = cpuToRgba(cpuToYuv420p(rgb, cs, 1), cs);
      double sum = 0;
      int worst = 0;
      for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
          const uchar4 p = rgb.at(x, y), q = back.at(x, y);
          for (int d : {p.x - q.x, p.y - q.y, p.z - q.z}) sum += std::abs(d), worst = std::max(worst, std::abs(d));
          ASSERT_EQ(q.w, 255);
        }
      EXPECT_LE(sum / (3.0 * s.w * s.h), c.meanBound);
      EXPECT_LE(worst, c.maxBound);
    }
}

class ColorConvertGpuToYuv420p : public ::testing::TestWithParam<Size> {};

TEST_P(ColorConvertGpuToYuv420p, MatchesCpuTwinExactly) {
  VP_REQUIRE_GPU();
  const Size s = GetParam();
  Stream stream;
  DeviceImage in(s.w, s.h), wider(s.w + 1, s.h);
  const ConstRgbaView shifted{wider.view().data + 1, wider.pitch(), s.w, s.h};  // not 16-byte aligned
  for (ColorSpace cs : kSpaces)
    for (int k = 0; k < 2; ++k) {
      const HostImage rgb = k ? test::makeNatural(s.w, s.h, 31) : test::makeRandom(s.w, s.h, 4000 + s.w);
      test::upload(rgb, in);
      VP_CUDA_CHECK(cudaMemcpy2D(wider.view().data + 1, shifted.pitch, rgb.data(), rgb.pitch(), rgb.pitch(), s.h,
                                 cudaMemcpyHostToDevice));
      for (size_t align : kRowAligns)
        for (const ConstRgbaView& src : {ConstRgbaView(in.view()), shifted}) {
          SCOPED_TRACE(describe(PixelFormat::Yuv420p, cs, s.w, s.h, k ? "natural" : "random") + " rowAlign " +
                       std::to_string(align) + (src.data == shifted.data ? " unaligned source" : ""));
          const Frame want = cpuToYuv420p(rgb, cs, align);
          DeviceBuffer dev(want.bytes.size());
          VP_CUDA_CHECK(cudaMemset(dev.get(), test::kPoison, want.bytes.size()));
          VP_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream memset vs the non-blocking stream below
          rgbaToYuv420pGpu(src, want.layout, dev.get(), cs, stream);
          stream.synchronize();
          std::vector<uint8_t> got(want.bytes.size());
          VP_CUDA_CHECK(cudaMemcpy(got.data(), dev.get(), got.size(), cudaMemcpyDeviceToHost));
          size_t firstDiff = 0;
          while (firstDiff < got.size() && got[firstDiff] == want.bytes[firstDiff]) ++firstDiff;
          EXPECT_EQ(firstDiff, got.size()) << "first differing byte (padding included)";
        }
    }
}
INSTANTIATE_TEST_SUITE_P(Sizes, ColorConvertGpuToYuv420p, ::testing::ValuesIn(kGpuSizes), sizeName);

// ---- RGBA -> packed RGB24 (the processors' output) ---------------------------------------

TEST(ColorConvertCpu, Rgb24PackingDropsAlphaOnly) {
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{7, 3}, std::pair{64, 2}}) {
    const HostImage img = test::makeRandom(w, h, 77 + uint64_t(w));
    const size_t pitch = size_t(w) * 3 + 5;  // padding untouched
    std::vector<uint8_t> out(pitch * h, test::kPoison);
    rgbaToRgb24Cpu(img.view(), out.data(), pitch);
    const std::vector<uint8_t> want = test::packRgb(img);
    for (int y = 0; y < h; ++y) {
      EXPECT_EQ(std::memcmp(&out[pitch * y], &want[size_t(w) * 3 * y], size_t(w) * 3), 0) << "row " << y;
      for (size_t i = size_t(w) * 3; i < pitch; ++i) EXPECT_EQ(out[pitch * y + i], test::kPoison);
    }
  }
}

class ColorConvertGpuToRgb24 : public ::testing::TestWithParam<Size> {};

TEST_P(ColorConvertGpuToRgb24, MatchesCpuTwinExactly) {
  VP_REQUIRE_GPU();
  const Size s = GetParam();
  Stream stream;
  const HostImage img = test::makeRandom(s.w, s.h, 5000 + uint64_t(s.w));
  DeviceImage in(s.w, s.h), wider(s.w + 1, s.h);
  test::upload(img, in);
  const ConstRgbaView shifted{wider.view().data + 1, wider.pitch(), s.w, s.h};  // not 16-byte aligned
  VP_CUDA_CHECK(cudaMemcpy2D(wider.view().data + 1, shifted.pitch, img.data(), img.pitch(), img.pitch(), s.h,
                             cudaMemcpyHostToDevice));
  // Tight (aligned rows only when w % 4 == 0), 4-aligned padded, and odd padded pitches.
  for (size_t pitch : {size_t(s.w) * 3, (size_t(s.w) * 3 + 7) / 4 * 4 + 4, size_t(s.w) * 3 + 1})
    for (const ConstRgbaView& src : {ConstRgbaView(in.view()), shifted}) {
      SCOPED_TRACE(std::to_string(s.w) + "x" + std::to_string(s.h) + " pitch " + std::to_string(pitch) +
                   (src.data == shifted.data ? " unaligned source" : ""));
      std::vector<uint8_t> want(pitch * s.h, test::kPoison);
      rgbaToRgb24Cpu(img.view(), want.data(), pitch);
      DeviceBuffer dev(want.size());
      VP_CUDA_CHECK(cudaMemset(dev.get(), test::kPoison, want.size()));
      VP_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream memset vs the non-blocking stream below
      rgbaToRgb24Gpu(src, dev.as<uint8_t>(), pitch, stream);
      stream.synchronize();
      std::vector<uint8_t> got(want.size());
      VP_CUDA_CHECK(cudaMemcpy(got.data(), dev.get(), got.size(), cudaMemcpyDeviceToHost));
      EXPECT_EQ(got, want);
    }
}
INSTANTIATE_TEST_SUITE_P(Sizes, ColorConvertGpuToRgb24, ::testing::ValuesIn(kGpuSizes), sizeName);

// ---- argument checks (they precede any CUDA call: no device needed) --------------------

TEST(ColorConvert, RejectsBadArguments) {
  const ColorSpace cs{};
  const Frame fr = randomFrame(PixelFormat::Yuv420p, 8, 4, 1);
  HostImage out(8, 4), small(7, 4);
  const auto bad = [&](PlanarView v, RgbaView d) {
    EXPECT_THROW(convertToRgbaCpu(v, d, cs), std::invalid_argument);
    EXPECT_THROW(convertToRgbaGpu(v, d, cs, nullptr), std::invalid_argument);
  };
  bad(fr.view(), small.view());  // size mismatch
  PlanarView v = fr.view();
  v.data[2] = nullptr;  // null plane
  bad(v, out.view());
  v = fr.view();
  v.pitch[0] = 7;  // pitch below the row width
  bad(v, out.view());
  v = fr.view();
  v.format = PixelFormat::Rgba;  // planes too narrow for the claimed format
  bad(v, out.view());
  bad(fr.view(), RgbaView{nullptr, out.pitch(), 8, 4});
  bad(fr.view(), RgbaView{out.data(), 16, 8, 4});
  v.width = v.height = 0;
  bad(v, RgbaView{out.data(), out.pitch(), 0, 0});

  std::vector<uint8_t> planes(frameLayout(PixelFormat::Yuv420p, 8, 4).bytes);
  const auto badInv = [&](ConstRgbaView s, const FrameLayout& l, void* base) {
    EXPECT_THROW(rgbaToYuv420pCpu(s, l, base, cs), std::invalid_argument);
    EXPECT_THROW(rgbaToYuv420pGpu(s, l, base, cs, nullptr), std::invalid_argument);
  };
  badInv(out.view(), frameLayout(PixelFormat::Nv12, 8, 4), planes.data());     // wrong format
  badInv(out.view(), frameLayout(PixelFormat::Yuv420p, 8, 6), planes.data());  // size mismatch
  badInv(out.view(), frameLayout(PixelFormat::Yuv420p, 8, 4), nullptr);        // null destination
  badInv(ConstRgbaView{nullptr, out.pitch(), 8, 4}, frameLayout(PixelFormat::Yuv420p, 8, 4), planes.data());
  EXPECT_NO_THROW(rgbaToYuv420pCpu(out.view(), frameLayout(PixelFormat::Yuv420p, 8, 4), planes.data(), cs));

  std::vector<uint8_t> rgb(8 * 4 * 3);
  const auto badPack = [&](ConstRgbaView s, uint8_t* d, size_t pitch) {
    EXPECT_THROW(rgbaToRgb24Cpu(s, d, pitch), std::invalid_argument);
    EXPECT_THROW(rgbaToRgb24Gpu(s, d, pitch, nullptr), std::invalid_argument);
  };
  badPack(out.view(), rgb.data(), 23);    // pitch below width * 3
  badPack(out.view(), nullptr, 24);       // null destination
  badPack(ConstRgbaView{nullptr, out.pitch(), 8, 4}, rgb.data(), 24);
  badPack(ConstRgbaView{out.data(), 31, 8, 4}, rgb.data(), 24);  // source pitch below width * 4
  badPack(ConstRgbaView{out.data(), out.pitch(), 0, 4}, rgb.data(), 24);
  EXPECT_NO_THROW(rgbaToRgb24Cpu(out.view(), rgb.data(), 24));
  EXPECT_NO_THROW(convertToRgbaCpu(fr.view(), out.view(), cs));
}

}  // namespace
}  // namespace vp
