#include "app/headless_player.h"

#include "app/frame_loop.h"
#include "app/progress.h"
#include "io/encoder_sink.h"
#include "io/source.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>

namespace vp {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int64_t expectedFrames(const Options& o, const SourceInfo& info) {
  int64_t fromClip = (!o.loop && info.durationUs > 0 && info.fps > 0)
                         ? int64_t(double(info.durationUs) * 1e-6 * info.fps + 0.5)
                         : 0;
  if (o.frames > 0) return fromClip > 0 ? std::min(fromClip, o.frames) : o.frames;
  return fromClip;
}

}  // namespace

int runHeadless(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  std::unique_ptr<Processor> processor = makeProcessor(o.backend, o.streams);
  // The queue outlives the source's decode thread: declared first, destroyed last.
  FrameQueue queue(o.streams + 3, frameAllocator(*processor), sourceOptionsFrom(o).live);
  std::unique_ptr<Source> source = openSource(sourceOptionsFrom(o));
  const SourceInfo info = source->info();
  stats.input = inputDisplayName(o);
  stats.backend = processor->backendName();
  stats.device = processor->deviceName();
  spdlog::info("{}: {}x{} {} {} {:.3g} fps; {} on {}", stats.input, info.width, info.height, info.codec,
               info.pixelFormat, info.fps, stats.backend, stats.device);

  std::unique_ptr<EncoderSink> encoder;
  ProgressBar progress(expectedFrames(o, info), o.progress);
  FrameLoop loop(*source, queue, *processor);
  const auto t0 = Clock::now();
  int exitCode = kExitOk;
  source->start(queue);

  while (!loop.finished()) {
    if (signals.stopRequested()) {
      spdlog::warn("interrupted: finishing the output");
      exitCode = kExitInterrupted;
      break;
    }
    bool progressed = loop.feed(o.process);
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
      stats.addFrame(*out);
      processor->release();
      progressed = true;
      progress.update(stats.framesProcessed, double(stats.framesProcessed) / std::max(1e-9, secondsSince(t0)));
    }
    if (!progressed) loop.waitForWork();
  }
  source->stop();
  progress.finish();
  if (encoder) encoder->finish();
  stats.wallSeconds = secondsSince(t0);
  stats.framesIn = loop.framesIn();
  stats.droppedQueue = queue.dropped();
  const SourceStats ss = source->stats();
  stats.decodeErrors = ss.decodeErrors;
  const std::string fatal = source->fatalError();
  if (!fatal.empty()) {
    std::fprintf(stderr, "vidproc: %s\n", fatal.c_str());
    if (exitCode == kExitOk) exitCode = kExitError;
  }
  return exitCode;
}

}  // namespace vp
