// FfmpegSource on clips encoded by the test itself: formats and pixels, B-frames, stream
// info, colour fields and matrices, deep YUV.
#include "io/video/color_report.h"
#include "io/video/pixel_format_map.h"
#include "io/video/rotate.h"
#include "io/source.h"
#include "support/source_test_util.h"
#include "support/clips.h"
#include "support/images.h"

#include <gtest/gtest.h>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <thread>

namespace vp {
namespace {

using test::ClipSpec;
using test::DecodedClip;
using test::diff;
using test::Diff;
using test::expectSourceError;
using test::file;
using test::firstFresh;
using test::ptsOf;

struct FormatCase {
  const char* name;
  const char* codec;
  const char* pixFmt;
  const char* ext;
  int width, height, fps;
  PixelFormat expected;
  ColorRange range;
  const char* comparePixFmt;  // what to compare the decoded planes with
  int maxError;               // 0 = exact
  double maxMeanError;
};

void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.name; }

// yuyv422 of an odd width carries one Y sample past the right edge in every
// row: not part of the picture, codecs need not keep it.
void clearYuyvPadding(std::vector<uint8_t>& data, const FrameLayout& l) {
  if (l.format != PixelFormat::Yuyv422 || l.width % 2 == 0) return;
  for (int y = 0; y < l.height; ++y) data[l.plane[0].offset + size_t(y) * l.plane[0].pitch + l.plane[0].widthBytes - 2] = 0;
}

class SourceFormats : public ::testing::TestWithParam<FormatCase> {};

TEST_P(SourceFormats, FramesTimingLayoutAndPixels) {
  const FormatCase& c = GetParam();
  test::Watchdog dog(60, c.name);
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = c.codec;
  spec.pixFmt = c.pixFmt;
  spec.width = c.width;
  spec.height = c.height;
  spec.fps = c.fps;
  spec.frames = 8;
  const std::string path = test::makeClip(dir.file(std::string("clip.") + c.ext), spec);

  const DecodedClip d = test::decodeAll(path);
  EXPECT_TRUE(d.endOfStream);
  EXPECT_TRUE(d.fatalError.empty()) << d.fatalError;
  EXPECT_EQ(d.stats.decodeErrors, 0);
  EXPECT_EQ(d.stats.framesDecoded, spec.frames);
  EXPECT_EQ(d.info.width, c.width);
  EXPECT_EQ(d.info.height, c.height);
  EXPECT_NEAR(d.info.fps, c.fps, 0.01);
  EXPECT_TRUE(d.info.seekable);
  ASSERT_EQ(int(d.frames.size()), spec.frames);
  for (int i = 0; i < spec.frames; ++i) {
    const FrameInfo& f = d.frames[size_t(i)].info;
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(f.index, i);
    EXPECT_EQ(f.serial, 0u);
    EXPECT_NEAR(double(f.ptsUs), double(ptsOf(i, c.fps)), 1.0);
    EXPECT_NEAR(double(f.durationUs), 1e6 / c.fps, 1.0);
    EXPECT_EQ(f.layout.format, c.expected);
    EXPECT_EQ(f.layout.width, c.width);
    EXPECT_EQ(f.layout.height, c.height);
    const FrameLayout want = frameLayout(c.expected, c.width, c.height);
    EXPECT_EQ(f.layout.bytes, want.bytes);
    for (int p = 0; p < want.planes; ++p) {
      EXPECT_EQ(f.layout.plane[p].offset, want.plane[p].offset);
      EXPECT_EQ(f.layout.plane[p].pitch, want.plane[p].widthBytes);  // tightly packed
    }
    EXPECT_EQ(f.color.range, c.range);
    EXPECT_EQ(f.color.matrix, ColorMatrix::Bt601);
    std::vector<uint8_t> expected = test::clipFrameRaw(spec, i, c.comparePixFmt), got = d.frames[size_t(i)].data;
    clearYuyvPadding(expected, want);
    clearYuyvPadding(got, want);
    const Diff e = diff(got, expected);
    EXPECT_LE(e.max, c.maxError);
    EXPECT_LE(e.mean, c.maxMeanError);
  }
}

constexpr ColorRange kLim = ColorRange::Limited, kFull = ColorRange::Full;
INSTANTIATE_TEST_SUITE_P(
    Clips, SourceFormats,
    ::testing::Values(
        FormatCase{"ffv1_yuv420p", "ffv1", "yuv420p", "mkv", 64, 48, 25, PixelFormat::Yuv420p, kLim, "", 0,
                   0},
        FormatCase{"ffv1_yuv420p_odd", "ffv1", "yuv420p", "nut", 33, 17, 30, PixelFormat::Yuv420p, kLim, "",
                   0, 0},
        FormatCase{"ffv1_yuv422p", "ffv1", "yuv422p", "mkv", 64, 48, 25, PixelFormat::Yuv422p, kLim, "", 0,
                   0},
        FormatCase{"ffv1_yuv444p", "ffv1", "yuv444p", "mkv", 33, 17, 25, PixelFormat::Yuv444p, kLim, "", 0,
                   0},
        FormatCase{"ffv1_gray", "ffv1", "gray", "mkv", 33, 17, 25, PixelFormat::Gray, kFull, "", 0, 0},
        FormatCase{"ffv1_yuv420p10le", "ffv1", "yuv420p10le", "mkv", 64, 48, 25, PixelFormat::Yuv420p10, kLim,
                   "", 0, 0},
        FormatCase{"ffv1_yuv422p10le_odd", "ffv1", "yuv422p10le", "mkv", 33, 17, 25, PixelFormat::Yuv422p10, kLim,
                   "", 0, 0},
        FormatCase{"ffv1_yuv444p10le", "ffv1", "yuv444p10le", "mkv", 64, 48, 25, PixelFormat::Yuv444p10, kLim,
                   "", 0, 0},

        FormatCase{"raw_yuyv422_odd", "rawvideo", "yuyv422", "nut", 33, 17, 30, PixelFormat::Yuyv422, kLim,
                   "", 0, 0},
        FormatCase{"raw_nv12", "rawvideo", "nv12", "nut", 64, 48, 30, PixelFormat::Nv12, kLim, "", 0, 0},
        FormatCase{"raw_rgb24_odd", "rawvideo", "rgb24", "nut", 33, 17, 30, PixelFormat::Rgb24, kFull, "", 0,
                   0},
        FormatCase{"raw_bgr24", "rawvideo", "bgr24", "nut", 64, 48, 30, PixelFormat::Bgr24, kFull, "", 0, 0},
        FormatCase{"raw_rgba", "rawvideo", "rgba", "nut", 64, 48, 30, PixelFormat::Rgba, kFull, "", 0, 0},
        FormatCase{"raw_yuv420p_odd", "rawvideo", "yuv420p", "nut", 33, 17, 30, PixelFormat::Yuv420p, kLim,
                   "", 0, 0},
        FormatCase{"x264_yuv420p", "libx264", "yuv420p", "mp4", 64, 48, 30, PixelFormat::Yuv420p, kLim, "",
                   40, 2.0},
        FormatCase{"mjpeg_yuvj420p_odd", "mjpeg", "yuv420p", "avi", 33, 17, 25, PixelFormat::Yuv420p, kFull,
                   "", 48, 2.5},
        FormatCase{"mjpeg_yuvj422p_mkv", "mjpeg", "yuv422p", "mkv", 40, 30, 25, PixelFormat::Yuv422p, kFull,
                   "", 48, 2.5},
        FormatCase{"mpeg4_yuv420p", "mpeg4", "yuv420p", "avi", 64, 48, 25, PixelFormat::Yuv420p, kLim, "", 48,
                   2.5}),
    [](const ::testing::TestParamInfo<FormatCase>& i) { return std::string(i.param.name); });

// B-frames: decode order differs from presentation order; frames come out in
// presentation order with the right pts in every container.
TEST(Source, BFramesComeOutInPresentationOrder) {
  test::TempDir dir;
  for (const auto& [ext, fps] : {std::pair{"mp4", 30}, std::pair{"mkv", 25}, std::pair{"ts", 30}, std::pair{"mov", 24}}) {
    SCOPED_TRACE(ext);
    ClipSpec spec;
    spec.codec = "libx264";
    spec.preset = "medium";  // B-frames
    spec.frames = 20;
    spec.fps = fps;
    const DecodedClip d = test::decodeAll(test::makeClip(dir.file(std::string("b.") + ext), spec));
    ASSERT_EQ(d.frames.size(), 20u);
    for (int i = 0; i < 20; ++i) {
      EXPECT_NEAR(double(d.frames[size_t(i)].info.ptsUs), double(ptsOf(i, fps)), 1.0) << "frame " << i;
      EXPECT_LE(diff(d.frames[size_t(i)].data, test::clipFrameRaw(spec, i)).mean, 2.0) << "frame " << i;
    }
  }
}

TEST(Source, InfoDescribesTheStream) {
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = "libx264";
  spec.width = 96;
  spec.height = 64;
  spec.frames = 20;
  spec.fps = 25;
  const std::string path = test::makeClip(dir.file("info.mp4"), spec);
  std::unique_ptr<Source> src = openSource(file(path));
  const SourceInfo info = src->info();
  EXPECT_EQ(info.url, path);
  EXPECT_EQ(info.codec, "h264");
  EXPECT_EQ(info.pixelFormat, "yuv420p");
  EXPECT_EQ(info.width, 96);
  EXPECT_EQ(info.height, 64);
  EXPECT_NEAR(info.fps, 25, 0.01);
  EXPECT_NEAR(double(info.durationUs), 800000, 1000);
  EXPECT_TRUE(info.seekable);
  EXPECT_TRUE(src->fatalError().empty());
  EXPECT_EQ(src->stats().framesDecoded, 0);
}

// Resolution changes mid-stream: frames simply arrive with the new layout.
TEST(Source, OutOfRangeColourFieldsFromTheStreamAreUnspecified) {
  av::FramePtr f = av::makeFrame();
  f->format = AV_PIX_FMT_YUV420P;
  const int matrix = 126, range = 77;
  std::memcpy(&f->colorspace, &matrix, sizeof matrix);
  std::memcpy(&f->color_range, &range, sizeof range);
  av::NativeFormat native;
  ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_YUV420P, native));
  const ColorSpace c = av::frameColorSpace(*f, native);
  EXPECT_EQ(c.matrix, ColorMatrix::Bt601);
  EXPECT_EQ(c.range, ColorRange::Limited);
  const int bt709 = AVCOL_SPC_BT709, full = AVCOL_RANGE_JPEG;
  std::memcpy(&f->colorspace, &bt709, sizeof bt709);
  std::memcpy(&f->color_range, &full, sizeof full);
  EXPECT_EQ(av::frameColorSpace(*f, native).matrix, ColorMatrix::Bt709);
  EXPECT_EQ(av::frameColorSpace(*f, native).range, ColorRange::Full);
}

// Matrices: tagged ones as they are, BT.2020 NCL read as such, close relatives
// approximated, unspecified and unsupported ones guessed from the frame size as
// players do (HD -> BT.709, SD -> BT.601).
TEST(Source, ColourMatrixFromTheFrameOrGuessedFromItsSize) {
  av::FramePtr f = av::makeFrame();
  f->format = AV_PIX_FMT_YUV420P10LE;
  struct Case {
    AVColorSpace tag;
    int w, h;
    ColorMatrix want;
    av::MatrixChoice::How how;
  };
  using M = av::MatrixChoice;
  for (const Case& c : {Case{AVCOL_SPC_BT709, 640, 480, ColorMatrix::Bt709, M::Tagged},
                        Case{AVCOL_SPC_SMPTE170M, 1920, 1080, ColorMatrix::Bt601, M::Tagged},
                        Case{AVCOL_SPC_BT470BG, 1920, 1080, ColorMatrix::Bt601, M::Tagged},
                        Case{AVCOL_SPC_BT2020_NCL, 3840, 2160, ColorMatrix::Bt2020, M::Tagged},
                        Case{AVCOL_SPC_BT2020_CL, 3840, 2160, ColorMatrix::Bt2020, M::Approximated},
                        Case{AVCOL_SPC_UNSPECIFIED, 1920, 1080, ColorMatrix::Bt709, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 1280, 720, ColorMatrix::Bt709, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 720, 576, ColorMatrix::Bt601, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 1024, 768, ColorMatrix::Bt709, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 64, 48, ColorMatrix::Bt601, M::Guessed},
                        Case{AVCOL_SPC_YCGCO, 1920, 1080, ColorMatrix::Bt709, M::Unsupported},
                        Case{AVCOL_SPC_ICTCP, 720, 480, ColorMatrix::Bt601, M::Unsupported}}) {
    f->colorspace = c.tag;
    f->width = c.w;
    f->height = c.h;
    SCOPED_TRACE(std::string(av_color_space_name(c.tag)) + " " + std::to_string(c.w) + "x" + std::to_string(c.h));
    const av::MatrixChoice m = av::frameMatrix(*f);
    EXPECT_EQ(m.matrix, c.want);
    EXPECT_EQ(m.how, c.how);
    av::NativeFormat native;
    ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_YUV420P10LE, native));
    EXPECT_EQ(av::frameColorSpace(*f, native).matrix, c.want);
  }
}

// Deeper YUV keeps 10 of its bits (swscale into the 10-bit layout), not 8.
TEST(Source, DeepYuvIsConvertedToTenBits) {
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV420P12LE), AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV422P12LE), AV_PIX_FMT_YUV422P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV444P16LE), AV_PIX_FMT_YUV444P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV420P10BE), AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV410P), AV_PIX_FMT_YUV420P);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_P016LE), AV_PIX_FMT_YUV420P10LE);
  // The 10-bit layouts themselves are native (no container here carries raw p010le,
  // so it is checked on the map alone).
  av::NativeFormat n;
  ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_P010LE, n));
  EXPECT_EQ(n.format, PixelFormat::P010);
  ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_YUV422P10LE, n));
  EXPECT_EQ(n.format, PixelFormat::Yuv422p10);
  EXPECT_FALSE(av::nativeFormat(AV_PIX_FMT_YUV420P10BE, n));
}

// The colour report names each guess, approximation and HDR transfer in its text.
TEST(Source, ColourReportDescribesGuessesAndHdr) {
  av::FramePtr f = av::makeFrame();
  f->format = AV_PIX_FMT_YUV420P;
  f->width = 1920;
  f->height = 1080;
  av::ColorReport report("clip");
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "bt709 (guessed: unspecified, 1920x1080)");
  EXPECT_EQ(report.hdrText(), "");
  EXPECT_FALSE(report.note(*f, av::frameMatrix(*f)));  // nothing new
  f->colorspace = AVCOL_SPC_BT2020_NCL;
  f->color_trc = AVCOL_TRC_SMPTE2084;
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "bt2020nc");
  EXPECT_EQ(report.hdrText(), "PQ (smpte2084), shown without tone mapping");
  f->color_trc = AVCOL_TRC_ARIB_STD_B67;
  f->colorspace = AVCOL_SPC_YCGCO;
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "bt709 (guessed: ycgco unsupported, 1920x1080)");
  EXPECT_EQ(report.hdrText(), "HLG (arib-std-b67), shown without tone mapping");
  f->format = AV_PIX_FMT_RGB24;  // no matrix for RGB
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "");
}

// An input read from memory gives exactly what the same file gives.
}  // namespace
}  // namespace vp
