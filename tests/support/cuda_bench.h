// Google Benchmark helpers for GPU kernels: time with CUDA events (manual time), on an
// idle stream or queued behind a host-held gate (VP_BENCH_QUEUED), and skip cleanly
// without a device.
#pragma once

#include "gpu/cuda/cuda_resources.h"
#include "gpu/cuda/device_info.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace vp::test {

// True (and the benchmark marked skipped) when there is no CUDA device.
inline bool skipWithoutGpu(benchmark::State& state) {
  if (cudaDeviceCountOrZero() > 0) return false;
  state.SkipWithError("no CUDA device");
  return true;
}

// Defined in bench/host_gate.cu: a kernel on `stream` that returns once gate[0] != 0, or
// after timeoutNs with gate[1] = 1.
void launchHostGate(volatile int* gate, unsigned long long timeoutNs, cudaStream_t stream);

// Holds a stream until the host opens it (nvbench's "blocking kernel"): the launches
// queued behind it reach the GPU together, so events around them time the GPU's work
// and not the host's submission of the first launch.
class HostGate {
 public:
  HostGate() : flags_(2 * sizeof(int)) {}  // pinned: the same address on the device (UVA)
  void close(cudaStream_t stream) {
    gate()[0] = 0;
    gate()[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    launchHostGate(gate(), 100'000'000ull, stream);  // 100 ms
  }
  void open() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    gate()[0] = 1;
  }
  // After the stream has passed the gate: whether it gave up waiting.
  bool timedOut() { return gate()[1] != 0; }

 private:
  volatile int* gate() { return flags_.as<int>(); }
  PinnedBuffer flags_;
};

// VP_BENCH_QUEUED=1: every timed call is queued behind a HostGate ("queued" timing);
// unset or 0: events around the call on an idle stream, so the first launch's submission
// by the host (a few us) is inside the time, as for a frame the pipeline submits to an
// idle GPU.
inline bool queuedTiming() {
  const char* v = std::getenv("VP_BENCH_QUEUED");
  return v && std::strcmp(v, "0") != 0 && *v;
}

// VP_BENCH_BATCH=N (N >= 2): timeCudaLoop times N back-to-back calls on one stream
// between two events and reports the time per call, the form NPP's and torch's rows are
// timed in (tests/bench/peers): each call's share of the events and of the host's
// submission of the first launch shrinks to 1/N. Unset or 1: one call per region.
inline int batchCalls() {
  const char* v = std::getenv("VP_BENCH_BATCH");
  const int n = v ? std::atoi(v) : 1;
  return n > 1 ? n : 1;
}

// The timing's part of a row's label: "", " queued", " batch20", " queued batch20".
inline std::string timingTag() {
  std::string tag = queuedTiming() ? " queued" : "";
  if (batchCalls() > 1) tag += " batch" + std::to_string(batchCalls());
  return tag;
}

// Events around one region of a benchmark iteration, queued behind a HostGate when
// queuedTiming(): begin(), the region's launches, end(), any further work of the
// iteration (a readback), release(), then synchronize and read seconds().
class RegionTimer {
 public:
  explicit RegionTimer(benchmark::State& state) : queued_(queuedTiming()) {
    if (queued_) state.SetLabel("queued");
  }
  void begin(cudaStream_t stream) {
    if (queued_) gate_.close(stream);
    start_.record(stream);
  }
  void end(cudaStream_t stream) { stop_.record(stream); }
  void release() {
    if (queued_) gate_.open();
  }
  // After the stream has passed end(): the region's seconds; false (and the benchmark
  // marked failed) when the gate gave up, i.e. the region waited for its own stream.
  bool seconds(benchmark::State& state, double& s) {
    stop_.synchronize();
    if (queued_ && gate_.timedOut()) {
      state.SkipWithError("queued timing: the call waited for its own stream (the gate timed out)");
      return false;
    }
    s = double(Event::elapsedMs(start_, stop_)) * 1e-3;
    return true;
  }

 private:
  bool queued_;
  HostGate gate_;
  Event start_, stop_;
};

// Runs `launch(stream)` once per benchmark iteration (batchCalls() times with
// VP_BENCH_BATCH) and reports the time between CUDA events around it, per call, as the
// iteration's manual time. Use with ->UseManualTime(). Warm-up launches run first so
// module load and first-touch stay out of the numbers.
template <class Launch>
void timeCudaLoop(benchmark::State& state, cudaStream_t stream, Launch&& launch, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) launch(stream);
  VP_CUDA_CHECK(cudaStreamSynchronize(stream));
  const int calls = batchCalls();
  RegionTimer timer(state);
  for (auto _ : state) {
    timer.begin(stream);
    for (int i = 0; i < calls; ++i) launch(stream);
    timer.end(stream);
    timer.release();
    double seconds = 0;
    if (!timer.seconds(state, seconds)) return;
    state.SetIterationTime(seconds / calls);
  }
}

}  // namespace vp::test
