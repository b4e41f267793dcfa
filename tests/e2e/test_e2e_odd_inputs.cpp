// Odd inputs that must work end to end through the real vidproc binary (CPU
// backend unless VP_E2E_BACKEND says otherwise): tiny and odd sizes, 10-bit,
// gray, 4:4:4, packed and RGB layouts, full-range MJPEG, rotated clips (shown
// upright), 8K and HDR (BT.2020 / PQ). Each output is lossless (ffv1) and equals the
// CPU twin of the processing applied to the source's own decoded frames, frame for frame.
#include "gpu/filters/blur/box_blur.h"
#include "gpu/color/color_convert.h"
#include "support/clips.h"
#include "support/run_program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern "C" {
#include <libavutil/pixfmt.h>
}

#include <cstdlib>
#include <fstream>

namespace vp {
namespace {

using test::backend;
using test::vidproc;

HostImage rgbaOf(const test::DecodedFrame& f) {
  const FrameLayout& l = f.info.layout;
  HostImage img(l.width, l.height);
  convertToRgbaCpu(planarView(l, f.data.data()), img.view(), f.info.color);
  return img;
}

// R, G, B equal everywhere (the lossless output stores no alpha).
::testing::AssertionResult sameRgb(const HostImage& got, const HostImage& want) {
  if (got.width() != want.width() || got.height() != want.height())
    return ::testing::AssertionFailure() << "size " << got.width() << "x" << got.height() << ", want "
                                         << want.width() << "x" << want.height();
  for (int y = 0; y < want.height(); ++y)
    for (int x = 0; x < want.width(); ++x) {
      const uchar4 a = got.at(x, y), b = want.at(x, y);
      if (a.x != b.x || a.y != b.y || a.z != b.z)
        return ::testing::AssertionFailure() << "differs at " << x << "," << y;
    }
  return ::testing::AssertionSuccess();
}

struct OddCase {
  const char* name;
  const char* codec;
  const char* pixFmt;
  const char* ext;
  int width, height, frames;
  int rotation;  // display matrix: clockwise degrees
  bool blur;     // blur r=1; false: mode none (8K, where the CPU twins are slow)
};
void PrintTo(const OddCase& c, std::ostream* os) { *os << c.name; }

class OddInputs : public ::testing::TestWithParam<OddCase> {};

TEST_P(OddInputs, ProcessLikeTheCpuTwin) {
  const OddCase& c = GetParam();
  test::TempDir dir;
  test::ClipSpec spec;
  spec.codec = c.codec;
  spec.pixFmt = c.pixFmt;
  spec.width = c.width;
  spec.height = c.height;
  spec.frames = c.frames;
  spec.rotation = c.rotation;
  const std::string in = test::makeClip(dir.file(std::string("in.") + c.ext), spec);
  const std::string out = dir.file("out.mkv"), json = dir.file("stats.json");
  // --hwdec auto: with the cuda backend, inputs NVDEC cannot take (2x2, 4:4:4, 8K H.264)
  // fall back to software with no error counted and nothing on stderr.
  std::vector<std::string> args = {"--headless", "--no-progress", "--backend", backend(), "--hwdec", "auto",
                                   in,           "--codec",       "ffv1",      "-o",      out,
                                   "--stats-json", json};
  for (const char* a : c.blur ? std::vector<const char*>{"--mode", "blur", "-r", "1", "--passes", "1",
                                                         "--border", "replicate"}
                              : std::vector<const char*>{"--mode", "none"})
    args.push_back(a);
  const test::ProgramRun r = test::runProgram(vidproc(), args, dir.path(), 300);
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
  std::ifstream f(json);
  const nlohmann::json stats = nlohmann::json::parse(f);
  EXPECT_EQ(stats["frames"]["processed"], c.frames);
  EXPECT_EQ(stats["frames"]["decode_errors"], 0);

  const test::DecodedClip src = test::decodeAll(in), dst = test::decodeAll(out);
  ASSERT_EQ(int(src.frames.size()), c.frames);
  ASSERT_EQ(int(dst.frames.size()), c.frames);
  const bool quarter = c.rotation == 90 || c.rotation == 270;
  const int w = quarter ? c.height : c.width, h = quarter ? c.width : c.height;  // upright
  BoxBlurCpuScratch scratch(w, h);
  for (size_t i = 0; i < src.frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(dst.frames[i].info.layout.width, w);
    EXPECT_EQ(dst.frames[i].info.layout.height, h);
    HostImage want = rgbaOf(src.frames[i]);
    if (c.blur) {
      HostImage blurred(w, h);
      boxBlurCpu(want.view(), blurred.view(), BlurParams{1, 1, BorderMode::Replicate}, scratch);
      want = std::move(blurred);
    }
    EXPECT_TRUE(sameRgb(rgbaOf(dst.frames[i]), want));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Clips, OddInputs,
    ::testing::Values(OddCase{"size_1x1_ffv1", "ffv1", "yuv420p", "nut", 1, 1, 3, 0,
                              true},  // libx264 refuses 1x1
                      OddCase{"size_2x2_x264", "libx264", "yuv420p", "mp4", 2, 2, 3, 0, true},
                      OddCase{"odd_1919x1079", "ffv1", "yuv420p", "mkv", 1919, 1079, 2, 0, true},
                      OddCase{"yuv420p10le_x264", "libx264", "yuv420p10le", "mp4", 34, 18, 4, 0, true},
                      OddCase{"yuv422p10le_ffv1", "ffv1", "yuv422p10le", "mkv", 33, 17, 4, 0, true},
                      OddCase{"gray_ffv1", "ffv1", "gray", "mkv", 15, 9, 4, 0, true},
                      OddCase{"yuv444p_ffv1", "ffv1", "yuv444p", "mkv", 33, 17, 4, 0, true},
                      OddCase{"yuv444p_x264", "libx264", "yuv444p", "mp4", 35, 19, 4, 0, true},
                      OddCase{"yuyv422_raw", "rawvideo", "yuyv422", "nut", 31, 9, 4, 0, true},
                      OddCase{"rgb24_raw", "rawvideo", "rgb24", "nut", 17, 5, 4, 0, true},
                      OddCase{"nv12_raw", "rawvideo", "nv12", "nut", 20, 11, 4, 0, true},
                      OddCase{"mjpeg_yuvj420p_avi", "mjpeg", "yuvj420p", "avi", 33, 17, 4, 0, true},
                      OddCase{"mjpeg_yuvj422p_mkv", "mjpeg", "yuvj422p", "mkv", 40, 30, 4, 0, true},
                      OddCase{"rotated_90_x264", "libx264", "yuv420p", "mp4", 34, 18, 3, 90, true},
                      OddCase{"rotated_180_png", "png", "rgb24", "mov", 21, 13, 3, 180, true},
                      OddCase{"rotated_270_mjpeg", "mjpeg", "yuvj422p", "mov", 33, 17, 3, 270, true},
                      OddCase{"uhd_8k_x264", "libx264", "yuv420p", "mp4", 7680, 4320, 2, 0, false}),
    [](const ::testing::TestParamInfo<OddCase>& i) { return std::string(i.param.name); });

// --no-autorotate keeps the stored picture.
TEST(OddInputsOptions, NoAutorotateKeepsTheStoredPicture) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.codec = "libx264";
  spec.width = 34;
  spec.height = 18;
  spec.frames = 2;
  spec.rotation = 90;
  const std::string in = test::makeClip(dir.file("in.mp4"), spec), out = dir.file("out.mkv");
  const test::ProgramRun r =
      test::runProgram(vidproc(),
                       {"--headless", "--no-progress", "--backend", backend(), in, "--mode", "none",
                        "--no-autorotate", "--codec", "ffv1", "-o", out},
                       dir.path(), 60);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const test::DecodedClip dst = test::decodeAll(out);
  ASSERT_EQ(dst.frames.size(), 2u);
  EXPECT_EQ(dst.frames[0].info.layout.width, 34);
  EXPECT_EQ(dst.frames[0].info.layout.height, 18);
}

// HDR camera footage: HEVC Main10 tagged BT.2020 / PQ. vidproc reads the BT.2020 matrix,
// says once that HDR is shown without tone mapping (log and stats), and its output equals
// the CPU twin's BT.2020 conversion of the decoded 10-bit frames.
TEST(HdrInputs, Bt2020PqIsNamedAndConvertedWithItsMatrix) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.codec = "libx265";
  spec.pixFmt = "yuv420p10le";
  spec.width = 66;
  spec.height = 38;
  spec.frames = 3;
  spec.colorspace = AVCOL_SPC_BT2020_NCL;
  spec.colorTrc = AVCOL_TRC_SMPTE2084;
  spec.colorPrimaries = AVCOL_PRI_BT2020;
  const std::string in = test::makeClip(dir.file("hdr.mkv"), spec);
  const std::string out = dir.file("out.mkv"), json = dir.file("stats.json");
  const test::ProgramRun r = test::runProgram(vidproc(),
                                              {"--headless", "--no-progress", "--backend", backend(), in, "--mode",
                                               "none", "--codec", "ffv1", "-o", out, "--stats-json", json},
                                              dir.path(), 120);
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  size_t notices = 0;  // the log's warning, once (the summary names it again)
  for (size_t at = r.out.find("HDR video (PQ)"); at != std::string::npos; at = r.out.find("HDR video (PQ)", at + 1))
    ++notices;
  EXPECT_EQ(notices, 1u) << r.out;
  std::ifstream f(json);
  const nlohmann::json stats = nlohmann::json::parse(f);
  EXPECT_EQ(stats["decode"]["matrix"], "bt2020nc");
  EXPECT_EQ(stats["decode"]["hdr"], "PQ (smpte2084), shown without tone mapping");

  const test::DecodedClip src = test::decodeAll(in), dst = test::decodeAll(out);
  ASSERT_EQ(src.frames.size(), 3u);
  ASSERT_EQ(dst.frames.size(), 3u);
  for (size_t i = 0; i < src.frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(src.frames[i].info.layout.format, PixelFormat::Yuv420p10);
    EXPECT_EQ(src.frames[i].info.color.matrix, ColorMatrix::Bt2020);
    EXPECT_TRUE(sameRgb(rgbaOf(dst.frames[i]), rgbaOf(src.frames[i])));
  }
}

}  // namespace
}  // namespace vp
