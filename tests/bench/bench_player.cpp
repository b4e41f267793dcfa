// The window player's loop against a display that blocks in render() for its refresh
// (a vsync display, scripted): how many frames the pipeline processes per second while
// the display waits. --no-sync, CPU backend, a small ffv1 clip, so the loop and not the
// kernels is measured; the refresh period is the benchmark's argument (ms). On a busy
// machine run it with OMP_NUM_THREADS=1: the CPU twins' OpenMP threads otherwise wait
// for cores, which is what gets measured then.
#include "app/player/interactive_player.h"
#include "support/clips.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>

namespace vp::test {
namespace {

class VsyncDisplay final : public Display {
 public:
  explicit VsyncDisplay(int refreshMs) : refreshMs_(refreshMs) {}
  std::vector<Command> pollCommands() override { return {}; }
  bool applyWindowCommand(const Command&) override { return false; }
  void present(const uint8_t*, size_t, int, int) override {}
  void render(const HudData&) override {
    ++renders;
    std::this_thread::sleep_for(std::chrono::milliseconds(refreshMs_));
  }
  double refreshMs() const override { return refreshMs_; }
  int64_t renders = 0;

 private:
  int refreshMs_;
};

void BM_WindowPlayerAgainstVsync(benchmark::State& state) {
  TempDir dir;
  ClipSpec spec;
  spec.width = 64;
  spec.height = 48;
  spec.frames = 240;
  spec.fps = 240;
  spec.codec = "ffv1";
  Options o;
  o.input = makeClip(dir.file("clip.mkv"), spec);
  o.backend = Backend::Cpu;
  o.sync = false;
  o.streams = 3;
  o.process.chain.clear();  // the loop, not the CPU kernels
  SignalWatcher signals;
  int64_t frames = 0, renders = 0;
  for (auto _ : state) {
    VsyncDisplay display(int(state.range(0)));
    RunStats stats;
    if (runInteractive(o, display, signals, stats) != kExitOk) state.SkipWithError("player failed");
    frames += stats.framesProcessed;
    renders += display.renders;
  }
  state.counters["frames_per_s"] = benchmark::Counter(double(frames), benchmark::Counter::kIsRate);
  state.counters["frames_per_refresh"] = double(frames) / double(std::max<int64_t>(renders, 1));
}
BENCHMARK(BM_WindowPlayerAgainstVsync)->ArgName("refresh_ms")->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace vp::test
