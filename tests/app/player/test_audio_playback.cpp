// Window playback with sound, measured from outside the player: a paced test audio
// device (an AudioOutput that pulls 20 ms buffers in turn and keeps what it was given,
// with the time of each pull) and a scripted display that notes when each white flash is
// presented and the timestamp of the frame shown. The A-V figure of a flash is in media
// time: the picture's timestamp against the sound's position as it is presented, read
// as the player could read it (the last buffer handed over, heard one buffer after its
// pull; its samples' media time from the beep's onset in the recording). So a flash whose
// first frame the player dropped late is judged by the frame it did show, and a pull
// that comes late after the presentation (the test's thread starved) does not count.
// The picture may be as late as the player's own rule allows (FramePacer::
// kLateToleranceUs: later frames are dropped) and never early; a flash not shown at all
// needs its two frames among those the player reports dropped late. A volume change and
// mute must show in the samples. Commands are scripted by the position shown, not by frames
// presented, so late frames the player drops do not move them. ctest runs these tests
// alone (tests/CMakeLists.txt).
#include "app/player/clock.h"
#include "app/player/interactive_player.h"
#include "support/audio_clips.h"
#include "support/clips.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
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
  std::vector<int64_t> pullUs;  // when each buffer of kBuffer samples was handed over
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
    // A pull every buffer (at t0 + n buffers). One that comes a whole buffer late (this
    // thread starved) restarts the schedule from it, as a card does after an underrun,
    // rather than catching up with pulls in a burst, which no card makes.
    thread_ = std::thread([this, &r] {
      std::vector<float> buf(kBuffer);
      int64_t due = steadyUs();  // when this pull is due: t0 + n buffers
      while (!stop_) {
        const int64_t now = steadyUs();
        if (now - due >= kBufferUs) due = now;  // missed its turn: an underrun
        r.render(buf.data(), kBuffer, now);
        {
          std::lock_guard<std::mutex> lock(rec_->mutex);
          rec_->samples.insert(rec_->samples.end(), buf.begin(), buf.end());
          rec_->pullUs.push_back(now);
        }
        due += kBufferUs;
        std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::microseconds(due)));
      }
    });
  }

 private:
  std::shared_ptr<Recording> rec_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
};

// Presents frames and notes when a white flash starts (wall time, and the position the
// player shows with it). Commands go out by flashes presented (`byFlashes`) or, in order,
// once the position shown reaches their time (`atPosition`); "pause" lasts `pauseRenders`.
class FlashDisplay final : public Display {
 public:
  struct Flash {
    int64_t wallUs;            // when it was presented
    double positionS = -1.0;   // the position shown with it
  };
  std::vector<std::pair<double, std::string>> atPosition;  // (seconds, command), in order
  std::multimap<int, std::string> byFlashes;                // command text by flashes presented
  std::string controlPath;  // when set, byFlashes commands are appended there (--control) instead
  int pauseRenders = 40;                                    // ~0.2 s+
  std::vector<Flash> flashes;
  double positionS = 0.0;
  int renders = 0, resumeAt = -1;
  bool white = false;

  std::vector<Command> pollCommands() override {
    std::vector<Command> out;
    if (!atPosition.empty() && positionS >= atPosition.front().first) {
      const std::string text = atPosition.front().second;
      atPosition.erase(atPosition.begin());
      out.push_back(commandFrom(text));
      if (text == "pause") resumeAt = renders + pauseRenders;
    }
    const auto flashEnd = byFlashes.upper_bound(int(flashes.size()));
    for (auto it = byFlashes.begin(); it != flashEnd; ++it) {
      if (controlPath.empty()) {
        out.push_back(commandFrom(it->second));
      } else {
        std::ofstream(controlPath, std::ios::app) << it->second << "\n";
      }
    }
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
    if (now && !white) flashes.push_back({steadyUs()});
    white = now;
  }
  void render(const HudData& hud) override {
    positionS = hud.positionS;
    if (!flashes.empty() && flashes.back().positionS < 0) flashes.back().positionS = hud.positionS;
    ++renders;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  double refreshMs() const override { return 5; }

  // The flashes of `times` (seconds into the clip) that were not shown: each needs two
  // frames dropped late (RunStats::droppedLate), as a starved player may drop them.
  int missing(std::initializer_list<double> times) const {
    int n = 0;
    for (const double t : times) n += at(t) == nullptr;
    return n;
  }

  // The flash shown at `seconds` into the clip (within half a second), or null.
  const Flash* at(double seconds) const {
    for (const Flash& f : flashes)
      if (std::fabs(f.positionS - seconds) < 0.5) return &f;
    return nullptr;
  }
};

struct Beep {
  size_t onset;    // sample index
  int64_t playUs;  // wall time it plays, as the player handed it over (one buffer after its pull)
  float peak;
};

// Beep onsets (after >= 100 ms of quiet) with their time of playing and peak.
std::vector<Beep> beeps(const Recording& rec) {
  std::vector<Beep> out;
  int64_t quiet = kRate;
  for (size_t i = 0; i < rec.samples.size(); ++i) {
    const float a = std::fabs(rec.samples[i]);
    const bool loud = a > 0.05f;
    if (loud && quiet > kRate / 10)
      out.push_back({i, rec.pullUs[i / kBuffer] + kBufferUs + int64_t(i % kBuffer) * 1'000'000 / kRate, 0.f});
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

// How late the flash starting at `flashS` in the clip was shown against its beep `b`, in
// media time (positive: the picture after the sound). The sound's position when the
// flash was presented is read as the player could read it: from the last buffer handed
// over before then (heard one buffer later), its samples' media time taken from the
// beep's onset in the recording. So a pull that comes late after the presentation (the
// test's device thread starved) does not count against the player.
int64_t pictureLateUs(const Recording& rec, const FlashDisplay::Flash& f, const Beep& b, double flashS) {
  const auto next = std::upper_bound(rec.pullUs.begin(), rec.pullUs.end(), f.wallUs);
  if (next == rec.pullUs.begin()) return INT64_MAX;  // no sound yet
  const size_t n = size_t(next - rec.pullUs.begin()) - 1;
  const int64_t firstSampleUs =
      std::llround(flashS * 1e6) + (int64_t(n * kBuffer) - int64_t(b.onset)) * 1'000'000 / kRate;
  const int64_t soundUs = firstSampleUs - kBufferUs + (f.wallUs - rec.pullUs[n]);
  return soundUs - std::llround(f.positionS * 1e6);
}

// The picture is never early (one 5 ms redraw of slack) and at most as late as the player
// lets a frame be before it drops it.
constexpr int64_t kEarlyUs = 5'000, kLateUs = FramePacer::kLateToleranceUs;

// Options that play a clip of `seconds` with a flash and a beep each second (made in `dir`
// with libavcodec: no ffmpeg program needed), unprocessed, on the CPU backend.
Options flashClip(const test::TempDir& dir, double seconds) {
  Options options;
  options.input = dir.file("clip.mp4");
  test::makeFlashBeepClip("mp4", options.input, seconds);
  options.backend = Backend::Cpu;
  options.process.chain.clear();
  options.streams = 2;
  return options;
}

TEST(AudioPlayback, FlashesAndBeepsStayTogetherThroughSeekPauseVolumeAndMute) {
  test::TempDir dir;
  Options options = flashClip(dir, 10);
  FlashDisplay display;
  // Flash at 0.4 s; 1.2 s: seek to 5 s; 5.6 s: pause ~0.2 s; 6.2 s: volume 50; flash 6.4 s
  // (half as loud); 7.0 s: mute; flashes 7.4, 8.4, 9.4 s (silent).
  display.atPosition = {{1.2, "seek 5"}, {5.6, "pause"}, {6.2, "volume 50"}, {7.0, "mute"}};
  auto rec = std::make_shared<Recording>();
  SignalWatcher signals;
  RunStats stats;
  const AudioOutputFactory open = [rec](int, int) { return std::make_unique<PacedAudio>(rec); };
  ASSERT_EQ(runInteractive(options, display, signals, stats, open), kExitOk);
  std::lock_guard<std::mutex> lock(rec->mutex);
  const std::vector<Beep> heard = beeps(*rec);
  std::string report;
  for (const FlashDisplay::Flash& f : display.flashes) {
    int64_t d = 0;
    const Beep* b = nearest(heard, f.wallUs, d);
    const double start = std::floor(f.positionS - 0.4 + 0.5) + 0.4;  // the flash's first frame
    report += "flash shown at " + std::to_string(f.positionS) + " s: picture late by " +
              (b ? std::to_string(pictureLateUs(*rec, f, *b, start) / 1000) : std::string("?")) + " ms, peak " +
              std::to_string(b ? b->peak : 0) + "\n";
  }
  SCOPED_TRACE(report + "frames dropped late: " + std::to_string(stats.droppedLate));
  // Heard: the beeps at 0.4 s, after the seek 5.4 s, after the pause and volume 50 6.4 s
  // (half as loud); none once muted.
  ASSERT_EQ(heard.size(), 3u);
  EXPECT_NEAR(heard[1].peak / heard[0].peak, 1.0, 0.05) << "full volume after the seek";
  EXPECT_NEAR(heard[2].peak / heard[0].peak, 0.5, 0.05) << "volume 50";
  // With the picture: the flashes shown among those three.
  for (const double at : {0.4, 5.4, 6.4}) {
    const FlashDisplay::Flash* f = display.at(at);
    if (!f) continue;
    int64_t d = 0;
    const Beep* b = nearest(heard, f->wallUs, d);
    ASSERT_NE(b, nullptr);
    const int64_t late = pictureLateUs(*rec, *f, *b, at);
    EXPECT_GE(late, -kEarlyUs) << "flash at " << at << " s";
    EXPECT_LE(late, kLateUs) << "flash at " << at << " s";
  }
  EXPECT_LE(2 * display.missing({0.4, 5.4, 6.4}), stats.droppedLate) << "a flash not shown, no frames dropped late";
  // Muted: the later flashes have no beep near them.
  int mutedFlashes = 0;
  for (const FlashDisplay::Flash& f : display.flashes) {
    if (f.positionS < 7.0) continue;
    ++mutedFlashes;
    int64_t d = 0;
    nearest(heard, f.wallUs, d);
    EXPECT_GT(d, 200'000) << "muted, yet a beep near the flash at " << f.positionS << " s";
  }
  EXPECT_LE(2 * display.missing({7.4, 8.4, 9.4}), stats.droppedLate) << "flashes at 7.4, 8.4, 9.4 s";
  EXPECT_FALSE(stats.audio.empty());
  EXPECT_GT(stats.avDiffMs.count(), 0);
  RecordProperty("av_mean_ms", std::to_string(stats.avDiffMs.meanMs()));
  RecordProperty("av_max_ms", std::to_string(stats.avDiffMs.maxMs()));
  std::printf("%sA-V (player's own measure): mean %.1f ms, max %.1f ms over %lld frames; underruns %lld\n",
              report.c_str(), stats.avDiffMs.meanMs(), stats.avDiffMs.maxMs(), (long long)stats.avDiffMs.count(),
              (long long)stats.audioUnderruns);
}

// The audio-delay command, sent through the control channel (--control FILE), plays the
// sound later than the picture (as --audio-delay does from the start); measured on the
// flashes at 2.4, 3.4 and 4.4 s, once caught up (those a starved player did not drop).
TEST(AudioPlayback, AudioDelayPlaysTheSoundLater) {
  test::TempDir dir;
  Options options = flashClip(dir, 5);
  FlashDisplay display;
  display.byFlashes = {{1, "audio-delay 0.1"}};  // after the flash at 0.4 s
  display.controlPath = options.control = dir.file("control.txt");
  std::ofstream(options.control) << "";
  auto rec = std::make_shared<Recording>();
  SignalWatcher signals;
  RunStats stats;
  const AudioOutputFactory open = [rec](int, int) { return std::make_unique<PacedAudio>(rec); };
  ASSERT_EQ(runInteractive(options, display, signals, stats, open), kExitOk);
  std::lock_guard<std::mutex> lock(rec->mutex);
  const std::vector<Beep> heard = beeps(*rec);
  ASSERT_EQ(heard.size(), 5u);
  // The sound 100 ms after the picture: the picture 100 ms early against it, give or take
  // what the player allows.
  std::string report;
  int measured = 0;
  for (int i = 2; i < 5; ++i) {
    const double at = i + 0.4;
    const FlashDisplay::Flash* f = display.at(at);
    if (!f) continue;
    const double d = double(pictureLateUs(*rec, *f, heard[size_t(i)], at)) * 1e-3;
    EXPECT_GE(d, -100 - kEarlyUs * 1e-3) << "flash at " << at << " s";
    EXPECT_LE(d, -100 + kLateUs * 1e-3) << "flash at " << at << " s";
    report += " " + std::to_string(d).substr(0, 6);
    ++measured;
  }
  EXPECT_GE(measured, 1) << "no flash shown after the delay";
  EXPECT_LE(2 * display.missing({2.4, 3.4, 4.4}), stats.droppedLate) << "a flash not shown, no frames dropped late";
  std::printf("picture late against the sound after audio-delay 0.1 (ms):%s\n", report.c_str());
}

// No audio device (a server, CI, a broken sound setup): the video plays on its own clock,
// every frame, and the run says why there is no sound.
TEST(AudioPlayback, WithoutADeviceTheVideoPlaysAndSaysWhy) {
  test::TempDir dir;
  Options options = flashClip(dir, 3);
  FlashDisplay display;
  SignalWatcher signals;
  RunStats stats;
  const AudioOutputFactory open = [](int, int) -> std::unique_ptr<AudioOutput> {
    throw std::runtime_error("no audio device here");
  };
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(runInteractive(options, display, signals, stats, open), kExitOk);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Every flash, but those a starved player dropped late.
  EXPECT_GE(display.flashes.size(), 1u);
  EXPECT_LE(2 * display.missing({0.4, 1.4, 2.4}), stats.droppedLate) << "a flash not shown, no frames dropped late";
  EXPECT_GT(seconds, 2.5) << "played at the clip's pace";
  EXPECT_NE(stats.audio.find("no audio device here"), std::string::npos) << stats.audio;
  EXPECT_EQ(stats.avDiffMs.count(), 0) << "no audio clock, no A-V figure";
}

}  // namespace
}  // namespace vp
