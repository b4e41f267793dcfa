// The player loop against a scripted null display: key actions change the
// parameters within bounds, screenshots save the processed frame, quit ends.
#include "app/player.h"
#include "support/clips.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

namespace vp {
namespace {

class ScriptedDisplay final : public Display {
 public:
  // Actions delivered once `presented` frames have been shown.
  std::multimap<int, Action> script;
  std::vector<uint8_t> lastFrame;
  int width = 0, height = 0, presented = 0, renders = 0;
  std::vector<uint8_t> frameAtScreenshot;

  std::vector<Action> pollEvents() override {
    std::vector<Action> out;
    auto end = script.upper_bound(presented);
    for (auto it = script.begin(); it != end; ++it) {
      out.push_back(it->second);
      if (it->second == Action::Screenshot) frameAtScreenshot = lastFrame;
    }
    script.erase(script.begin(), end);
    return out;
  }
  bool applyUiAction(Action) override { return false; }
  void present(const uint8_t* rgb, size_t pitch, int w, int h) override {
    width = w;
    height = h;
    lastFrame.resize(size_t(w) * h * 3);
    for (int y = 0; y < h; ++y) std::memcpy(&lastFrame[size_t(y) * w * 3], rgb + size_t(y) * pitch, size_t(w) * 3);
    ++presented;
  }
  void render(const HudData&) override { ++renders; }
  bool paced() const override { return false; }
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
  display.script = {{2, Action::KInc}, {2, Action::KInc}, {3, Action::RadiusInc}, {4, Action::ModeBlur},
                    {5, Action::CyclePasses}, {6, Action::CycleBorder}, {8, Action::Quit}};
  SignalWatcher signals;
  RunStats stats;
  options.process.kmeans.k = 31;
  EXPECT_EQ(runPlayer(options, display, signals, stats), kExitOk);
  EXPECT_EQ(stats.finalParams.kmeans.k, 32);  // bounded
  EXPECT_EQ(stats.finalParams.blur.radius, options.process.blur.radius + 1);
  EXPECT_EQ(stats.finalParams.mode, Mode::Blur);
  EXPECT_EQ(stats.finalParams.blur.passes, 2);
  EXPECT_EQ(stats.finalParams.blur.border, BorderMode::Reflect);
  EXPECT_GE(display.presented, 8);
  EXPECT_LT(display.presented, 40);  // quit before the end
}

// The control channel reaches the window player too: commands apply between
// frames, quit ends the looping input.
TEST_F(PlayerFixture, ControlChannelCommandsApplyAndQuit) {
  const std::string control = dir.file("ctl.txt");
  std::ofstream(control) << "mode blur\nradius 9\nbogus\nk_inc\nborder wrap\nquit\n";
  options.control = control;
  options.loop = true;  // only quit can end it
  options.process.kmeans.k = 8;
  ScriptedDisplay display;
  SignalWatcher signals;
  RunStats stats;
  EXPECT_EQ(runPlayer(options, display, signals, stats), kExitOk);
  EXPECT_EQ(stats.finalParams.mode, Mode::Blur);
  EXPECT_EQ(stats.finalParams.blur.radius, 9);
  EXPECT_EQ(stats.finalParams.blur.border, BorderMode::Wrap);
  EXPECT_EQ(stats.finalParams.kmeans.k, 9);
  EXPECT_EQ(stats.controlCommands, 5);
  EXPECT_EQ(stats.controlRejected, 1);
}

TEST_F(PlayerFixture, ScreenshotIsTheProcessedFrame) {
  ScriptedDisplay display;
  display.script = {{5, Action::Screenshot}, {6, Action::Quit}};
  SignalWatcher signals;
  RunStats stats;
  ASSERT_EQ(runPlayer(options, display, signals, stats), kExitOk);
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
  display.script = {{3, Action::TogglePause}, {3, Action::Step}};
  SignalWatcher signals;
  RunStats stats;
  // Paused after 3 frames, one step shows the 4th, then resume: every frame is shown.
  display.script.emplace(4, Action::TogglePause);
  ASSERT_EQ(runPlayer(options, display, signals, stats), kExitOk);
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
    ASSERT_EQ(runPlayer(options, display, signals, stats), kExitOk);
    EXPECT_EQ(stats.framesIn, 7);
    EXPECT_EQ(stats.framesProcessed, 7);
    EXPECT_EQ(display.presented, 7);
  }
}

TEST_F(PlayerFixture, SeekingAFileWorksAndBadInputThrows) {
  ScriptedDisplay display;
  display.script = {{10, Action::SeekBack5}, {14, Action::Quit}};
  SignalWatcher signals;
  RunStats stats;
  EXPECT_EQ(runPlayer(options, display, signals, stats), kExitOk);
  EXPECT_GE(display.presented, 14);
  Options bad = options;
  bad.input = dir.file("missing.mp4");
  EXPECT_THROW(runPlayer(bad, display, signals, stats), SourceError);
}

}  // namespace
}  // namespace vp
