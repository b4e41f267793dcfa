#include "app/player.h"

#include "app/control_channel.h"
#include "app/controls.h"
#include "app/frame_loop.h"
#include "app/pacing.h"
#include "io/png_writer.h"
#include "io/source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace vp {
namespace {

using Clock = std::chrono::steady_clock;

int64_t nowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count();
}

// Frames per second over a sliding second.
class RateMeter {
 public:
  void tick() { ++count_; }
  // Updates `rate` once a second has passed.
  void update(float& rate) {
    const int64_t now = nowUs();
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

// Everything one run of the player keeps between loop iterations.
struct PlayerState {
  ProcessParams params;
  bool paused = false;
  bool stepOnce = false;
  bool quit = false;
  int discard = 0;          // outputs still in flight from before a seek
  int64_t positionUs = 0;   // timestamp of the frame shown
  int64_t screenshots = 0;
  std::vector<uint8_t> lastFrame;  // the frame shown (packed RGB24), for screenshots
  int lastWidth = 0, lastHeight = 0;
};

void setStatus(HudData& hud, const std::string& text) {
  hud.status = text;
  ++hud.statusSerial;
  spdlog::info("{}", text);
}

}  // namespace

int runPlayer(const Options& o, Display& display, const SignalWatcher& signals, RunStats& stats) {
  std::unique_ptr<Processor> processor = makeProcessor(o.backend, o.streams);
  const SourceOptions sourceOptions = sourceOptionsFrom(o);
  // Live: the newest frame wins (shallow, drop-oldest queue), no pacing.
  FrameQueue queue(sourceOptions.live ? 2 : o.streams + 3, frameAllocator(*processor), sourceOptions.live);
  std::unique_ptr<Source> source = openSource(sourceOptions);
  const SourceInfo info = source->info();
  stats.input = inputDisplayName(o);
  stats.backend = processor->backendName();
  stats.device = processor->deviceName();

  HudData hud;
  hud.backend = stats.backend;
  hud.gpuName = stats.backend == "cuda" ? stats.device : "";
  hud.codec = info.codec;
  hud.inputFps = info.fps;
  hud.durationS = double(info.durationUs) * 1e-6;
  hud.queueCapacity = queue.capacity();

  std::unique_ptr<ControlChannel> control = openControlChannel(o.control);
  if (!o.output.empty()) spdlog::warn("-o {}: files are written only with --headless; not in the window", o.output);
  PlaybackClock clock(o.sync && !sourceOptions.live);
  FrameLoop loop(*source, queue, *processor);
  PlayerState st;
  st.params = o.process;
  RateMeter displayRate, processedRate;
  int64_t lastDecoded = 0, lastDecodeCheck = nowUs();
  source->start(queue);

  auto togglePause = [&] {
    st.paused = !st.paused;
    clock.reanchor();
    setStatus(hud, st.paused ? "paused" : "playing");
  };
  auto seekTo = [&](int64_t targetUs) {
    const int64_t target = std::max<int64_t>(0, targetUs);
    loop.settle();  // no upload may be reading a queue slot the seek flushes
    if (!source->seek(target)) {
      setStatus(hud, "this input cannot seek (live source)");
      return;
    }
    st.discard = processor->inFlight();
    clock.reanchor();
    setStatus(hud, "seek to " + formatClock(double(target) * 1e-6));
  };
  auto screenshot = [&](const std::string& wanted) {
    if (st.lastWidth == 0) {
      setStatus(hud, "no frame to save yet");
      return;
    }
    const std::string path = wanted.empty() ? screenshotPath(o.screenshotDir, ++st.screenshots) : wanted;
    try {
      writePng(path, st.lastFrame.data(), size_t(st.lastWidth) * 3, st.lastWidth, st.lastHeight);
      setStatus(hud, "screenshot saved: " + path);
    } catch (const std::exception& e) {
      setStatus(hud, std::string("screenshot failed: ") + e.what());
    }
  };
  auto handle = [&](Action a) {
    switch (a) {
      case Action::Quit:
        st.quit = true;
        break;
      case Action::TogglePause:
        togglePause();
        break;
      case Action::Step:
        if (st.paused) st.stepOnce = true;
        break;
      case Action::SeekBack5:
      case Action::SeekFwd5:
      case Action::SeekBack60:
      case Action::SeekFwd60:
        seekTo(st.positionUs + seekStepUs(a));
        break;
      case Action::Screenshot:
        screenshot("");
        break;
      default:
        if (applyParamAction(a, st.params)) setStatus(hud, describeParams(st.params));
    }
  };
  // Control-channel commands, between frames like keys.
  auto command = [&](const ControlCommand& c) {
    if (isParamCommand(c) && c.kind != ControlKind::Key) {
      if (applyControlParams(c, st.params)) setStatus(hud, describeParams(st.params));
      return;
    }
    switch (c.kind) {
      case ControlKind::Pause:
        if (!st.paused) togglePause();
        break;
      case ControlKind::Resume:
        if (st.paused) togglePause();
        break;
      case ControlKind::TogglePause:
        togglePause();
        break;
      case ControlKind::Step:  // like mpv's frame-step: pause first if playing
        if (!st.paused) togglePause();
        st.stepOnce = true;
        break;
      case ControlKind::SeekTo:
        seekTo(c.seekUs);
        break;
      case ControlKind::SeekBy:
        seekTo(st.positionUs + c.seekUs);
        break;
      case ControlKind::Screenshot:
        screenshot(c.path);
        break;
      case ControlKind::Quit:
        st.quit = true;
        break;
      default:
        if (!display.applyUiAction(c.action)) handle(c.action);
    }
  };

  const auto t0 = Clock::now();
  while (!st.quit) {
    if (signals.stopRequested()) break;
    for (Action a : display.pollEvents())
      if (!display.applyUiAction(a)) handle(a);
    if (control)
      for (const ControlCommand& c : control->take()) command(c);
    bool progressed = false;
    if (!st.paused || st.stepOnce) progressed |= loop.feed(st.params);
    if (o.frames > 0 && loop.framesIn() >= o.frames) loop.stopFeeding();  // --frames, as headless

    if (const OutputFrame* out = processor->poll(false)) {
      // Dropping a late frame only helps when a newer one is already there to show.
      const bool isLast = processor->finished() < 2;
      PaceDecision d = PaceDecision::Present;
      if (st.discard > 0) {
        d = PaceDecision::Drop;
        --st.discard;
      } else if (st.paused && !st.stepOnce) {
        d = PaceDecision::Wait;
      } else {
        d = clock.decide(out->ptsUs, nowUs(), isLast);
        if (d == PaceDecision::Drop) ++stats.droppedLate;
      }
      if (d == PaceDecision::Present) {
        const auto tp = Clock::now();
        display.present(out->rgb, out->pitch, out->width, out->height);
        const size_t row = size_t(out->width) * 3;
        st.lastFrame.resize(row * size_t(out->height));
        st.lastWidth = out->width;
        st.lastHeight = out->height;
        for (int y = 0; y < out->height; ++y)
          std::memcpy(&st.lastFrame[row * size_t(y)], out->rgb + size_t(y) * out->pitch, row);
        stats.addFrame(*out);
        stats.queueDepth.add(queue.size());
        const StageTimes& t = out->times;
        hud.stage(HudStage::Upload).record(std::max(0.f, t.uploadMs));
        hud.stage(HudStage::Convert).record(std::max(0.f, t.convertMs));
        hud.stage(HudStage::Kmeans).record(std::max(0.f, t.kmeansMs));
        hud.stage(HudStage::Blur).record(std::max(0.f, t.blurMs));
        hud.stage(HudStage::Download).record(std::max(0.f, t.downloadMs));
        hud.kmeansIterations = out->kmeansIterations;
        hud.inputWidth = out->width;
        hud.inputHeight = out->height;
        st.positionUs = out->ptsUs;
        st.stepOnce = false;
        displayRate.tick();
        const float presentMs = std::chrono::duration<float, std::milli>(Clock::now() - tp).count();
        hud.stage(HudStage::Present).record(presentMs);
        stats.stages[kPresent].add(presentMs);
      }
      if (d != PaceDecision::Wait) {
        processor->release();
        processedRate.tick();
        progressed = true;
      }
    }
    if (loop.finished() && st.discard == 0) break;  // end of input (mpv's default: quit at the end)

    hud.mode = std::string(modeName(st.params.mode));
    hud.k = st.params.kmeans.k;
    hud.radius = st.params.blur.radius;
    hud.passes = st.params.blur.passes;
    hud.border = std::string(borderModeName(st.params.blur.border));
    hud.paused = st.paused;
    hud.positionS = double(st.positionUs) * 1e-6;
    hud.queueFill = queue.size();
    hud.droppedLate = uint64_t(stats.droppedLate);
    hud.droppedQueueFull = uint64_t(queue.dropped());
    const SourceInfo now = source->info();
    hud.pixelFormat = now.pixelFormat;
    hud.decodePath = now.decodePath, hud.surface = now.surfaceFormat;
    hud.colorMatrix = now.colorMatrix, hud.hdr = now.hdr;
    displayRate.update(hud.displayFps);
    processedRate.update(hud.processedFps);
    if (nowUs() - lastDecodeCheck >= 1'000'000) {
      const int64_t decoded = source->stats().framesDecoded;
      hud.decodeFps = float(double(decoded - lastDecoded) * 1e6 / double(nowUs() - lastDecodeCheck));
      lastDecoded = decoded;
      lastDecodeCheck = nowUs();
    }
    display.render(hud);
    if (!progressed && !display.paced()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  source->stop();
  stats.finalParams = st.params;
  stats.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  stats.framesIn = loop.framesIn();
  stats.droppedQueue = queue.dropped();
  stats.queueCapacity = queue.capacity();
  if (control) {
    stats.controlCommands = control->accepted();
    stats.controlRejected = control->rejected();
  }
  stats.decodeErrors = source->stats().decodeErrors;
  const std::string fatal = source->fatalError();
  if (!fatal.empty()) {
    std::fprintf(stderr, "vidproc: %s\n", fatal.c_str());
    return kExitError;
  }
  return signals.stopRequested() ? kExitInterrupted : kExitOk;
}

}  // namespace vp
