// The real vidproc binary checked against references outside the project: inputs made
// by the ffmpeg CLI with explicit colour tags (matrix and range, so nothing rests on how
// an untagged clip is guessed), outputs decoded by the ffmpeg CLI (not the project's
// openSource) and pixels converted by the double-precision definitions of
// support/color_reference.h. The blur and K-means outputs are checked on that reference
// decode too (the blur's definition; a nearest colour for K-means). Inputs users have:
// colour tags (BT.709 with unspecified range among them), audio beside the video,
// variable frame rate, B-frames with seeks, interlaced video. Skipped (visibly, per test)
// when ffmpeg/ffprobe are missing.
//
// Tolerances: lossless paths <= 1 level per channel (vidproc's 16-bit fixed-point
// conversion against the exact value, both rounded); the lossy H.264 output is checked
// per colour bar (means within 3 levels, see ColourBarsSurviveH264). Inputs that are
// lossy themselves (H.264) are compared with ffmpeg's decode of the same bitstream.
#include "support/blur_reference.h"
#include "support/clips.h"
#include "support/color_reference.h"
#include "support/ffmpeg_cli.h"
#include "support/images.h"
#include "support/run_program.h"

#include <gtest/gtest.h>

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

// An input and vidproc's output, both decoded by ffmpeg: the input's reference RGB frames
// (its yuv420p decode, the double-precision conversion) and the output as rgb24.
struct ProcessedClip {
  int width = 0, height = 0;
  std::vector<std::vector<uint8_t>> input;
  std::vector<std::vector<uint8_t>> output;
};

struct E2ERef : ::testing::Test {
  test::TempDir dir;

  void SetUp() override {
    static const bool have = test::haveFfmpegCli();
    if (!have) GTEST_SKIP() << "ffmpeg/ffprobe not installed (scripts/setup.sh installs them)";
  }

  // Encodes `frames` pattern frames (w x h, `fps`) with ffmpeg: `before` are input options
  // of further inputs (e.g. an audio source), `after` the output options.
  std::string makeInput(const std::string& name, int w, int h, int frames, int fps,
                        const std::vector<std::string>& after, const std::vector<std::string>& before = {}) {
    const std::string raw = dir.file(name + ".yuv");
    {
      std::ofstream f(raw, std::ios::binary);
      for (int i = 0; i < frames; ++i) {
        const std::vector<uint8_t> p = patternFrame(w, h, i);
        f.write(reinterpret_cast<const char*>(p.data()), std::streamsize(p.size()));
      }
    }
    std::vector<std::string> args = {"-f", "rawvideo", "-pix_fmt", "yuv420p", "-s",
                                     std::to_string(w) + "x" + std::to_string(h), "-r", std::to_string(fps), "-i", raw};
    args.insert(args.end(), before.begin(), before.end());
    args.insert(args.end(), after.begin(), after.end());
    args.push_back(dir.file(name));
    test::ffmpeg(args, dir.path());
    return dir.file(name);
  }

  // Runs vidproc with `args` on a lossless 67x45 BT.709 pattern clip, to a lossless file.
  void processClip(const std::vector<std::string>& args, ProcessedClip& c) {
    const std::string in = makeInput("in.mkv", 67, 45, 3, 25,
                                     {"-c:v", "ffv1", "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_range", "tv"});
    std::vector<std::string> all = {in, "--codec", "ffv1", "-o", dir.file("out.mkv")};
    all.insert(all.end(), args.begin(), args.end());
    const test::ProgramRun r = run(all);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    decodePair(in, dir.file("out.mkv"), kBt709Tv, c);
  }

  // Both files decoded by ffmpeg (same frame count and size, else a fatal failure).
  static void decodePair(const std::string& input, const std::string& output, Colour colour, ProcessedClip& c) {
    const test::RawVideo src = test::ffmpegDecode(input, "yuv420p");
    const test::RawVideo out = test::ffmpegDecode(output, "rgb24");
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
  // ffmpeg's decode of the input: frame count, size and every pixel within 1 level.
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
  for (const auto& f : test::probeVideoFrames(path)) {
    const char* key = f.contains("pts_time") ? "pts_time" : "best_effort_timestamp_time";
    t.push_back(std::stod(f[key].get<std::string>()));
  }
  return t;
}

// ---- Colour tags: the matrix and range the file states are the ones applied. ----

struct TagCase {
  const char* name;
  std::vector<std::string> args;  // ffmpeg output options
  Colour colour;                  // what the tags mean
  const char* space;              // ffprobe's color_space
  const char* range;              // ffprobe's color_range ("" = unspecified)
};

class E2EColourTags : public E2ERef, public ::testing::WithParamInterface<TagCase> {};

TEST_P(E2EColourTags, LosslessOutputMatchesTheDefinition) {
  const TagCase& c = GetParam();
  std::vector<std::string> args = {"-c:v", "ffv1", "-pix_fmt", "yuv420p"};
  args.insert(args.end(), c.args.begin(), c.args.end());
  const std::string in = makeInput("in.mkv", 67, 45, 3, 25, args);  // odd: chroma of the last column/row
  const nlohmann::json s = test::probeVideoStream(in);
  ASSERT_EQ(probeString(s, "color_space"), c.space) << s.dump();
  const std::string range = probeString(s, "color_range");
  ASSERT_EQ(range == "unknown" ? "" : range, c.range) << s.dump();
  EXPECT_EQ(test::ffmpegDecode(in, "yuv420p").frames.at(1), patternFrame(67, 45, 1));  // lossless input

  const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", dir.file("out.mkv")});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectFramesMatchInput(in, dir.file("out.mkv"), c.colour);
}

INSTANTIATE_TEST_SUITE_P(
    Tags, E2EColourTags,
    ::testing::Values(
        TagCase{"bt709_tv", {"-colorspace", "bt709", "-color_range", "tv"}, {true, false}, "bt709", "tv"},
        // Range unspecified: YUV is limited range (what players assume).
        TagCase{"bt709_unspecified_range", {"-colorspace", "bt709"}, {true, false}, "bt709", ""},
        TagCase{"bt601_tv", {"-colorspace", "smpte170m", "-color_range", "tv"}, {false, false}, "smpte170m", "tv"},
        TagCase{"bt709_pc", {"-colorspace", "bt709", "-color_range", "pc"}, {true, true}, "bt709", "pc"}),
    [](const ::testing::TestParamInfo<TagCase>& i) { return std::string(i.param.name); });

// ---- Processing, end to end: references built from ffmpeg's decode, not the project's. ----

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
TEST_F(E2ERef, BlurOutputMatchesTheDefinitionOnFfmpegsDecode) {
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
  const std::string raw = dir.file("bars.rgb");
  {
    std::ofstream f(raw, std::ios::binary);
    for (int i = 0; i < 3; ++i)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) f.write(reinterpret_cast<const char*>(bars[x / 16]), 3);
  }
  const std::string in = dir.file("bars.nut");
  test::ffmpeg({"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "128x64", "-r", "25", "-i", raw, "-c:v", "rawvideo", in});
  const test::ProgramRun r = run({in, "--mode", "none", "-o", dir.file("out.mp4")});
  ASSERT_EQ(r.exitCode, 0) << r.err;

  const std::string out = dir.file("out.mp4");
  const nlohmann::json s = test::probeVideoStream(out);
  EXPECT_EQ(probeString(s, "codec_name"), "h264");
  EXPECT_EQ(probeString(s, "pix_fmt"), "yuv420p");
  EXPECT_EQ(probeString(s, "color_space"), "bt709");
  EXPECT_EQ(probeString(s, "color_range"), "tv");
  const test::RawVideo v = test::ffmpegDecode(out, "yuv420p");
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
  const std::vector<std::string> sine = {"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1"};
  const std::string mkv = makeInput("av.mkv", 64, 48, 10, 25,
                                    {"-map", "0:v", "-map", "1:a", "-c:v", "ffv1", "-colorspace", "bt709",
                                     "-color_range", "tv", "-c:a", "flac"},
                                    sine);
  const std::string mp4 = makeInput("av.mp4", 64, 48, 10, 25,
                                    {"-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast",
                                     "-colorspace", "bt709", "-color_range", "tv", "-c:a", "aac"},
                                    sine);
  for (const std::string& in : {mkv, mp4}) {
    SCOPED_TRACE(in);
    const nlohmann::json streams = test::ffprobe(in, {"-show_streams"})["streams"];
    ASSERT_EQ(streams.size(), 2u);  // the test is about a file with audio
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
  const std::string in = makeInput(
      "vfr.mkv", 64, 48, 6, 25,
      {"-vf", "setpts='if(eq(N,0),0,if(eq(N,1),40,if(eq(N,2),100,if(eq(N,3),120,if(eq(N,4),400,433)))))/1000/TB'",
       "-fps_mode", "passthrough", "-c:v", "ffv1", "-colorspace", "bt709", "-color_range", "tv"});
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
// fields woven, as ffmpeg decodes it without a filter) is processed as one picture: the
// same frame count and pixels as ffmpeg's decode.
TEST_F(E2ERef, InterlacedFramesAreProcessedWovenNotDeinterlaced) {
  const std::string in = makeInput("tff.mkv", 64, 48, 8, 25,
                                   {"-c:v", "libx264", "-preset", "ultrafast", "-flags", "+ildct+ilme", "-top", "1",
                                    "-colorspace", "bt709", "-color_range", "tv"});
  const nlohmann::json s = test::probeVideoStream(in);
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
// ffmpeg's decode of it (decoded from the keyframe before it, references included).
TEST_F(E2ERef, BFramesPlayInOrderAndSeekToTheRightFrame) {
  const int w = 96, h = 64, frames = 50;
  const std::string in = makeInput("b.mp4", w, h, frames, 25,
                                   {"-c:v", "libx264", "-preset", "medium", "-bf", "3", "-g", "12", "-crf", "16",
                                    "-colorspace", "bt709", "-color_range", "tv"});
  const std::vector<nlohmann::json> probed = test::probeVideoFrames(in);
  ASSERT_EQ(int(probed.size()), frames);
  std::vector<int> bFrames;
  for (int i = 0; i < frames; ++i)
    if (probed[size_t(i)].value("pict_type", "") == "B") bFrames.push_back(i);
  ASSERT_GE(bFrames.size(), 10u) << "the encoder made no B-frames";
  const test::RawVideo src = test::ffmpegDecode(in, "yuv420p");
  ASSERT_EQ(int(src.frames.size()), frames);
  const std::vector<double> times = frameTimes(in);

  // Played through.
  const std::string out = dir.file("out.mkv");
  const test::ProgramRun r = run({in, "--mode", "none", "--codec", "ffv1", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectFramesMatchInput(in, out, kBt709Tv);
  const test::RawVideo played = test::ffmpegDecode(out, "rgb24");
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
    const test::RawVideo got = test::ffmpegDecode(png, "rgb24");
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
