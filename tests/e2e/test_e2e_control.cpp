// The real vidproc binary driven through its control channel (--control FIFO):
// parameters changed mid-run show in the frames and in --stats-json, bad lines are
// ignored with a warning, pause idles the process, quit and signals end it cleanly.
// The binary is $VP_VIDPROC (a command, e.g. ".gpu/run build/vidproc") or the one
// built beside this test; VP_E2E_BACKEND picks the backend (cpu).
#include "gpu/filters/common/segment_view.h"
#include "support/audio_clips.h"
#include "support/clips.h"
#include "support/color_reference.h"
#include "support/media_probe_video.h"
#include "support/run_program.h"
#include "support/running_vidproc.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace vp {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using test::backend;
using test::readFile;
using test::Running;
using test::vidproc;
using test::waitForFile;


// Box blur by its definition: the (2r+1)^2 window mean, reflected at the borders (-1 -> 1),
// rounded half up, `passes` times; rgb24.
std::vector<uint8_t> referenceBlur(std::vector<uint8_t> img, int w, int h, int r, int passes) {
  auto reflect = [](int i, int n) {
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
  };
  const uint32_t area = uint32_t(2 * r + 1) * uint32_t(2 * r + 1);
  for (int pass = 0; pass < passes; ++pass) {
    std::vector<uint32_t> rows(img.size());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) {
          uint32_t sum = 0;
          for (int d = -r; d <= r; ++d) sum += img[(size_t(y) * w + reflect(x + d, w)) * 3 + c];
          rows[(size_t(y) * w + x) * 3 + c] = sum;
        }
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) {
          uint32_t sum = 0;
          for (int d = -r; d <= r; ++d) sum += rows[(size_t(reflect(y + d, h)) * w + x) * 3 + c];
          img[(size_t(y) * w + x) * 3 + c] = uint8_t((sum + area / 2) / area);
        }
  }
  return img;
}

// The screenshots against the input frames (decoded by libavcodec as ffmpeg decodes them,
// support/media_probe_video.h; converted by the double
// definition: the clip says BT.601, limited range): blur.png is the radius 7, 2-pass,
// reflect blur of one of them (every byte within 2 levels: the conversion's 1 level, once
// more through the rounding of a pass); kmeans.png holds 2..8 colours (k 8), and at least
// 90 % of its pixels carry the palette colour nearest to that pixel of one input frame.
void expectScreenshotsShowTheParameters(const std::string& clip, const std::string& kmeansPng,
                                        const std::string& blurPng) {
  const test::probe::DecodedVideo in = test::probe::decodeVideo(clip, "yuv420p");
  std::vector<std::vector<uint8_t>> frames;
  for (const auto& f : in.frames) frames.push_back(test::ref::yuv420pToRgb24(f, in.width, in.height, {false, false}));
  const test::probe::DecodedVideo blur = test::probe::decodeVideo(blurPng, "rgb24");
  const test::probe::DecodedVideo km = test::probe::decodeVideo(kmeansPng, "rgb24");
  ASSERT_EQ(blur.frames.size(), 1u);
  ASSERT_EQ(km.frames.size(), 1u);
  ASSERT_EQ(blur.width, in.width);
  ASSERT_EQ(km.width, in.width);
  int bestBlur = 256;
  for (const auto& f : frames)
    bestBlur = std::min(bestBlur, test::ref::diffBytes(blur.frames[0], referenceBlur(f, in.width, in.height, 7, 2)).max);
  EXPECT_LE(bestBlur, 2) << "blur.png is no radius 7, 2-pass reflect blur of an input frame";

  std::vector<std::array<uint8_t, 3>> palette;
  const std::vector<uint8_t>& k = km.frames[0];
  for (size_t i = 0; i < k.size(); i += 3) {
    const std::array<uint8_t, 3> c{k[i], k[i + 1], k[i + 2]};
    if (std::find(palette.begin(), palette.end(), c) == palette.end()) palette.push_back(c);
  }
  EXPECT_GE(palette.size(), 2u);
  ASSERT_LE(palette.size(), 8u) << "kmeans.png is no 8-colour segmentation";
  double bestShare = 0;
  for (const auto& f : frames) {
    size_t nearest = 0;
    for (size_t i = 0; i < f.size(); i += 3) {
      auto d2 = [&](const std::array<uint8_t, 3>& c) {
        int s = 0;
        for (int ch = 0; ch < 3; ++ch) s += (int(f[i + ch]) - c[ch]) * (int(f[i + ch]) - c[ch]);
        return s;
      };
      const std::array<uint8_t, 3> got{k[i], k[i + 1], k[i + 2]};
      int best = d2(palette[0]);
      for (const auto& c : palette) best = std::min(best, d2(c));
      nearest += d2(got) == best;
    }
    bestShare = std::max(bestShare, double(nearest) / double(f.size() / 3));
  }
  EXPECT_GE(bestShare, 0.9) << "kmeans.png does not segment any input frame by its own palette";
}

struct E2EControl : ::testing::Test {
  test::TempDir dir;
  std::string clip;
  void SetUp() override {
    test::ClipSpec spec;
    spec.width = 96;
    spec.height = 64;
    spec.frames = 30;
    spec.codec = "ffv1";
    clip = test::makeClip(dir.file("in.mkv"), spec);
  }
};

TEST_F(E2EControl, ParametersChangeMidRunThenQuit) {
  const std::string stats = dir.file("stats.json"), out = dir.file("out.mkv");
  Running vp(dir, "'" + clip + "' --loop --codec ffv1 -o '" + out + "' --stats-json '" + stats + "'");
  // First a K-means frame, then blur from the next command on; each screenshot is
  // the next frame processed, so it shows what the parameters did.
  ASSERT_TRUE(vp.send("screenshot " + dir.file("kmeans.png") + "\n"));
  ASSERT_TRUE(waitForFile(dir.file("kmeans.png"), 20s)) << vp.log();
  ASSERT_TRUE(vp.send("mode blur\nradius 7\nfrobnicate 3\npasses 2\nk 99\nborder reflect\nk 5\n"));
  ASSERT_TRUE(vp.send("screenshot " + dir.file("blur.png") + "\n"));
  ASSERT_TRUE(waitForFile(dir.file("blur.png"), 20s)) << vp.log();
  ASSERT_TRUE(vp.send("vf add kmeans\nquit\n"));
  ASSERT_EQ(vp.wait(20s), 0) << vp.log();

  const std::string log = vp.log();
  EXPECT_NE(log.find("control: ignoring 'frobnicate 3': unknown command 'frobnicate'"), std::string::npos)
      << log;
  EXPECT_NE(log.find("control: ignoring 'k 99': k must be auto|1..32, +N or -N"), std::string::npos) << log;
  const nlohmann::json j = nlohmann::json::parse(readFile(stats));
  // k 5 with no kmeans in the chain is kept for it: vf add kmeans brings it in with k=5.
  ASSERT_EQ(j["chain"].size(), 2u) << j["chain"].dump();
  EXPECT_EQ(j["chain"][0]["name"], "blur");
  EXPECT_EQ(j["chain"][0]["options"]["r"], 7);
  EXPECT_EQ(j["chain"][0]["options"]["passes"], 2);
  EXPECT_EQ(j["chain"][0]["options"]["border"], "reflect");
  EXPECT_EQ(j["chain"][1]["name"], "kmeans");
  EXPECT_EQ(j["chain"][1]["options"]["k"], 5);
  EXPECT_EQ(j["control"]["commands"], 9);
  EXPECT_EQ(j["control"]["rejected"], 2);
  EXPECT_GT(j["frames"]["processed"].get<int64_t>(), 0);
  EXPECT_LE(j["queue"]["depth_max"].get<double>(), j["queue"]["capacity"].get<double>());
  EXPECT_EQ(int64_t(test::decodeAll(out, false).frames.size()), j["frames"]["processed"].get<int64_t>());
  expectScreenshotsShowTheParameters(clip, dir.file("kmeans.png"), dir.file("blur.png"));
}

// Waits until the process has used no CPU for 300 ms (paused, nothing in flight).
bool waitForIdle(const Running& vp, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  double before = vp.cpuSeconds();
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(300ms);
    const double now = vp.cpuSeconds();
    if (now - before < 0.005) return true;
    before = now;
  }
  return false;
}

TEST_F(E2EControl, PauseIdlesAndSignalsStillEndIt) {
  Running vp(dir, "'" + clip + "' --loop");
  ASSERT_TRUE(vp.send("screenshot " + dir.file("a.png") + "\n"));
  ASSERT_TRUE(waitForFile(dir.file("a.png"), 20s)) << vp.log();
  ASSERT_TRUE(vp.send("pause\n"));
  ASSERT_TRUE(waitForIdle(vp, 30s)) << "in-flight frames never drained\n" << vp.log();
  const double cpu0 = vp.cpuSeconds();
  std::this_thread::sleep_for(1s);
  const double used = vp.cpuSeconds() - cpu0;
  EXPECT_LT(used, 0.1) << "paused vidproc used " << used << " s of CPU in 1 s";
  ::kill(vp.pid(), SIGTERM);
  EXPECT_EQ(vp.wait(5s), 130) << vp.log();
}

TEST_F(E2EControl, StepSeekAndResumeWhilePaused) {
  const std::string stats = dir.file("stats.json");
  // A regular file read from its start: paused before the short clip can end.
  Running vp(dir, "'" + clip + "' --stats-json '" + stats + "'",
             "pause\nstep\nstep\nseek 0.2\nseek -5\nscreenshot " + dir.file("s.png") + "\nstep\n");
  ASSERT_TRUE(waitForFile(dir.file("s.png"), 20s)) << vp.log();
  ASSERT_TRUE(vp.send("resume\n"));  // then plays to the end of the clip by itself
  ASSERT_EQ(vp.wait(30s), 0) << vp.log();
  EXPECT_NE(vp.log().find("control: seek to 0.200 s"), std::string::npos) << vp.log();
  const nlohmann::json j = nlohmann::json::parse(readFile(stats));
  EXPECT_GE(j["frames"]["processed"].get<int64_t>(), 30);  // seeking back replays frames
}

// A seek while writing a file with sound: the file goes on from where it is with both
// streams (as --loop does). 50 frames (2.0 s) stepped, then seek 0.6 and play to the end:
// 2.0 + 3.4 s of video, the audio ending with it, every beep on its flash, and the audio
// packets seamless (no gap over a frame, no overlap, increasing timestamps).
TEST_F(E2EControl, SeekWhileWritingKeepsTheAudioInStep) {
  constexpr double kFrame = 1 / test::kClipFps, kAudioFrame = 1024.0 / 48000;
  for (const char* container : {"mp4", "mkv"}) {  // AAC copied; PCM transcoded to AAC
    const std::string in = dir.file(std::string("beeps.") + container), out = dir.file(std::string("seek_") + container + ".mp4");
    test::makeFlashBeepClip(container, in);
    std::string steps = "pause\n";
    for (int i = 0; i < 50; ++i) steps += "step\n";
    Running vp(dir, "'" + in + "' --mode none -o '" + out + "'", steps);
    ASSERT_TRUE(waitForIdle(vp, 30s)) << vp.log();
    ASSERT_TRUE(vp.send("seek 0.6\nresume\n"));
    ASSERT_EQ(vp.wait(60s), 0) << vp.log();

    const test::StreamEnds e = test::streamEnds(out);
    ASSERT_EQ(e.audioStreams, 1) << container;
    EXPECT_NEAR(e.videoEnd, 2.0 + 3.4, 1e-3) << container;
    EXPECT_NEAR(e.audioEnd, e.videoEnd, kAudioFrame) << container;
    const auto flashes = test::flashOnsets(out);
    EXPECT_EQ(flashes.size(), 5u) << container << ": 2 flashes before the seek, 3 after";
    EXPECT_LT(test::worstFlashBeepGap(flashes, test::beepOnsets(out)), kFrame) << container;
    const auto packets = test::audioPacketTimes(out);
    ASSERT_GT(packets.size(), 100u);
    double worstGap = 0, worstOverlap = 0;
    for (size_t i = 1; i < packets.size(); ++i) {
      EXPECT_GT(packets[i].pts, packets[i - 1].pts) << container << " packet " << i;
      const double gap = packets[i].pts - (packets[i - 1].pts + packets[i - 1].duration);
      worstGap = std::max(worstGap, gap);
      worstOverlap = std::max(worstOverlap, -gap);
    }
    EXPECT_LT(worstGap, kFrame) << container;
    EXPECT_LT(worstOverlap, 1e-3) << container;
    RecordProperty(std::string(container) + "_seam_gap_ms", std::to_string(worstGap * 1e3));
  }
}

// "screenshot FILE" then "quit" in one go: the screenshot is the first frame submitted
// after it (the new view), and it is written before vidproc quits, not lost; a paused
// run quits at once and says which screenshot it could not save.
TEST_F(E2EControl, ScreenshotThenQuitSavesTheScreenshotFirst) {
  const std::string shot = dir.file("labels.png");
  {
    Running vp(dir, "'" + clip + "' --loop", "view labels\nscreenshot " + shot + "\nquit\n");
    ASSERT_EQ(vp.wait(30s), 0) << vp.log();
    EXPECT_NE(vp.log().find("screenshot saved: " + shot), std::string::npos) << vp.log();
  }
  const test::probe::DecodedVideo png = test::probe::decodeVideo(shot, "rgb24");
  ASSERT_EQ(png.frames.size(), 1u);
  // The labels view: every pixel one of the K-means labels' palette colours (k 8).
  std::vector<uint32_t> palette;
  for (int l = 0; l < 8; ++l) palette.push_back(labelColour(l));
  const std::vector<uint8_t>& rgb = png.frames[0];
  for (size_t i = 0; i < rgb.size(); i += 3) {
    const uint32_t c = uint32_t(rgb[i]) | uint32_t(rgb[i + 1]) << 8 | uint32_t(rgb[i + 2]) << 16;
    ASSERT_NE(std::find(palette.begin(), palette.end(), c), palette.end()) << "pixel " << i / 3;
  }
  const std::string lost = dir.file("lost.png");
  Running paused(dir, "'" + clip + "' --loop", "pause\nscreenshot " + lost + "\nquit\n");
  ASSERT_EQ(paused.wait(30s), 0) << paused.log();
  EXPECT_NE(paused.log().find("screenshot not saved: " + lost), std::string::npos) << paused.log();
}

TEST_F(E2EControl, MissingControlFileIsAnError) {
  const std::string cmd = vidproc() + " --headless --no-progress --backend " + backend() + " '" + clip +
                          "' --control " + dir.file("none/ctl") + " >" + dir.file("log") + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(readFile(dir.file("log")).find("cannot open control file"), std::string::npos)
      << readFile(dir.file("log"));
}

}  // namespace
}  // namespace vp
