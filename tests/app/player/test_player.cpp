// The window player's loop against a scripted null display: key commands change the
// parameters within bounds, screenshots save the processed frame, quit ends; a display
// that waits for its refresh does not cap processing.
#include "app/player/interactive_player.h"
#include "support/chains.h"
#include "support/clips.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

namespace vp {
namespace {

class ScriptedDisplay final : public Display {
 public:
  // Commands delivered once `presented` frames have been shown.
  std::multimap<int, std::string> script;
  int renderSleepMs = 0;  // a display with vsync blocks in render()
  int refresh = 0;        // ms between the refreshes render() is meant to wait for
  std::vector<uint8_t> lastFrame;
  int width = 0, height = 0, presented = 0, renders = 0;
  std::vector<uint8_t> frameAtScreenshot;

  std::vector<Command> pollCommands() override {
    std::vector<Command> out;
    auto end = script.upper_bound(presented);
    for (auto it = script.begin(); it != end; ++it) {
      out.push_back(commandFrom(it->second));
      if (it->second == "screenshot") frameAtScreenshot = lastFrame;
    }
    script.erase(script.begin(), end);
    return out;
  }
  bool applyWindowCommand(const Command&) override { return false; }
  void present(const uint8_t* rgb, size_t pitch, int w, int h) override {
    width = w;
    height = h;
    lastFrame.resize(size_t(w) * h * 3);
    for (int y = 0; y < h; ++y) std::memcpy(&lastFrame[size_t(y) * w * 3], rgb + size_t(y) * pitch, size_t(w) * 3);
    ++presented;
  }
  void render(const HudData&) override {
    ++renders;
    if (renderSleepMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(renderSleepMs));
  }
  double refreshMs() const override { return refresh; }
};

struct PlayerFixture : ::testing::Test {
  test::TempDir dir;
  Options options;
  void SetUp() override {
    test::ClipSpec spec;
    spec.width = 64;
    spec.height = 48;
    spec.frames = 40;
    spec.codec = "ffv1";
    options.input = test::makeClip(dir.file("clip.mkv"), spec);
    options.backend = Backend::Cpu;
    options.sync = false;
    options.streams = 2;
    options.screenshotDir = dir.path();
  }
};

TEST_F(PlayerFixture, KeysChangeParametersWithinBounds) {
  ScriptedDisplay display;
  // radius +1 while the chain has no blur changes the blur's remembered radius; mode blur
  // brings it in; vf add kmeans brings K back as it was left.
  display.script = {{2, "k +1"}, {2, "k +1"}, {3, "radius +1"}, {4, "mode blur"},
                    {5, "passes cycle"}, {6, "border cycle"}, {7, "vf add kmeans"}, {8, "quit"}};
  SignalWatcher signals;
  RunStats stats;
  options.process.chain = parseChain("kmeans=k=31");
  EXPECT_EQ(runInteractive(options, display, signals, stats), kExitOk);
  EXPECT_EQ(test::chainMode(stats.finalParams), "chain");
  ASSERT_EQ(stats.finalParams.chain.size(), 2);
  EXPECT_EQ(stats.finalParams.chain[1].intValue(kmeans_option::K), 32);  // bounded
  const BlurParams blur = blurParamsOf(stats.finalParams.chain[0]);
  EXPECT_EQ(blur.radius, BlurParams{}.radius + 1);
  EXPECT_EQ(blur.passes, 2);
  EXPECT_EQ(blur.border, BorderMode::Reflect);
  EXPECT_GE(display.presented, 8);
  EXPECT_LT(display.presented, 40);  // quit before the end
}

// The control channel reaches the window player too: commands apply between
// frames, quit ends the looping input.
TEST_F(PlayerFixture, ControlChannelCommandsApplyAndQuit) {
  const std::string control = dir.file("ctl.txt");
  std::ofstream(control) << "mode blur\nradius 9\nbogus\nk_inc\nborder wrap\nvf add kmeans\nquit\n";
  options.control = control;
  options.loop = true;  // only quit can end it
  options.process.chain = parseChain("kmeans=k=8");
  ScriptedDisplay display;
  SignalWatcher signals;
  RunStats stats;
  EXPECT_EQ(runInteractive(options, display, signals, stats), kExitOk);
  ASSERT_EQ(stats.finalParams.chain.size(), 2);
  const BlurParams blur = blurParamsOf(stats.finalParams.chain[0]);
  EXPECT_EQ(blur.radius, 9);
  EXPECT_EQ(blur.border, BorderMode::Wrap);
  EXPECT_EQ(stats.finalParams.chain[1].intValue(kmeans_option::K), 9);  // k_inc reached the remembered kmeans
  EXPECT_EQ(stats.controlCommands, 6);
  EXPECT_EQ(stats.controlRejected, 1);
}

TEST_F(PlayerFixture, ScreenshotIsTheProcessedFrame) {
  ScriptedDisplay display;
  display.script = {{5, "screenshot"}, {6, "quit"}};
  SignalWatcher signals;
  RunStats stats;
  ASSERT_EQ(runInteractive(options, display, signals, stats), kExitOk);
  std::vector<std::string> pngs;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    if (e.path().extension() == ".png") pngs.push_back(e.path().string());
  ASSERT_EQ(pngs.size(), 1u);
  test::DecodedClip shot = test::decodeAll(pngs[0]);
  ASSERT_EQ(shot.frames.size(), 1u);
  const FrameLayout& l = shot.frames[0].info.layout;
  ASSERT_EQ(l.format, PixelFormat::Rgb24);
  ASSERT_EQ(l.width, display.width);
  EXPECT_EQ(test::packedRows(shot.frames[0], 3), display.frameAtScreenshot);
}

TEST_F(PlayerFixture, PlaysToTheEndAndPausesAndSteps) {
  ScriptedDisplay display;
  display.script = {{3, "pause toggle"}, {3, "step"}};
  SignalWatcher signals;
  RunStats stats;
  // Paused after 3 frames, one step shows the 4th, then resume: every frame is shown.
  display.script.emplace(4, "pause toggle");
  ASSERT_EQ(runInteractive(options, display, signals, stats), kExitOk);
  EXPECT_EQ(display.presented, 40);
  EXPECT_EQ(stats.framesProcessed, 40);
}

// --frames ends the window player as it ends a headless run: after that many frames,
// every one of them shown, also on a looping input.
TEST_F(PlayerFixture, FramesOptionStopsAfterThatMany) {
  for (bool loop : {false, true}) {
    ScriptedDisplay display;
    SignalWatcher signals;
    RunStats stats;
    options.frames = 7;
    options.loop = loop;
    ASSERT_EQ(runInteractive(options, display, signals, stats), kExitOk);
    EXPECT_EQ(stats.framesIn, 7);
    EXPECT_EQ(stats.framesProcessed, 7);
    EXPECT_EQ(display.presented, 7);
  }
}

TEST_F(PlayerFixture, SeekingAFileWorksAndBadInputThrows) {
  ScriptedDisplay display;
  display.script = {{10, "seek -5"}, {14, "quit"}};
  SignalWatcher signals;
  RunStats stats;
  EXPECT_EQ(runInteractive(options, display, signals, stats), kExitOk);
  EXPECT_GE(display.presented, 14);
  Options bad = options;
  bad.input = dir.file("missing.mp4");
  EXPECT_THROW(runInteractive(bad, display, signals, stats), SourceError);
}

// With a display that refreshes every 200 ms and --no-sync, the loop keeps the pipeline
// busy until the next refresh is near: many frames per refresh, not one (the loop used
// to feed and poll once per render). The period is long so that a loaded machine still
// processes several frames in it; BM_WindowPlayerAgainstVsync measures the rate. Mode
// none: the claim is about the loop, and the CPU twin's K-means, with its OpenMP
// barriers, took 0.4 s a frame on a 16-core machine running four test processes at once.
TEST_F(PlayerFixture, ADisplayWaitingForItsRefreshDoesNotCapProcessing) {
  ScriptedDisplay display;
  display.refresh = 200;
  SignalWatcher signals;
  RunStats stats;
  options.streams = 3;
  options.process.chain.clear();
  ASSERT_EQ(runInteractive(options, display, signals, stats), kExitOk);
  EXPECT_EQ(stats.framesProcessed, 40);
  EXPECT_EQ(display.presented, 40);  // --no-sync: every frame reaches the display
  EXPECT_LE(display.renders * 2, display.presented) << display.renders << " refreshes for 40 frames";
}

}  // namespace
}  // namespace vp
