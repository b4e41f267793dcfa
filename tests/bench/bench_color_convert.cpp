// Colour conversion throughput: native layouts -> RGBA8 per format on the GPU (1080p, and
// 4K for yuv420p / nv12), RGBA8 -> yuv420p on the GPU, and the CPU twin for yuv420p.
// Inputs are tightly packed (frameLayout(..., 1)) in device memory; the RGBA image is
// pitched (cudaMallocPitch). Bytes processed = bytes read + bytes written.
#include "gpu/color/color_convert.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <cstring>
#include <string>
#include <vector>

namespace vp::test {
namespace {

const ColorSpace kSpace{ColorMatrix::Bt709, ColorRange::Limited};

// The benchmark's frame (args fmt, w, h) as random planes in device memory, plus its output.
struct ConvertInput {
  PixelFormat format;
  int w, h;
  FrameLayout layout;
  DeviceBuffer src;
  DeviceImage dst;
  PlanarView view;

  explicit ConvertInput(const benchmark::State& state)
      : format(PixelFormat(state.range(0))), w(int(state.range(1))), h(int(state.range(2))),
        layout(frameLayout(format, w, h)), src(layout.bytes), dst(w, h), view(planarView(layout, src.get())) {
    const std::vector<uint8_t> bytes = randomBytes(layout.bytes, 1);
    VP_CUDA_CHECK(cudaMemcpy(src.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    VP_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream copy vs the non-blocking stream that times
  }
};

void BM_ConvertToRgbaGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const ConvertInput in(state);
  Stream s;
  timeCudaLoop(state, s, [&](cudaStream_t st) { convertToRgbaGpu(in.view, in.dst.view(), kSpace, st); });
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.layout.bytes + size_t(in.w) * in.h * 4));
  state.SetLabel(std::string(pixelFormatName(in.format)));
}

void formatArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"fmt", "w", "h"});
  for (int f = int(PixelFormat::Yuv420p); f <= int(PixelFormat::Bgra); ++f) b->Args({f, 1920, 1080});
  b->Args({int(PixelFormat::Yuv420p), 3840, 2160});
  b->Args({int(PixelFormat::Nv12), 3840, 2160});
}
BENCHMARK(BM_ConvertToRgbaGpu)->Apply(formatArgs)->UseManualTime()->Unit(benchmark::kMicrosecond);

// Per-conversion cost without the host's launch latency (which the single-launch timing
// above includes): kGraphBatch conversions captured in one CUDA graph, replayed per
// iteration. Time is per graph; bytes and items count every conversion.
constexpr int kGraphBatch = 20;

void BM_ConvertToRgbaGpuGraph(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const ConvertInput in(state);
  Stream s;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  VP_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kGraphBatch; ++i) convertToRgbaGpu(in.view, in.dst.view(), kSpace, s);
  VP_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  VP_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  timeCudaLoop(state, s, [&](cudaStream_t st) { VP_CUDA_CHECK(cudaGraphLaunch(exec, st)); });
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  const int64_t n = int64_t(state.iterations()) * kGraphBatch;
  state.SetBytesProcessed(n * int64_t(in.layout.bytes + size_t(in.w) * in.h * 4));
  state.SetItemsProcessed(n);
  state.SetLabel(std::string(pixelFormatName(in.format)) + " x" + std::to_string(kGraphBatch) + " per graph");
}
BENCHMARK(BM_ConvertToRgbaGpuGraph)
    ->ArgNames({"fmt", "w", "h"})
    ->Args({int(PixelFormat::Yuv420p), 1920, 1080})
    ->Args({int(PixelFormat::Yuv420p), 3840, 2160})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_Rgba2Yuv420pGpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const FrameLayout layout = frameLayout(PixelFormat::Yuv420p, w, h);
  const DeviceImage src = upload(makeNatural(w, h, 3));
  DeviceBuffer dst(layout.bytes);
  Stream s;
  timeCudaLoop(state, s, [&](cudaStream_t st) { rgbaToYuv420pGpu(src.view(), layout, dst.get(), kSpace, st); });
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(layout.bytes + size_t(w) * h * 4));
}
BENCHMARK(BM_Rgba2Yuv420pGpu)
    ->ArgNames({"w", "h"})
    ->Args({1920, 1080})
    ->Args({3840, 2160})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The pipeline's output packing (RGBA -> RGB24 before the download).
void BM_RgbaToRgb24Gpu(benchmark::State& state) {
  if (skipWithoutGpu(state)) return;
  const int w = int(state.range(0)), h = int(state.range(1));
  const DeviceImage src = upload(makeNatural(w, h, 3));
  DeviceBuffer dst(size_t(w) * h * 3);
  Stream s;
  timeCudaLoop(state, s, [&](cudaStream_t st) { rgbaToRgb24Gpu(src.view(), dst.as<uint8_t>(), size_t(w) * 3, st); });
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size_t(w) * h * 7));
}
BENCHMARK(BM_RgbaToRgb24Gpu)
    ->ArgNames({"w", "h"})
    ->Args({1920, 1080})
    ->Args({3840, 2160})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_ConvertToRgbaCpu(benchmark::State& state) {
  const int w = int(state.range(0)), h = int(state.range(1));
  const FrameLayout layout = frameLayout(PixelFormat::Yuv420p, w, h);
  const std::vector<uint8_t> bytes = randomBytes(layout.bytes, 1);
  HostImage dst(w, h);
  const PlanarView view = planarView(layout, bytes.data());
  for (auto _ : state) {
    convertToRgbaCpu(view, dst.view(), kSpace);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(layout.bytes + size_t(w) * h * 4));
}
BENCHMARK(BM_ConvertToRgbaCpu)->ArgNames({"w", "h"})->Args({1920, 1080})->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vp::test
