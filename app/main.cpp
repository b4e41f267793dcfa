// vidproc: real-time K-means colour segmentation and box blur of video on CUDA.
// Parses options, picks headless or window mode, runs, prints the summary.
#include "app/headless_player.h"
#include "app/options.h"
#ifdef VP_WITH_WINDOW
#include "app/player.h"
#endif
#include "app/signals.h"
#include "app/stats.h"
#include "app/synthetic_run.h"
#include "io/input_devices.h"
#include "io/source.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace {

bool displayAvailable() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

}  // namespace

int main(int argc, char** argv) {
  vp::Options options;
  int exitCode = vp::kExitOk;
  if (!vp::parseOptions(argc, argv, options, exitCode)) return exitCode;
  spdlog::set_level(spdlog::level::from_str(options.logLevel));
  spdlog::set_pattern("%^[%l]%$ %v");

  if (options.listDevices) {
    std::printf("%s", vp::listCaptureDevices().c_str());
    return vp::kExitOk;
  }

  vp::SignalWatcher signals;  // before any thread starts, so all of them block the signals
  vp::RunStats stats;
  try {
    bool headless = options.headless;
#ifdef VP_WITH_WINDOW
    if (!headless && !displayAvailable()) {
      spdlog::info("no display: running headless");
      headless = true;
    }
#else
    (void)displayAvailable;
    headless = true;
#endif
    bool ran = false;
#ifdef VP_WITH_WINDOW
    if (!headless && options.synthetic.empty() && !options.decodeOnly) {
      try {
        exitCode = vp::runWindowPlayer(options, signals, stats);
        ran = true;
      } catch (const vp::WindowUnavailable& e) {
        spdlog::warn("no window ({}): running headless", e.what());
      }
    }
#endif
    if (ran) {
    } else if (!options.synthetic.empty()) {
      exitCode = vp::runSynthetic(options, signals, stats);
    } else if (options.decodeOnly) {
      exitCode = vp::runDecodeOnly(options, signals, stats);
    } else {
      exitCode = vp::runHeadless(options, signals, stats);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vidproc: %s\n", e.what());
    return vp::kExitError;
  }
  std::printf("%s", vp::formatSummary(stats).c_str());
  if (!options.statsJson.empty()) {
    try {
      vp::writeStatsJson(stats, options.statsJson);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vidproc: %s\n", e.what());
      return vp::kExitError;
    }
  }
  return exitCode;
}
