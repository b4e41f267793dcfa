// Google Benchmark helpers for GPU kernels: time with CUDA events (manual time),
// skip cleanly without a device.
#pragma once

#include "gpu/cuda_resources.h"
#include "gpu/device_info.h"

#include <benchmark/benchmark.h>

#include <cstring>

namespace vp::test {

// True (and the benchmark marked skipped) when there is no CUDA device.
inline bool skipWithoutGpu(benchmark::State& state) {
  if (cudaDeviceCountOrZero() > 0) return false;
  state.SkipWithError("no CUDA device");
  return true;
}

// Runs `launch(stream)` once per benchmark iteration and reports the time between
// CUDA events around it as the iteration's manual time. Use with ->UseManualTime().
// Warm-up launches run first so module load and first-touch stay out of the numbers.
template <class Launch>
void timeCudaLoop(benchmark::State& state, cudaStream_t stream, Launch&& launch, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) launch(stream);
  VP_CUDA_CHECK(cudaStreamSynchronize(stream));
  Event start, stop;
  for (auto _ : state) {
    start.record(stream);
    launch(stream);
    stop.record(stream);
    stop.synchronize();
    state.SetIterationTime(double(Event::elapsedMs(start, stop)) * 1e-3);
  }
}

}  // namespace vp::test
