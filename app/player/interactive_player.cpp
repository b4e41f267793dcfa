#include "app/player/interactive_player.h"

#include "app/player/audio_playback.h"
#include "app/player/session.h"
#include "app/player/stats.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace vp {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Time left before render() for drawing and the texture upload, so the frame makes the
// refresh it was meant for.
constexpr int64_t kRenderMarginUs = 3000;
// Without vsync and without a new frame, the HUD is redrawn this often (60 Hz).
constexpr int64_t kIdleRedrawUs = 16'667;

// Events per second over a sliding second.
class RateMeter {
 public:
  void tick(int64_t n = 1) { count_ += n; }
  // Updates `rate` once a second has passed.
  void update(float& rate, int64_t now) {
    if (start_ == 0) start_ = now;
    if (now - start_ >= 1'000'000) {
      rate = float(double(count_) * 1e6 / double(now - start_));
      count_ = 0;
      start_ = now;
    }
  }

 private:
  int64_t count_ = 0;
  int64_t start_ = 0;
};

// The window player's state between loop iterations.
// "k=8 iterations=20 ...": an element's options for its HUD line.
std::string describeOptions(const FilterElement& e) {
  std::string out;
  for (int i = 0; i < e.filter().optionCount; ++i) {
    const OptionInfo& o = e.filter().option(i);
    out += (i ? " " : "") + std::string(o.name) + "=" + formatOptionValue(o, e.value(i));
  }
  return out;
}

// "iterations 6, cost 1.2e+06, reinit": what an element reported for one frame.
std::string describeMetrics(const ElementResult& r) {
  std::string out;
  char text[64];
  for (const FilterMetric& m : r.metrics) {
    if (!m.name) continue;
    const bool whole = m.value == double(int64_t(m.value));  // counts and costs: all their digits
    std::snprintf(text, sizeof text, whole ? "%s%s %.0f" : "%s%s %.4g", out.empty() ? "" : ", ", m.name, m.value);
    out += text;
  }
  return out;
}

struct WindowLoop {
  Display& display;
  Session& session;
  HudData hud;
  RateMeter shown, processed, decoded;  // frames drawn, out of the pipeline, out of the decoder
  int64_t lastDecoded = 0;
  bool unshown = false;  // a frame was presented since the last render: not on screen yet

  // After render(): the frame presented before it is on screen; its latency is counted.
  void shownNow() {
    if (!std::exchange(unshown, false)) return;
    const double ms = session.frameShown(steadyNowUs());
    if (ms >= 0) hud.latency.record(float(ms));
  }

  // Polls one finished frame and shows, drops or keeps it. True if it did anything.
  bool showNext() {
    const OutputFrame* out = session.poll();
    if (!out) return false;
    const PaceDecision d = session.pace(*out, steadyNowUs());
    if (d == PaceDecision::Wait) return false;
    if (d == PaceDecision::Present) {
      const auto t0 = SteadyClock::now();
      display.present(out->rgb, out->pitch, out->width, out->height);
      session.consume(*out);
      recordStages(*out);
      const float presentMs = std::chrono::duration<float, std::milli>(SteadyClock::now() - t0).count();
      hud.stage(Stage::Present).record(presentMs);
      session.stats().stages[size_t(Stage::Present)].add(presentMs);
      unshown = true;
    }
    session.release();
    processed.tick();
    return true;
  }

  void recordStages(const OutputFrame& out) {
    for (int i = 0; i < kStageCount; ++i) {
      const Stage s = static_cast<Stage>(i);
      const float ms = out.times[s];
      StageStats& row = hud.stage(s);
      if (ms >= 0 || (row.historyMs.size() > 0 && s != Stage::Present)) row.record(std::max(0.f, ms));
    }
    // Labels, options and enabled flags are fillHud's (the chain in force); the frame
    // brings its elements' times and metrics.
    const FilterChain& chain = out.params.chain;
    hud.chain.resize(size_t(chain.size()));
    for (int i = 0; i < chain.size(); ++i) {
      const ElementResult& r = out.chain[size_t(i)];
      hud.chain[size_t(i)].metrics = describeMetrics(r);
      if (r.ms >= 0) hud.element(elementLabel(chain, i)).record(r.ms);
    }
    hud.inputWidth = out.frameWidth;
    hud.inputHeight = out.frameHeight;
  }

  void fillHud() {
    // The parameters in force (they may be newer than the frame shown).
    const ProcessParams& p = session.params();
    hud.chain.resize(size_t(p.chain.size()));
    for (int i = 0; i < p.chain.size(); ++i) {
      HudData::ChainLine& line = hud.chain[size_t(i)];
      line.label = elementLabel(p.chain, i);
      line.options = describeOptions(p.chain[i]);
      line.enabled = p.chain[i].enabled();
    }
    hud.compare = p.compare;
    hud.split = p.split;
    hud.paused = session.paused();
    hud.positionS = double(session.positionUs()) * 1e-6;
    hud.queueFill = session.queue().size();
    hud.droppedLate = uint64_t(session.stats().droppedLate);
    hud.droppedQueueFull = uint64_t(session.queue().dropped());
    const TimeStats& latency = session.stats().latencyMs;
    hud.latencyP50Ms = float(latency.percentileMs(0.5));
    hud.latencyP99Ms = float(latency.percentileMs(0.99));
    hud.live = session.live();
    const SourceInfo input = session.source().info();
    hud.pixelFormat = input.pixelFormat;
    hud.decodePath = input.decodePath, hud.surface = input.surfaceFormat;
    hud.colorMatrix = input.colorMatrix, hud.hdr = input.hdr;
    hud.status = session.status();
    hud.statusSerial = session.statusSerial();
    if (const AudioPlayback* a = session.audio()) {
      hud.audio = a->description();
      hud.volume = a->volume();
      hud.muted = a->muted();
      hud.audioUnderruns = uint64_t(a->underruns());
      hud.avDiffMs = float(double(session.avDiffUs()) * 1e-3);
      hud.avDiffMaxMs = float(session.stats().avDiffMs.maxMs());
    }
    if (unshown) shown.tick();  // a new picture reaches the screen with the render that follows
    const int64_t now = steadyNowUs();
    const int64_t decodedNow = session.source().stats().framesDecoded;
    decoded.tick(decodedNow - lastDecoded);
    lastDecoded = decodedNow;
    shown.update(hud.displayFps, now);
    processed.update(hud.processedFps, now);
    decoded.update(hud.decodeFps, now);
  }
};

}  // namespace

int runInteractive(const Options& o, Display& display, const SignalWatcher& signals, RunStats& stats,
                   const AudioOutputFactory& audio) {
  Session session(o, signals, stats, Session::Role::Window);
  session.enableAudio(audio);
  session.setWindowCommands([&display](const Command& c) { return display.applyWindowCommand(c); });
  WindowLoop w{display, session, {}, {}, {}, {}, 0, false};
  const SourceInfo& info = session.sourceInfo();
  w.hud.backend = stats.backend;
  w.hud.gpuName = stats.backend == "cuda" ? stats.device : "";
  w.hud.codec = info.codec;
  w.hud.inputFps = info.fps;
  w.hud.durationS = double(info.durationUs) * 1e-6;
  w.hud.queueCapacity = session.queue().capacity();
  if (!session.audio() && !stats.audio.empty()) w.hud.audio = stats.audio;  // why there is no sound
  display.fitVideo(info.width, info.height, session.live());
  session.start();

  int64_t lastRenderUs = steadyNowUs();
  while (!session.stopRequested()) {
    for (const Command& c : display.pollCommands()) session.apply(c, Session::Origin::Key);
    session.takeControlCommands();
    if (session.quitRequested()) break;
    // Until the display's next refresh is near, keep the pipeline fed and show what is
    // due; a display that blocks in render() then does not cap processing at its rate.
    // A display that does not wait (no vsync) draws when a new frame is there, else only
    // often enough for the HUD's figures: drawing the same picture as fast as it can
    // would take the cores the decoder and the pipeline need.
    const double refreshMs = display.refreshMs();
    const bool waits = refreshMs > 0;
    const int64_t deadlineUs =
        lastRenderUs + (waits ? int64_t(refreshMs * 1e3) - kRenderMarginUs : kIdleRedrawUs);
    for (;;) {
      bool step = session.feed();
      step |= w.showNext();
      // A new frame goes to the screen at once when nothing waits for the refresh, and
      // for live input even then: a display with vsync waits in render() for its next
      // refresh, the earliest the frame can be seen anyway.
      if (session.finished() || session.stopRequested() || (w.unshown && (!waits || session.live()))) break;
      const int64_t left = deadlineUs - steadyNowUs();
      if (left <= 0) break;
      if (!step) session.waitForFrame(std::chrono::microseconds(std::min<int64_t>(left, 1000)));
    }
    if (session.finished()) break;  // end of input (mpv's default: quit at the end)
    w.fillHud();
    display.render(w.hud);
    lastRenderUs = steadyNowUs();
    w.shownNow();
  }
  return session.finish(session.interrupted() ? kExitInterrupted : kExitOk);
}

}  // namespace vp
