// The real vidproc binary checked against references outside the project: inputs encoded
// with libavcodec (support/clips.h makeClip, exact pattern frames) with explicit colour tags
// (matrix and range, so nothing rests on how an untagged clip is guessed), outputs decoded
// with FFmpeg's libraries directly (support/media_probe_video.h: as the ffmpeg program
// decodes them, not through the project's openSource) and pixels converted by the
// double-precision definitions of support/color_reference.h. The blur and K-means outputs
// are checked on that reference decode too (the blur's definition; a nearest colour for
// K-means). Inputs users have: colour tags (BT.709 with unspecified range among them),
// audio beside the video, variable frame rate, B-frames with seeks, interlaced video.
// Needs no ffmpeg / ffprobe program.
//
// Tolerances: lossless paths <= 1 level per channel (vidproc's 16-bit fixed-point
// conversion against the exact value, both rounded); the lossy H.264 output is checked
// per colour bar (means within 3 levels, see ColourBarsSurviveH264). Inputs that are
// lossy themselves (H.264) are compared with libavcodec's decode of the same bitstream.
#include "support/blur_reference.h"
#include "support/clips.h"
#include "support/color_reference.h"
#include "support/images.h"
#include "support/media_probe.h"
#include "support/media_probe_video.h"
#include "support/run_program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

extern "C" {
#include <libavutil/pixfmt.h>
}

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

namespace vp {
namespace {

using test::ref::Colour;
using test::ref::diffBytes;

constexpr Colour kBt709Tv{true, false};

// Frame i of the test pattern, yuv420p: gradients in Y, Cb and Cr that move with i (so
// neighbouring frames differ everywhere), odd rows shifted further (two fields of an
// interlaced frame show different moments), and i as 8 bits in the top rows: block b
// (width/8 wide) has luma 235 when bit b is set, else 16, chroma neutral.
std::vector<uint8_t> patternFrame(int w, int h, int i) {
  const int cw = (w + 1) / 2, ch = (h + 1) / 2, band = std::max(2, h / 6) & ~1;
  std::vector<uint8_t> f(size_t(w) * h + 2 * size_t(cw) * ch);
  uint8_t *y = f.data(), *u = y + size_t(w) * h, *v = u + size_t(cw) * ch;
  for (int r = 0; r < h; ++r)
    for (int x = 0; x < w; ++x) {
      const int shift = 3 * i + (r % 2) * 2 * i;
      int value = 30 + (200 * ((x + shift) % w)) / w + ((r * 37) % 9) - 4;
      if (r < band) value = (i >> std::min(7, x * 8 / w)) & 1 ? 235 : 16;
      y[size_t(r) * w + x] = uint8_t(std::clamp(value, 1, 254));
    }
  for (int r = 0; r < ch; ++r)
    for (int x = 0; x < cw; ++x) {
      const bool barcode = 2 * r < band;
      u[size_t(r) * cw + x] = barcode ? 128 : uint8_t(40 + (170 * ((x + 2 * i) % cw)) / cw);
      v[size_t(r) * cw + x] = barcode ? 128 : uint8_t(220 - (170 * ((r + i) % ch)) / ch);
    }
  return f;
}

// The frame index written by patternFrame, read back from rgb24 pixels.
int readIndex(const std::vector<uint8_t>& rgb, int w, int h) {
  const int band = std::max(2, h / 6) & ~1;
  int index = 0;
  for (int b = 0; b < 8; ++b) {
    const int x = (2 * b + 1) * w / 16, y = band / 2;
    if (rgb[(size_t(y) * w + x) * 3 + 1] > 128) index |= 1 << b;
  }
  return index;
}

// A makeClip spec for `codec` tagged BT.709, limited range (as -colorspace bt709 -color_range tv).
test::ClipSpec taggedSpec(const std::string& codec) {
  test::ClipSpec spec;
  spec.codec = codec;
  spec.colorspace = AVCOL_SPC_BT709;
  spec.colorRange = AVCOL_RANGE_MPEG;
  return spec;
}

// `path`'s first video stream decoded as rawvideo `pixFmt` (support/media_probe_video.h);
// every frame must have the first's size.
test::probe::DecodedVideo decode(const std::string& path, const std::string& pixFmt) {
  test::probe::DecodedVideo v = test::probe::decodeVideo(path, pixFmt);
  for (size_t i = 0; i < v.sizes.size(); ++i)
    if (v.sizes[i] != std::make_pair(v.width, v.height))
      throw std::runtime_error(path + ": frame " + std::to_string(i) + " changes the size");
  return v;
}

// An input and vidproc's output, both decoded by the reference reader: the input's reference RGB frames
// (its yuv420p decode, the double-precision conversion) and the output as rgb24.
struct ProcessedClip {
  int width = 0, height = 0;
  std::vector<std::vector<uint8_t>> input;
  std::vector<std::vector<uint8_t>> output;
};

struct E2ERef : ::testing::Test {
  test::TempDir dir;

  // Encodes `frames` pattern frames (w x h, yuv420p, `fps`) with makeClip as `spec` says
  // (codec, colour tags, audio, ...).
  std::string makeInput(const std::string& name, int w, int h, int frames, int fps, test::ClipSpec spec) {
    spec.width = w, spec.height = h, spec.frames = frames, spec.fps = fps;
    spec.pixFmt = "yuv420p";
    spec.rawFrames = [w, h](int i) { return patternFrame(w, h, i); };
    return test::makeClip(dir.file(name), spec);
  }

  // Runs vidproc with `args` on a lossless 67x45 BT.709 pattern clip, to a lossless file.
  void processClip(const std::vector<std::string>& args, ProcessedClip& c) {
    const std::string in = makeInput("in.mkv", 67, 45, 3, 25, taggedSpec("ffv1"));
    std::vector<std::string> all = {in, "--codec", "ffv1", "-o", dir.file("out.mkv")};
    all.insert(all.end(), args.begin(), args.end());
    const test::ProgramRun r = run(all);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    decodePair(in, dir.file("out.mkv"), kBt709Tv, c);
  }

  // Both files decoded by the reference reader (same frame count and size, else a fatal
  // failure).
  static void decodePair(const std::string& input, const std::string& output, Colour colour, ProcessedClip& c) {
    const test::probe::DecodedVideo src = decode(input, "yuv420p");
    const test::probe::DecodedVideo out = decode(output, "rgb24");
    ASSERT_EQ(out.width, src.width);
    ASSERT_EQ(out.height, src.height);
    ASSERT_EQ(out.frames.size(), src.frames.size());
    c.width = src.width;
    c.height = src.height;
    for (const auto& f : src.frames) c.input.push_back(test::ref::yuv420pToRgb24(f, c.width, c.height, colour));
    c.output = out.frames;
  }

  test::ProgramRun run(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--headless", "--no-progress", "--backend", test::backend()};
    all.insert(all.end(), args.begin(), args.end());
    return test::runProgram(test::vidproc(), all, dir.path(), 120);
  }

  // vidproc's processed frames (mode none) as rgb24 against the reference conversion of
  // the reference decode of the input: frame count, size and every pixel within 1 level.
  void expectFramesMatchInput(const std::string& input, const std::string& output, Colour colour) {
    ProcessedClip c;
    ASSERT_NO_FATAL_FAILURE(decodePair(input, output, colour, c));
    for (size_t i = 0; i < c.input.size(); ++i) {
      const std::vector<uint8_t>& want = c.input[i];
      const test::ref::ByteDiff d = diffBytes(c.output[i], want);
      EXPECT_LE(d.max, 1) << "frame " << i << " byte " << d.at << ": " << int(c.output[i][d.at]) << " vs "
                          << int(want[d.at]) << " (mean difference " << d.mean << ")";
    }
  }
};

std::string probeString(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::vector<double> frameTimes(const std::string& path) {
  std::vector<double> t;
  for (const auto& f : test::probe::videoFrames(path)) {
    const char* key = f.contains("pts_time") ? "pts_time" : "best_effort_timestamp_time";
    t.push_back(std::stod(f[key].get<std::string>()));
  }
  return t;
}

// ---- Colour tags: the matrix and range the file states are the ones applied. ----

struct TagCase {
  const char* name;
  int colorspace, colorRange;     // the tags written (AVColorSpace, AVColorRange)
  Colour colour;                  // what the tags mean
  const char* space;              // ffprobe's color_space
  const char* range;              // ffprobe's color_range ("" = unspecified)
};

class E2EColourTags : public E2ERef, public ::testing::WithParamInterface<TagCase> {};

TEST_P(E2EColourTags, LosslessOutputMatchesTheDefinition) {
  const TagCase& c = GetParam();
  test::ClipSpec spec;
  spec.codec = "ffv1";
  spec.colorspace = c.colorspace;
  spec.colorRange = c.colorRange;
  const std::string in = makeInput("in.mkv", 67, 45, 3, 25, spec);  // odd: chroma of the last column/row
  const nlohmann::json s = test::probe::videoStream(in);
  ASSERT_EQ(probeString(s, "color_space"), c.space) << s.dump();
  const std::string range = probeString(s, "color_range");
  ASSERT_EQ(range == "unknown" ? "" : range, c.range) << s.dump();
  EXPECT_EQ(decode(in, "yuv420p").frames.at(1), patternFrame(67, 45, 1));  // lossless input

  const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", dir.file("out.mkv")});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectFramesMatchInput(in, dir.file("out.mkv"), c.colour);
}

INSTANTIATE_TEST_SUITE_P(
    Tags, E2EColourTags,
    ::testing::Values(
        TagCase{"bt709_tv", AVCOL_SPC_BT709, AVCOL_RANGE_MPEG, {true, false}, "bt709", "tv"},
        // Range unspecified: YUV is limited range (what players assume).
        TagCase{"bt709_unspecified_range", AVCOL_SPC_BT709, AVCOL_RANGE_UNSPECIFIED, {true, false}, "bt709", ""},
        TagCase{"bt601_tv", AVCOL_SPC_SMPTE170M, AVCOL_RANGE_MPEG, {false, false}, "smpte170m", "tv"},
        TagCase{"bt709_pc", AVCOL_SPC_BT709, AVCOL_RANGE_JPEG, {true, true}, "bt709", "pc"}),
    [](const ::testing::TestParamInfo<TagCase>& i) { return std::string(i.param.name); });

// ---- Processing, end to end: references built from the reference decode, not the project's. ----

// `rgb` (rgb24) blurred by the definition (support/blur_reference.h), as rgb24.
std::vector<uint8_t> blurByDefinition(const std::vector<uint8_t>& rgb, int w, int h, const BlurParams& p) {
  HostImage img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* px = &rgb[(size_t(y) * w + x) * 3];
      img.at(x, y) = make_uchar4(px[0], px[1], px[2], 255);
    }
  return test::packRgb(test::ref::naiveBlur(std::move(img), p));
}

// Blur: the lossless output within 1 level of the definition applied to the reference
// input (the input conversions differ by <= 1 level, so their box means do too, and
// rounding keeps that). A decoding or conversion fault vidproc shares with its own CPU
// twin cancels in the E2E.*EqualsCpuTwin tests; it does not cancel here.
TEST_F(E2ERef, BlurOutputMatchesTheDefinitionOnFfmpegsDecode) {  // libavcodec's decode, as ffmpeg's
  ProcessedClip c;
  ASSERT_NO_FATAL_FAILURE(processClip({"--mode", "blur", "-r", "3", "--border", "reflect"}, c));
  BlurParams p;
  p.radius = 3;
  p.border = BorderMode::Reflect;
  for (size_t i = 0; i < c.input.size(); ++i) {
    const test::ref::ByteDiff d = diffBytes(c.output[i], blurByDefinition(c.input[i], c.width, c.height, p));
    EXPECT_LE(d.max, 1) << "frame " << i << " byte " << d.at << " (mean difference " << d.mean << ")";
  }
}

// K-means: at most K colours per frame, and every pixel of the reference input is given a
// colour nearly as close to it as the nearest of those colours. The slack (Euclidean, in
// levels) covers what separates vidproc's view from the reference's: its input conversion
// (<= 1 level per channel, sqrt(3) each way), the centres' rounding to bytes (sqrt(3)/2
// each way) and the scoring tolerance of gpu/filters/kmeans/kmeans.h (0.25 squared levels).
TEST_F(E2ERef, KmeansOutputAssignsEachPixelANearestColour) {
  const int k = 6;
  ProcessedClip clip;
  ASSERT_NO_FATAL_FAILURE(processClip({"--mode", "kmeans", "-k", std::to_string(k)}, clip));
  const auto& want = clip.input;
  const double slack = 2 * std::sqrt(3.0) + std::sqrt(3.0) + 0.5;
  const auto dist = [](const uint8_t* a, const uint8_t* b) {
    double d = 0;
    for (int c = 0; c < 3; ++c) d += double(int(a[c]) - int(b[c])) * double(int(a[c]) - int(b[c]));
    return std::sqrt(d);
  };
  for (size_t i = 0; i < want.size(); ++i) {
    const std::vector<uint8_t>& o = clip.output[i];
    std::vector<std::array<uint8_t, 3>> palette;
    for (size_t p = 0; p < o.size(); p += 3) {
      const std::array<uint8_t, 3> c{o[p], o[p + 1], o[p + 2]};
      if (std::find(palette.begin(), palette.end(), c) == palette.end()) palette.push_back(c);
    }
    EXPECT_LE(palette.size(), size_t(k)) << "frame " << i;
    EXPECT_GE(palette.size(), 2u) << "frame " << i;
    double worst = 0;
    for (size_t p = 0; p < o.size(); p += 3) {
      double nearest = 1e9;
      for (const auto& c : palette) nearest = std::min(nearest, dist(&want[i][p], c.data()));
      worst = std::max(worst, dist(&want[i][p], &o[p]) - nearest);
    }
    EXPECT_LE(worst, slack) << "frame " << i << ": a pixel's colour is " << worst << " levels farther than the nearest";
  }
}

// ---- The default lossy output: chroma as well as luma. ----

// Saturated 100 % bars (white, yellow, cyan, green, magenta, red, blue, black), 16 pixels
// each, through vidproc's default H.264 output. Per bar, away from its edges, the decoded
// Y, Cb and Cr means must be within 3 levels of the BT.709 limited-range values of its
// colour (the file says BT.709, tv): swapped chroma planes (e.g. red: Cb 102, Cr 240) or the
// BT.601 matrix (blue: Y 41 instead of 32) are far outside that.
TEST_F(E2ERef, ColourBarsSurviveH264) {
  const int w = 128, h = 64;
  const uint8_t bars[8][3] = {{255, 255, 255}, {255, 255, 0}, {0, 255, 255}, {0, 255, 0},
                              {255, 0, 255},   {255, 0, 0},   {0, 0, 255},   {0, 0, 0}};
  test::ClipSpec spec;  // rgb24 rawvideo, untagged
  spec.codec = "rawvideo";
  spec.pixFmt = "rgb24";
  spec.width = w, spec.height = h, spec.frames = 3, spec.fps = 25;
  spec.rawFrames = [&](int) {
    std::vector<uint8_t> f;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) f.insert(f.end(), bars[x / 16], bars[x / 16] + 3);
    return f;
  };
  const std::string in = test::makeClip(dir.file("bars.nut"), spec);
  const test::ProgramRun r = run({in, "--mode", "none", "-o", dir.file("out.mp4")});
  ASSERT_EQ(r.exitCode, 0) << r.err;

  const std::string out = dir.file("out.mp4");
  const nlohmann::json s = test::probe::videoStream(out);
  EXPECT_EQ(probeString(s, "codec_name"), "h264");
  EXPECT_EQ(probeString(s, "pix_fmt"), "yuv420p");
  EXPECT_EQ(probeString(s, "color_space"), "bt709");
  EXPECT_EQ(probeString(s, "color_range"), "tv");
  const test::probe::DecodedVideo v = decode(out, "yuv420p");
  ASSERT_EQ(v.frames.size(), 3u);
  ASSERT_EQ(v.width, w);
  for (size_t i = 0; i < v.frames.size(); ++i) {
    const uint8_t* yp = v.frames[i].data();
    const uint8_t *up = yp + w * h, *vp = up + (w / 2) * (h / 2);
    for (int b = 0; b < 8; ++b) {
      const auto want = test::ref::rgbToYuv(bars[b][0], bars[b][1], bars[b][2], kBt709Tv);
      double sum[3] = {0, 0, 0};
      int n = 0, cn = 0;
      for (int y = 4; y < h - 4; ++y)
        for (int x = 16 * b + 4; x < 16 * b + 12; ++x) sum[0] += yp[y * w + x], ++n;
      for (int y = 2; y < h / 2 - 2; ++y)
        for (int x = 8 * b + 2; x < 8 * b + 6; ++x) sum[1] += up[y * (w / 2) + x], sum[2] += vp[y * (w / 2) + x], ++cn;
      const double got[3] = {sum[0] / n, sum[1] / cn, sum[2] / cn};
      for (int p = 0; p < 3; ++p)
        EXPECT_NEAR(got[p], want[size_t(p)], 3.0) << "frame " << i << " bar " << b << " plane " << "YUV"[p];
    }
  }
}

// ---- Inputs users have. ----

// Audio beside the video (FLAC in Matroska, AAC in MP4): the audio is not processed; the
// run ends cleanly and the video frames, timing and pixels are those of the input.
TEST_F(E2ERef, AudioStreamIsIgnoredCleanly) {
  const auto withSine = [](test::ClipSpec spec, const std::string& codec) {  // 1 s of 440 Hz, 48 kHz mono
    spec.audio.codec = codec;
    spec.audio.sound = test::Sound::Sine;
    spec.audio.frequency = 440;
    spec.audio.seconds = 1;
    return spec;
  };
  const std::string mkv = makeInput("av.mkv", 64, 48, 10, 25, withSine(taggedSpec("ffv1"), "flac"));
  const std::string mp4 = makeInput("av.mp4", 64, 48, 10, 25, withSine(taggedSpec("libx264"), "aac"));
  for (const std::string& in : {mkv, mp4}) {
    SCOPED_TRACE(in);
    const std::vector<test::probe::Stream> streams = test::probe::streams(in);
    ASSERT_EQ(streams.size(), 2u);  // the test is about a file with audio
    EXPECT_EQ(streams[1].type, "audio");
    const std::string out = in + ".out.mkv";
    const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.err.find("[error]"), std::string::npos) << r.err;
    expectFramesMatchInput(in, out, kBt709Tv);
    const std::vector<double> want = frameTimes(in), got = frameTimes(out);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i] - want[0], 0.0015) << "frame " << i;
  }
}

// Variable frame rate: every frame kept with its own timestamp (Matroska: milliseconds).
TEST_F(E2ERef, VariableFrameRateKeepsTimestamps) {
  test::ClipSpec spec = taggedSpec("ffv1");
  spec.times = {0, 0.040, 0.100, 0.120, 0.400, 0.433};
  const std::string in = makeInput("vfr.mkv", 64, 48, 6, 25, spec);
  const std::vector<double> want = frameTimes(in);
  ASSERT_EQ(want.size(), 6u);
  ASSERT_NEAR(want[4] - want[3], 0.28, 0.0015);  // the input really is irregular
  const std::string out = dir.file("out.mkv");
  const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<double> got = frameTimes(out);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i] - got[0], want[i] - want[0], 0.0015) << "frame " << i;
  expectFramesMatchInput(in, out, kBt709Tv);
}

// Interlaced H.264 (top field first): vidproc does not deinterlace. Each decoded frame (both
// fields woven, as libavcodec (and ffmpeg without a filter) decodes it) is processed as one
// picture: the same frame count and pixels as the reference decode.
TEST_F(E2ERef, InterlacedFramesAreProcessedWovenNotDeinterlaced) {
  test::ClipSpec spec = taggedSpec("libx264");  // ultrafast
  spec.interlaced = true;                        // as -flags +ildct+ilme -top 1
  const std::string in = makeInput("tff.mkv", 64, 48, 8, 25, spec);
  const nlohmann::json s = test::probe::videoStream(in);
  ASSERT_EQ(probeString(s, "field_order"), "tt") << s.dump();  // the input really is interlaced
  const std::string out = dir.file("out.mkv");
  const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectFramesMatchInput(in, out, kBt709Tv);
}

// vidproc in the background with a control file read from its start (then followed):
// killed if still running when destroyed.
class Background {
 public:
  Background(const test::TempDir& dir, const std::vector<std::string>& args, const std::string& control)
      : control_(dir.file("ctl.txt")), log_(dir.file("vidproc.log")) {
    std::ofstream(control_) << control;
    std::string cmd = "exec " + test::vidproc() + " --headless --no-progress --backend " + test::backend() +
                      " --control " + test::shellQuote(control_);
    for (const std::string& a : args) cmd += " " + test::shellQuote(a);
    cmd += " >" + test::shellQuote(log_) + " 2>&1";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Background() {
    if (pid_ > 0) ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
  }
  void send(const std::string& lines) { std::ofstream(control_, std::ios::app) << lines; }
  // Exit code, or -1 when still running after `seconds`.
  int wait(double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string log() const {
    std::ifstream f(log_);  // not there until the shell has started
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }

 private:
  std::string control_, log_;
  pid_t pid_ = -1;
};

bool waitForLog(const Background& vp, const std::string& line, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (vp.log().find(line) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// H.264 with B-frames (3 between references, a keyframe every 12): played through, every
// frame arrives once, in display order, with its pixels; after seeks forwards and back to
// B-frames while paused, the next frame processed is the frame shown at that time, equal to
// the reference decode of it (decoded from the keyframe before it, references included).
TEST_F(E2ERef, BFramesPlayInOrderAndSeekToTheRightFrame) {
  const int w = 96, h = 64, frames = 50;
  test::ClipSpec spec = taggedSpec("libx264");
  spec.preset = "medium";  // x264's medium: 3 B-frames (-bf 3)
  spec.gop = 12;
  spec.crf = 16;
  const std::string in = makeInput("b.mp4", w, h, frames, 25, spec);
  const std::vector<nlohmann::json> probed = test::probe::videoFrames(in);
  ASSERT_EQ(int(probed.size()), frames);
  std::vector<int> bFrames;
  for (int i = 0; i < frames; ++i)
    if (probed[size_t(i)].value("pict_type", "") == "B") bFrames.push_back(i);
  ASSERT_GE(bFrames.size(), 10u) << "the encoder made no B-frames";
  const test::probe::DecodedVideo src = decode(in, "yuv420p");
  ASSERT_EQ(int(src.frames.size()), frames);
  const std::vector<double> times = frameTimes(in);

  // Played through.
  const std::string out = dir.file("out.mkv");
  const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectFramesMatchInput(in, out, kBt709Tv);
  const test::probe::DecodedVideo played = decode(out, "rgb24");
  for (int i = 0; i < int(played.frames.size()); ++i) EXPECT_EQ(readIndex(played.frames[size_t(i)], w, h), i);

  // Seeks: to a B-frame late in the clip, then back to one in the second GOP.
  int late = -1, early = -1;
  for (int i : bFrames) {
    if (late < 0 && i >= 30) late = i;
    if (early < 0 && i > 12) early = i;
  }
  ASSERT_GE(late, 0);
  ASSERT_GE(early, 0);
  Background vp(dir, {in, "--mode", "none"}, "");
  int shot = 0;
  for (int target : {late, early}) {
    SCOPED_TRACE("seek to frame " + std::to_string(target));
    const std::string png = dir.file("seek" + std::to_string(shot++) + ".png");
    char seek[64];
    std::snprintf(seek, sizeof seek, "seek %.3f\n", times[size_t(target)] - times[0] + 0.01);
    vp.send(std::string(shot == 1 ? "pause\n" : "") + seek + "screenshot " + png + "\nstep\n");
    ASSERT_TRUE(waitForLog(vp, "screenshot saved: " + png, 60)) << vp.log();  // logged once written
    const test::probe::DecodedVideo got = decode(png, "rgb24");
    ASSERT_EQ(got.frames.size(), 1u);
    EXPECT_EQ(readIndex(got.frames[0], w, h), target);
    const auto want = test::ref::yuv420pToRgb24(src.frames[size_t(target)], w, h, kBt709Tv);
    const test::ref::ByteDiff d = diffBytes(got.frames[0], want);
    EXPECT_LE(d.max, 1) << "mean difference " << d.mean;
  }
  vp.send("quit\n");
  EXPECT_EQ(vp.wait(60), 0) << vp.log();
}

}  // namespace
}  // namespace vp
