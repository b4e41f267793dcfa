// Window playback with sound, measured from outside the player: a paced test audio
// device (an AudioOutput that pulls 20 ms buffers in real time and keeps what it was
// given, with the wall time of each pull) and a scripted display that notes when each
// white flash is presented. Each beep's playing time (its pull's time + one buffer, the
// device's latency) must lie within 40 ms of its flash, before and after a seek and a
// pause; a volume change and mute must show in the samples.
#include "app/player/interactive_player.h"
#include "support/audio_clips.h"
#include "support/clips.h"
#include "support/ffmpeg_cli.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

namespace vp {
namespace {

int64_t steadyUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr int kRate = 48000, kBuffer = 960;  // 20 ms pulls
constexpr int64_t kBufferUs = int64_t(kBuffer) * 1'000'000 / kRate;

struct Recording {
  std::mutex mutex;  // guards both
  std::vector<float> samples;   // mono, as played
  std::vector<int64_t> pullUs;  // wall time of each pull of kBuffer samples
};

class PacedAudio final : public AudioOutput {
 public:
  explicit PacedAudio(std::shared_ptr<Recording> rec) : rec_(std::move(rec)) {}
  ~PacedAudio() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int rate() const override { return kRate; }
  int channels() const override { return 1; }
  int bufferFrames() const override { return kBuffer; }
  std::string name() const override { return "paced-test"; }
  void start(AudioRenderer& r) override {
    thread_ = std::thread([this, &r] {
      std::vector<float> buf(kBuffer);
      auto next = std::chrono::steady_clock::now();
      while (!stop_) {
        const int64_t now = steadyUs();
        r.render(buf.data(), kBuffer, now);
        {
          std::lock_guard<std::mutex> lock(rec_->mutex);
          rec_->samples.insert(rec_->samples.end(), buf.begin(), buf.end());
          rec_->pullUs.push_back(now);
        }
        next += std::chrono::microseconds(kBufferUs);
        std::this_thread::sleep_until(next);
      }
    });
  }

 private:
  std::shared_ptr<Recording> rec_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// Presents frames, notes when a white flash starts; commands by frames presented or renders.
class FlashDisplay final : public Display {
 public:
  std::multimap<int, std::string> byPresented;  // command text by frames presented
  std::multimap<int, std::string> byFlashes;    // command text by flashes presented
  int pauseRenders = 40;                          // "pause" lasts this many renders (~0.2 s+)
  std::vector<int64_t> flashUs;                   // wall time each flash was presented
  int presented = 0, renders = 0, resumeAt = -1;
  bool white = false;

  std::vector<Command> pollCommands() override {
    std::vector<Command> out;
    const auto end = byPresented.upper_bound(presented);
    for (auto it = byPresented.begin(); it != end; ++it) {
      out.push_back(commandFrom(it->second));
      if (it->second == "pause") resumeAt = renders + pauseRenders;
    }
    byPresented.erase(byPresented.begin(), end);
    const auto flashEnd = byFlashes.upper_bound(int(flashUs.size()));
    for (auto it = byFlashes.begin(); it != flashEnd; ++it) out.push_back(commandFrom(it->second));
    byFlashes.erase(byFlashes.begin(), flashEnd);
    if (resumeAt >= 0 && renders >= resumeAt) {
      out.push_back(commandFrom("pause off"));
      resumeAt = -1;
    }
    return out;
  }
  bool applyWindowCommand(const Command&) override { return false; }
  void present(const uint8_t* rgb, size_t pitch, int w, int h) override {
    double sum = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w * 3; ++x) sum += rgb[size_t(y) * pitch + size_t(x)];
    const bool now = sum / (double(w) * h * 3) > 128;
    if (now && !white) flashUs.push_back(steadyUs());
    white = now;
    ++presented;
  }
  void render(const HudData&) override {
    ++renders;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  double refreshMs() const override { return 5; }
};

struct Beep {
  int64_t playUs;  // wall time it was heard
  float peak;
};

// Beep onsets (after >= 100 ms of quiet) with their wall time of playing and peak.
std::vector<Beep> beeps(const Recording& rec) {
  std::vector<Beep> out;
  int64_t quiet = kRate;
  for (size_t i = 0; i < rec.samples.size(); ++i) {
    const float a = std::fabs(rec.samples[i]);
    const bool loud = a > 0.05f;
    if (loud && quiet > kRate / 10)
      out.push_back({rec.pullUs[i / kBuffer] + kBufferUs + int64_t(i % kBuffer) * 1'000'000 / kRate, 0.f});
    if (loud) out.back().peak = std::max(out.back().peak, a);
    quiet = loud ? 0 : quiet + 1;
  }
  return out;
}

// The beep nearest to `flashUs` and its distance.
const Beep* nearest(const std::vector<Beep>& heard, int64_t flashUs, int64_t& distanceUs) {
  const Beep* best = nullptr;
  distanceUs = INT64_MAX;
  for (const Beep& b : heard)
    if (std::llabs(b.playUs - flashUs) < distanceUs) {
      distanceUs = std::llabs(b.playUs - flashUs);
      best = &b;
    }
  return best;
}

TEST(AudioPlayback, FlashesAndBeepsStayTogetherThroughSeekPauseVolumeAndMute) {
  if (!test::haveFfmpegCli()) GTEST_SKIP() << "ffmpeg/ffprobe programs not installed (scripts/setup.sh)";
  test::TempDir dir;
  Options options;
  options.input = dir.file("clip.mp4");
  test::makeFlashBeepClip("mp4", options.input, 10);
  options.backend = Backend::Cpu;
  options.process.mode = Mode::None;
  options.streams = 2;
  FlashDisplay display;
  // Flashes at 0.4 s; 1.2 s: seek to 5 s; 5.6 s: pause ~0.2 s; flash 5.4 s; 6.2 s: volume 50;
  // flash 6.4 s (half as loud); 7.0 s: mute; flashes 7.4, 8.4, 9.4 s (silent).
  display.byPresented = {{30, "seek 5"}, {45, "pause"}, {60, "volume 50"}, {80, "mute"}};
  auto rec = std::make_shared<Recording>();
  SignalWatcher signals;
  RunStats stats;
  const AudioOutputFactory open = [rec](int, int) { return std::make_unique<PacedAudio>(rec); };
  ASSERT_EQ(runInteractive(options, display, signals, stats, open), kExitOk);
  std::lock_guard<std::mutex> lock(rec->mutex);
  const std::vector<Beep> heard = beeps(*rec);
  ASSERT_EQ(display.flashUs.size(), 6u) << "flashes at 0.4, 5.4 ... 9.4 s";
  std::string report;
  for (size_t f = 0; f < display.flashUs.size(); ++f) {
    int64_t d = 0;
    const Beep* b = nearest(heard, display.flashUs[f], d);
    report += "flash " + std::to_string(f) + ": nearest beep " + std::to_string(d / 1000) + " ms, peak " +
              std::to_string(b ? b->peak : 0) + "\n";
    if (f < 3) {
      ASSERT_NE(b, nullptr);
      EXPECT_LT(d, 40'000) << "flash " << f << " (0: start, 1: after the seek and pause, 2: after volume 50)";
    } else {
      EXPECT_GT(d, 200'000) << "flash " << f << ": muted, no beep";
    }
  }
  int64_t d0 = 0, d2 = 0;
  const Beep* loud = nearest(heard, display.flashUs[0], d0);
  const Beep* half = nearest(heard, display.flashUs[2], d2);
  ASSERT_TRUE(loud && half);
  EXPECT_NEAR(half->peak / loud->peak, 0.5, 0.05) << "volume 50";
  EXPECT_FALSE(stats.audio.empty());
  EXPECT_GT(stats.avDiffMs.count(), 0);
  RecordProperty("av_mean_ms", std::to_string(stats.avDiffMs.meanMs()));
  RecordProperty("av_max_ms", std::to_string(stats.avDiffMs.maxMs()));
  std::printf("%sA-V (player's own measure): mean %.1f ms, max %.1f ms over %lld frames; underruns %lld\n",
              report.c_str(), stats.avDiffMs.meanMs(), stats.avDiffMs.maxMs(), (long long)stats.avDiffMs.count(),
              (long long)stats.audioUnderruns);
}

}  // namespace
}  // namespace vp

namespace vp {
namespace {

// The audio-delay command plays the sound later than the picture (as --audio-delay does
// from the start); measured on the flashes 2 s and 3 s after it, once caught up.
TEST(AudioPlayback, AudioDelayPlaysTheSoundLater) {
  if (!test::haveFfmpegCli()) GTEST_SKIP() << "ffmpeg/ffprobe programs not installed (scripts/setup.sh)";
  test::TempDir dir;
  Options options;
  options.input = dir.file("clip.mp4");
  test::makeFlashBeepClip("mp4", options.input, 4);
  options.backend = Backend::Cpu;
  options.process.mode = Mode::None;
  options.streams = 2;
  FlashDisplay display;
  display.byFlashes = {{1, "audio-delay 0.1"}};  // after the flash at 0.4 s
  auto rec = std::make_shared<Recording>();
  SignalWatcher signals;
  RunStats stats;
  const AudioOutputFactory open = [rec](int, int) { return std::make_unique<PacedAudio>(rec); };
  ASSERT_EQ(runInteractive(options, display, signals, stats, open), kExitOk);
  std::lock_guard<std::mutex> lock(rec->mutex);
  const std::vector<Beep> heard = beeps(*rec);
  ASSERT_EQ(display.flashUs.size(), 4u);
  ASSERT_EQ(heard.size(), 4u);
  const double d2 = double(heard[2].playUs - display.flashUs[2]) * 1e-3;
  const double d3 = double(heard[3].playUs - display.flashUs[3]) * 1e-3;
  EXPECT_NEAR(d2, 100, 40) << "flash at 2.4 s";
  EXPECT_NEAR(d3, 100, 40) << "flash at 3.4 s";
  std::printf("beep - flash after audio-delay 0.1: %.1f, %.1f ms\n", d2, d3);
}

}  // namespace
}  // namespace vp
