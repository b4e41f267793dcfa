#include "app/player/headless_player.h"

#include "app/player/progress.h"
#include "app/player/session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace vp {
namespace {

int64_t expectedFrames(const Options& o, const SourceInfo& info) {
  int64_t fromClip = (!o.loop && info.durationUs > 0 && info.fps > 0)
                         ? int64_t(double(info.durationUs) * 1e-6 * info.fps + 0.5)
                         : 0;
  if (o.frames > 0) return fromClip > 0 ? std::min(fromClip, o.frames) : o.frames;
  return fromClip;
}

}  // namespace

int runHeadless(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  Session session(o, signals, stats, Session::Role::Headless);
  ProgressBar progress(expectedFrames(o, session.sourceInfo()), o.progress);
  const auto t0 = std::chrono::steady_clock::now();
  int exitCode = kExitOk;
  session.start();
  while (!session.finished()) {
    if (session.interrupted()) {
      spdlog::warn("interrupted: finishing the output");
      exitCode = kExitInterrupted;
      break;
    }
    session.takeControlCommands();
    if (session.quitRequested() && !session.screenshotDue()) {
      spdlog::info("quit: finishing the output");
      break;
    }
    bool progressed = session.feed();
    // Every frame is written as soon as it is processed: no pacing headless.
    while (const OutputFrame* out = session.poll()) {
      session.consume(*out);
      session.release();
      progressed = true;
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      progress.update(stats.framesProcessed, double(stats.framesProcessed) / std::max(1e-9, elapsed));
    }
    if (!progressed) session.waitForWork();
  }
  progress.finish();
  return session.finish(exitCode);
}

}  // namespace vp
