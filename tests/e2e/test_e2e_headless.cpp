// End-to-end runs of the real vidproc binary on clips the tests make themselves:
// outputs checked against the CPU twins, timestamps, statistics, and every bad
// input: see test_e2e_inputs.cpp.
// The binary is $VP_VIDPROC (a command, e.g. ".gpu/run build/vidproc" on the GPU
// machine) or the one built beside this test. VP_E2E_BACKEND picks the backend (cpu).
#include "gpu/filters/blur/box_blur.h"
#include "gpu/color/color_convert.h"
#include "gpu/filters/kmeans/kmeans.h"
#include "support/clips.h"
#include "support/color_reference.h"
#include "support/media_probe_video.h"
#include "support/run_program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace vp {
namespace {

struct RunResult {
  int exitCode = -1;
  std::string output;  // stdout + stderr
};

using test::backend;
using test::vidproc;

RunResult runVidproc(const std::string& args, bool withBackend = true) {
  std::string cmd = "timeout 60 " + vidproc() + " --headless --no-progress " +
                    (withBackend ? "--backend " + backend() + " " : "") + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

nlohmann::json readJson(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// A decoded frame (any native layout) as RGBA through the CPU converter.
HostImage rgbaOf(const test::DecodedFrame& f) {
  const FrameLayout& l = f.info.layout;
  HostImage img(l.width, l.height);
  convertToRgbaCpu(planarView(l, f.data.data()), img.view(), f.info.color);
  return img;
}

// R, G, B equal everywhere (the lossless output stores no alpha).
::testing::AssertionResult sameRgb(const HostImage& got, const HostImage& want, const std::string& what) {
  for (int y = 0; y < want.height(); ++y)
    for (int x = 0; x < want.width(); ++x) {
      const uchar4 a = got.at(x, y), b = want.at(x, y);
      if (a.x != b.x || a.y != b.y || a.z != b.z)
        return ::testing::AssertionFailure() << what << " differs at " << x << "," << y;
    }
  return ::testing::AssertionSuccess();
}

// rgb24 w x h resampled to dw x dh, bilinear with centres aligned (the reference for the
// encoder's rescaling of frames whose size changed mid-stream).
std::vector<uint8_t> scaleBilinear(const std::vector<uint8_t>& src, int w, int h, int dw, int dh) {
  std::vector<uint8_t> dst(size_t(dw) * dh * 3);
  for (int y = 0; y < dh; ++y)
    for (int x = 0; x < dw; ++x) {
      const double sx = std::clamp((x + 0.5) * w / dw - 0.5, 0.0, w - 1.0);
      const double sy = std::clamp((y + 0.5) * h / dh - 0.5, 0.0, h - 1.0);
      const int x0 = int(sx), y0 = int(sy), x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
      const double fx = sx - x0, fy = sy - y0;
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int xx, int yy) { return double(src[(size_t(yy) * w + xx) * 3 + c]); };
        const double v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x1, y0)) + fy * ((1 - fx) * at(x0, y1) + fx * at(x1, y1));
        dst[(size_t(y) * dw + x) * 3 + c] = uint8_t(std::lround(v));
      }
    }
  return dst;
}

struct E2E : ::testing::Test {
  test::TempDir dir;
  std::string clip(const std::string& name, test::ClipSpec spec) { return test::makeClip(dir.file(name), spec); }
};

TEST_F(E2E, BlurToLosslessFileEqualsCpuTwin) {
  test::ClipSpec spec;
  spec.width = 67;
  spec.height = 41;
  spec.frames = 12;
  const std::string in = clip("in.mkv", spec);
  const std::string out = dir.file("out.mkv");
  RunResult r = runVidproc(quote(in) + " --mode blur -r 4 --passes 2 --border reflect --codec ffv1 -o " + quote(out) +
                           " --stats-json " + quote(dir.file("s.json")));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  test::DecodedClip src = test::decodeAll(in), dst = test::decodeAll(out);
  ASSERT_EQ(dst.frames.size(), src.frames.size());
  BoxBlurCpuScratch scratch(spec.width, spec.height);
  for (size_t i = 0; i < src.frames.size(); ++i) {
    const HostImage rgba = rgbaOf(src.frames[i]);
    HostImage want(spec.width, spec.height);
    boxBlurCpu(rgba.view(), want.view(), BlurParams{4, 2, BorderMode::Reflect}, scratch);
    ASSERT_TRUE(sameRgb(rgbaOf(dst.frames[i]), want, "frame " + std::to_string(i)));
    EXPECT_NEAR(double(dst.frames[i].info.ptsUs), double(src.frames[i].info.ptsUs), 1000.0) << "frame " << i;
  }
  nlohmann::json j = readJson(dir.file("s.json"));
  EXPECT_EQ(j["frames"]["processed"], 12);
  ASSERT_EQ(j["chain"].size(), 1u) << j["chain"].dump();
  EXPECT_EQ(j["chain"][0]["label"], "blur#1");
  EXPECT_EQ(j["chain"][0]["options"]["r"], 4);
  EXPECT_EQ(j["chain"][0]["options"]["passes"], 2);
  EXPECT_EQ(j["chain"][0]["options"]["border"], "reflect");
  EXPECT_GT(j["chain"][0]["ms"]["frames"].get<int>(), 0);
  EXPECT_EQ(j["backend"], backend());
}

TEST_F(E2E, KmeansToLosslessFileEqualsCpuTwinWithWarmStarts) {
  test::ClipSpec spec;
  spec.width = 48;
  spec.height = 35;
  spec.frames = 8;
  const std::string in = clip("in.mkv", spec);
  const std::string out = dir.file("out.mkv");
  RunResult r = runVidproc(quote(in) + " -k 5 --init uniform --codec ffv1 -o " + quote(out));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  test::DecodedClip src = test::decodeAll(in), dst = test::decodeAll(out);
  ASSERT_EQ(dst.frames.size(), src.frames.size());
  KmeansState state{};
  for (size_t i = 0; i < src.frames.size(); ++i) {
    const HostImage rgba = rgbaOf(src.frames[i]);
    HostImage want(spec.width, spec.height);
    KmeansParams p;
    p.k = 5;
    p.init = i == 0 ? KmeansInit::Uniform : KmeansInit::Warm;  // the pipeline warm-starts after frame 0
    kmeansCpu(rgba.view(), want.view(), nullptr, state, p);
    ASSERT_TRUE(sameRgb(rgbaOf(dst.frames[i]), want, "frame " + std::to_string(i)));
  }
}

// Odd sizes and formats (1x1 ... 8K, 10-bit, gray, rotation ...): test_e2e_odd_inputs.cpp.

TEST_F(E2E, ResolutionChangeMidStream) {
  test::ClipSpec spec;
  spec.width = 64;
  spec.height = 48;
  spec.frames = 10;
  spec.codec = "mjpeg";
  spec.pixFmt = "yuvj420p";
  spec.changeAt = 5;
  spec.changedWidth = 40;
  spec.changedHeight = 30;
  const std::string in = clip("change.avi", spec);
  RunResult r = runVidproc(quote(in) + " --stats-json " + quote(dir.file("s.json")) + " -o " +
                           quote(dir.file("o.mkv")) + " --codec ffv1");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readJson(dir.file("s.json"))["frames"]["processed"], 10);
  test::DecodedClip dst = test::decodeAll(dir.file("o.mkv"), false);
  ASSERT_EQ(dst.frames.size(), 10u);
  EXPECT_EQ(dst.frames.back().info.layout.width, 64);  // the encoder keeps the first size

  // The pixels, against the reference decode (libavcodec directly, as ffmpeg decodes: see
  // support/media_probe_video.h) and the double-precision conversion (the clip says
  // BT.601, full range): unprocessed, each frame before the change within 1 level; each
  // after it, scaled back to 64x48 by the encoder, near its own picture (bilinear
  // reference: mean difference < 4 levels) and farther from its neighbours'.
  const std::string none = dir.file("none.mkv");
  r = runVidproc(quote(in) + " --mode none -o " + quote(none) + " --codec ffv1");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const test::probe::DecodedVideo out = test::probe::decodeVideo(none, "rgb24");
  ASSERT_EQ(out.frames.size(), 10u);
  for (const auto& size : out.sizes) ASSERT_EQ(size, std::make_pair(64, 48));
  const test::ref::Colour jpeg{false, true};
  const test::probe::DecodedVideo decoded = test::probe::decodeVideo(in, "yuvj420p");  // each at its own size
  ASSERT_EQ(decoded.frames.size(), 10u);
  for (size_t i = 0; i < 10; ++i) ASSERT_EQ(decoded.sizes[i], i < 5 ? std::make_pair(64, 48) : std::make_pair(40, 30));
  for (size_t i = 0; i < 5; ++i) {
    const test::ref::ByteDiff d = test::ref::diffBytes(out.frames[i], test::ref::yuv420pToRgb24(decoded.frames[i], 64, 48, jpeg));
    EXPECT_LE(d.max, 1) << "frame " << i;
  }
  std::vector<std::vector<uint8_t>> scaled;
  for (size_t i = 5; i < 10; ++i)
    scaled.push_back(scaleBilinear(test::ref::yuv420pToRgb24(decoded.frames[i], 40, 30, jpeg), 40, 30, 64, 48));
  for (size_t i = 0; i < 5; ++i) {
    const double own = test::ref::diffBytes(out.frames[5 + i], scaled[i]).mean;
    EXPECT_LT(own, 4.0) << "frame " << 5 + i;
    for (size_t j = 0; j < 5; ++j)
      if (j != i) {
        EXPECT_GT(test::ref::diffBytes(out.frames[5 + i], scaled[j]).mean, own) << "frame " << 5 + i << " vs " << 5 + j;
      }
  }
}

TEST_F(E2E, FramesLimitAndOutputNotOverwrittenWithoutY) {
  test::ClipSpec spec;
  spec.frames = 20;
  const std::string in = clip("in.mkv", spec);
  const std::string out = dir.file("keep.mkv");
  test::textFile(out, "precious\n");
  RunResult r = runVidproc(quote(in) + " -o " + quote(out) + " --codec ffv1");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("exists"), std::string::npos) << r.output;
  EXPECT_EQ(test::readFileBytes(out).size(), 9u);  // untouched
  r = runVidproc(quote(in) + " -o " + quote(out) + " --codec ffv1 -y --frames 7");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(test::decodeAll(out, false).frames.size(), 7u);
}

TEST_F(E2E, InterruptLeavesAPlayableFile) {
  test::ClipSpec spec;
  spec.frames = 30;
  const std::string in = clip("in.mkv", spec);
  const std::string out = dir.file("interrupted.mkv");
  // --loop never ends by itself: SIGINT is the only way out.
  const std::string cmd = vidproc() + " --headless --no-progress --backend " + backend() + " --loop " + quote(in) +
                          " --codec ffv1 -o " + quote(out) + " > " + quote(dir.file("log")) + " 2>&1";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so the signal reaches vidproc behind the shell
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status0 = 0;
  // Ready once encoded bytes reach the output (its .part, renamed at the end): the encoder opens
  // on the first processed frame and the signal watcher is set up before any thread, so a
  // signal now is vidproc's to handle. One before it would meet the default action:
  // WIFSIGNALED below, not a clean 130.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::error_code ec;
  bool writing = false;
  while (!writing && std::chrono::steady_clock::now() < deadline) {
    ASSERT_EQ(waitpid(pid, &status0, WNOHANG), 0) << "vidproc ended by itself (status " << status0 << ")";
    const uintmax_t size = std::filesystem::file_size(out + ".part", ec);
    writing = !ec && size > 0;
    if (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!writing) kill(-pid, SIGKILL), waitpid(pid, &status0, 0);
  ASSERT_TRUE(writing) << "nothing written to the output within 60 s";
  kill(-pid, SIGINT);
  int status = 0;
  for (int i = 0; i < 200 && waitpid(pid, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (waitpid(pid, &status, WNOHANG) == 0) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "vidproc did not stop within 10 s of SIGINT";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const test::DecodedClip d = test::decodeAll(out, false);
  EXPECT_GT(d.frames.size(), 0u);
}

// Absent devices and every other bad input: test_e2e_inputs.cpp.
TEST(E2EDevices, ListDevices) {
  RunResult list = runVidproc("--list-devices", false);
  EXPECT_EQ(list.exitCode, 0) << list.output;
  EXPECT_FALSE(list.output.empty());
}

TEST(E2EBackend, CudaWithoutDeviceIsAClearError) {
  if (std::getenv("VP_E2E_BACKEND")) GTEST_SKIP() << "checked on machines without a GPU";
  RunResult r = runVidproc("--backend cuda --synthetic 64x48 --frames 2", false);
  if (r.exitCode == 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vp
