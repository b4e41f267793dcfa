#include "app/headless_player.h"

#include "app/control_channel.h"
#include "app/controls.h"
#include "app/frame_loop.h"
#include "app/progress.h"
#include "io/encoder_sink.h"
#include "io/png_writer.h"
#include "io/source.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

namespace vp {
namespace {

using Clock = std::chrono::steady_clock;

// While paused with nothing in flight the loop sleeps on the control channel; this
// bounds how late it notices a signal.
constexpr std::chrono::milliseconds kPausedWait{50};

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int64_t expectedFrames(const Options& o, const SourceInfo& info) {
  int64_t fromClip = (!o.loop && info.durationUs > 0 && info.fps > 0)
                         ? int64_t(double(info.durationUs) * 1e-6 * info.fps + 0.5)
                         : 0;
  if (o.frames > 0) return fromClip > 0 ? std::min(fromClip, o.frames) : o.frames;
  return fromClip;
}

// What the control channel changes between frames.
struct HeadlessState {
  ProcessParams params;
  bool paused = false;
  int steps = 0;  // frames still to submit while paused
  bool quit = false;
  int64_t positionUs = 0;                 // timestamp of the last processed frame
  int64_t screenshots = 0;                // screenshots named so far
  std::vector<std::string> pendingShots;  // written from the next processed frame
};

// Applies one command at a frame boundary. Without a window, a screenshot is the
// next frame to come out of the processor (no per-frame copy is kept).
void apply(const ControlCommand& c, const Options& o, HeadlessState& st, FrameLoop& loop, Source& source) {
  if (isParamCommand(c)) {
    if (applyControlParams(c, st.params)) spdlog::info("control: {}", describeParams(st.params));
    return;
  }
  switch (c.kind) {
    case ControlKind::Pause:
      st.paused = true;
      break;
    case ControlKind::Resume:
      st.paused = false, st.steps = 0;
      break;
    case ControlKind::TogglePause:
      st.paused = !st.paused, st.steps = 0;
      break;
    case ControlKind::Step:
      st.paused = true, ++st.steps;
      break;
    case ControlKind::SeekTo:
    case ControlKind::SeekBy: {
      const int64_t target =
          std::max<int64_t>(0, c.kind == ControlKind::SeekTo ? c.seekUs : st.positionUs + c.seekUs);
      loop.settle();  // no upload may be reading a queue slot the seek flushes
      if (!source.seek(target)) {
        spdlog::warn("control: '{}': this input cannot seek", c.text);
        break;
      }
      st.positionUs = target;
      spdlog::info("control: seek to {:.3f} s", double(target) * 1e-6);
      break;
    }
    case ControlKind::Screenshot:
      st.pendingShots.push_back(c.path.empty() ? screenshotPath(o.screenshotDir, ++st.screenshots) : c.path);
      break;
    case ControlKind::Quit:
      st.quit = true;
      break;
    default:
      spdlog::warn("control: '{}' needs a window; ignored", c.text);
  }
  if (c.kind == ControlKind::Pause || c.kind == ControlKind::Resume || c.kind == ControlKind::TogglePause)
    spdlog::info("control: {}", st.paused ? "paused" : "playing");
}

void saveScreenshots(HeadlessState& st, const OutputFrame& out) {
  for (const std::string& path : st.pendingShots) {
    try {
      writePng(path, out.rgb, out.pitch, out.width, out.height);
      spdlog::info("screenshot saved: {}", path);
    } catch (const std::exception& e) {
      spdlog::warn("screenshot failed: {}", e.what());
    }
  }
  st.pendingShots.clear();
}

}  // namespace

int runHeadless(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  std::unique_ptr<ControlChannel> control = openControlChannel(o.control);
  std::unique_ptr<Processor> processor = makeProcessor(o.backend, o.streams);
  // The queue outlives the source's decode thread: declared first, destroyed last.
  FrameQueue queue(o.streams + 3, frameAllocator(*processor), sourceOptionsFrom(o).live);
  std::unique_ptr<Source> source = openSource(sourceOptionsFrom(o));
  const SourceInfo info = source->info();
  stats.input = inputDisplayName(o);
  stats.backend = processor->backendName();
  stats.device = processor->deviceName();
  stats.queueCapacity = queue.capacity();
  spdlog::info("{}: {}x{} {} {} {:.3g} fps; {} on {}", stats.input, info.width, info.height, info.codec,
               info.pixelFormat, info.fps, stats.backend, stats.device);

  std::unique_ptr<EncoderSink> encoder;
  ProgressBar progress(expectedFrames(o, info), o.progress);
  FrameLoop loop(*source, queue, *processor);
  HeadlessState st;
  st.params = o.process;
  const auto t0 = Clock::now();
  const double cpu0 = processCpuSeconds();
  int exitCode = kExitOk;
  source->start(queue);

  while (!loop.finished()) {
    if (signals.stopRequested()) {
      spdlog::warn("interrupted: finishing the output");
      exitCode = kExitInterrupted;
      break;
    }
    if (control)
      for (const ControlCommand& c : control->take()) apply(c, o, st, loop, *source);
    if (st.quit) {
      spdlog::info("quit: finishing the output");
      break;
    }
    bool progressed = false;
    if (!st.paused || st.steps > 0) {
      const int64_t before = loop.framesIn();
      progressed = loop.feed(st.params);
      if (st.paused && loop.framesIn() > before) --st.steps;
    } else {
      loop.settle();  // paused: hand the pending upload's queue slot back, submit nothing new
    }
    if (o.frames > 0 && loop.framesIn() >= o.frames) loop.stopFeeding();
    while (const OutputFrame* out = processor->poll(false)) {
      auto tEncode = Clock::now();
      if (!o.output.empty()) {
        if (!encoder) {
          EncoderOptions eo;
          eo.path = o.output;
          eo.codec = o.codec;
          eo.overwrite = o.overwrite;
          eo.width = out->width;
          eo.height = out->height;
          eo.fps = info.fps > 0 ? info.fps : 30.0;
          encoder = EncoderSink::open(eo);
        }
        encoder->write(out->rgb, out->pitch, out->width, out->height,
                       out->ptsUs);
        stats.stages[kEncode].add(secondsSince(tEncode) * 1e3);
      }
      if (!st.pendingShots.empty()) saveScreenshots(st, *out);
      st.positionUs = out->ptsUs;
      stats.addFrame(*out);
      stats.queueDepth.add(queue.size());
      processor->release();
      progressed = true;
      progress.update(stats.framesProcessed,
                      double(stats.framesProcessed) / std::max(1e-9, secondsSince(t0)));
    }
    if (progressed) continue;
    // Paused and drained: sleep until a command arrives (no busy wait).
    if (control && st.paused && st.steps == 0 && processor->inFlight() == 0)
      control->waitFor(kPausedWait);
    else
      loop.waitForWork();
  }
  source->stop();
  progress.finish();
  if (encoder) encoder->finish();
  stats.wallSeconds = secondsSince(t0);
  stats.cpuSeconds = processCpuSeconds() - cpu0;
  stats.framesIn = loop.framesIn();
  stats.finalParams = st.params;  // the parameters in force at the end, even if no frame used them yet
  stats.droppedQueue = queue.dropped();
  if (control) {
    stats.controlCommands = control->accepted();
    stats.controlRejected = control->rejected();
  }
  const SourceStats ss = source->stats();
  stats.decodeErrors = ss.decodeErrors;
  const SourceInfo last = source->info();
  stats.decodePath = last.decodePath, stats.surfaceFormat = last.surfaceFormat;
  stats.colorMatrix = last.colorMatrix, stats.hdr = last.hdr;
  const std::string fatal = source->fatalError();
  if (!fatal.empty()) {
    std::fprintf(stderr, "vidproc: %s\n", fatal.c_str());
    if (exitCode == kExitOk) exitCode = kExitError;
  }
  return exitCode;
}

}  // namespace vp
