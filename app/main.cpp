// vidproc: real-time video filters on CUDA for files, webcams and live streams.
// Parses options, picks headless or window mode, runs, prints the summary.
#include "app/player/headless_player.h"
#include "app/options.h"
#ifdef VP_WITH_WINDOW
#include "app/ui/window_display.h"
#endif
#include "app/input/signals.h"
#include "app/player/stats.h"
#include "app/player/benchmark_modes.h"
#include "gpu/cuda/cuda_devices.h"
#include "gpu/cuda/device_info.h"
#include "io/capture/input_devices.h"
#include "io/source.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace {

#ifdef VP_WITH_WINDOW
bool displayAvailable() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}
#endif

// Picks the loop: a benchmark mode, the window (when a display is there), or headless.
int run(const vp::Options& o, const vp::SignalWatcher& signals, vp::RunStats& stats) {
  if (!o.synthetic.empty()) return vp::runSynthetic(o, signals, stats);
  if (o.decodeOnly) return vp::runDecodeOnly(o, signals, stats);
#ifdef VP_WITH_WINDOW
  if (!o.headless && !displayAvailable()) {
    spdlog::info("no display: running headless");
  } else if (!o.headless) {
    try {
      return vp::runWindowPlayer(o, signals, stats);
    } catch (const vp::WindowUnavailable& e) {
      spdlog::warn("no window ({}): running headless", e.what());
    }
  }
#endif
  return vp::runHeadless(o, signals, stats);
}

}  // namespace

int main(int argc, char** argv) {
  vp::Options options;
  int exitCode = vp::kExitOk;
  if (!vp::parseOptions(argc, argv, options, exitCode)) return exitCode;
  spdlog::set_level(spdlog::level::from_str(options.logLevel));
  spdlog::set_pattern("%^[%l]%$ %v");

  if (options.listGpus) {
    std::printf("%s", vp::listCudaDevices().c_str());
    return vp::kExitOk;
  }
  if (options.listDevices) {
    std::printf("%s", vp::listCaptureDevices().c_str());
    return vp::kExitOk;
  }

  vp::SignalWatcher signals;  // before any thread starts, so all of them block the signals
  vp::RunStats stats;
  try {
    if (options.backend != vp::Backend::Cpu && (options.gpu != 0 || vp::cudaDeviceCountOrZero() > 0))
      vp::selectCudaDevice(options.gpu);  // the pipeline's device; the decoder uses the same one
    exitCode = run(options, signals, stats);
  } catch (const std::exception& e) {
    if (!signals.stopRequested()) {
      std::fprintf(stderr, "vidproc: %s\n", e.what());
      return vp::kExitError;
    }
    // Ctrl-C while opening (a stream that has not sent yet, a window coming up): an
    // interrupted run like any other, so the summary and the stats the user asked for
    // are still written.
    std::fprintf(stderr, "vidproc: interrupted\n");
    exitCode = vp::kExitInterrupted;
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
