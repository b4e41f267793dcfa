// Sobel edge timings: GPU kernel time by CUDA events around one edgesGpu call, input
// already in device memory; the CPU twin in real time. Bytes processed = the RGBA image
// read once and written once per call, so GB/s compares with BM_DeviceCopy
// (bench_transfer.cpp).
#include "gpu/filters/edges/edges.h"
#include "support/cuda_bench.h"
#include "support/images.h"

namespace vp::test {
namespace {

void setImageBytes(benchmark::State& state, int w, int h) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(w) * h * 4 * 2);  // read + write
}

// Args: w, h, overlay (0: the magnitude as grey, 1: edges black over the frame, t = 80).
void BM_EdgesGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const EdgesParams p{kDefaultEdgesThreshold, state.range(2) != 0};
  const DeviceImage in = upload(makeNatural(w, h, 1));
  DeviceImage out(w, h);
  Stream stream;
  timeCudaLoop(state, stream, [&](cudaStream_t s) { edgesGpu(in.view(), out.view(), p, s); });
  setImageBytes(state, w, h);
  if (!timingTag().empty()) state.SetLabel(timingTag().substr(1));
}
BENCHMARK(BM_EdgesGpu)
    ->ArgNames({"w", "h", "overlay"})
    ->ArgsProduct({{1920}, {1080}, {0, 1}})
    ->ArgsProduct({{3840}, {2160}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_EdgesCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const EdgesParams p{kDefaultEdgesThreshold, state.range(2) != 0};
  const HostImage in = makeNatural(w, h, 1);
  HostImage out(w, h);
  EdgesCpuScratch scratch(w, h);
  for (auto _ : state) edgesCpu(in.cview(), out.view(), p, scratch);
  setImageBytes(state, w, h);
}
BENCHMARK(BM_EdgesCpu)
    ->ArgNames({"w", "h", "overlay"})
    ->Args({1920, 1080, 0})
    ->Args({1920, 1080, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vp::test
