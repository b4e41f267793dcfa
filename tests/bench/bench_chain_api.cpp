// The library face's cost over the bare kernels (app/api/vidproc.h), timed as the peers
// are: N calls on one stream between two CUDA events, microseconds per call.
//   mode 0: the element alone (its GpuFilter on RGBA pitched images, what the program runs)
//   mode 1: vp::Chain on a packed RGBA device image (the element reads and writes it)
//   mode 2: vp::Chain on a packed RGB device image (+ the convert to RGBA and the pack back)
//   mode 3: as 2, a batch of 64 frames in one processBatch call (time per frame)
//   mode 4: as 2, on the legacy default stream (torch's default current stream)
// The Python module adds its own per-call cost on top: tests/bench/peers/python_api.py.
#include <vidproc/vidproc.h>

#include "gpu/filters/chain.h"
#include "support/cuda_bench.h"
#include "support/images.h"

#include <string>
#include <vector>

namespace vp::test {
namespace {

// The jobs of the targets: K-means k 8 with 20 iterations on every frame (no warm
// start, no early stop: BM_KmeansGpu's work), and the 3x3 median.
const char* const kChains[] = {"kmeans=k=8:iterations=20:epsilon=0:warm=0:init=uniform", "median=r=1"};
constexpr int kCalls = 20;
constexpr int kBatch = 64;

void BM_ChainApiGpu(benchmark::State& st) {
  if (skipWithoutGpu(st)) return;
  const int w = int(st.range(0)), h = int(st.range(1)), mode = int(st.range(3));
  const std::string spec = kChains[st.range(2)];
  const int frames = mode == 3 ? kBatch : 1;
  const int channels = mode == 1 ? 4 : 3;
  const size_t pitch = size_t(w) * channels, frameBytes = pitch * h;

  // Inputs: a natural frame, packed, repeated for a batch.
  const HostImage natural = makeNatural(w, h, 3);
  std::vector<uint8_t> packed(frameBytes * frames);
  for (int f = 0; f < frames; ++f)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < channels; ++c) {
          const uchar4 p = natural.at(x, y);
          packed[size_t(f) * frameBytes + y * pitch + size_t(x) * channels + c] = (&p.x)[c];
        }
  DeviceBuffer in(packed.size()), out(packed.size());
  VP_CUDA_CHECK(cudaMemcpy(in.get(), packed.data(), packed.size(), cudaMemcpyHostToDevice));
  const DeviceImage rgbaIn = upload(natural), rgbaOut(w, h);

  const FilterChain parsed = parseChain(spec);
  std::unique_ptr<GpuFilter> element = parsed[0].filter().makeGpu();
  element->setConcurrentSlots(false);  // as the library runs it: one stream
  element->configure(w, h, 2);
  ElementResult result;
  int slot = 0;
  Chain chain(spec);
  const Image a{in.get(), pitch, w, h, channels == 4 ? PixelLayout::RGBA : PixelLayout::RGB, MemoryKind::Device, 0};
  const Image b{out.get(), pitch, w, h, a.layout, MemoryKind::Device, 0};

  Stream own;
  cudaStream_t stream = mode == 4 ? cudaStreamLegacy : cudaStream_t(own);
  const auto call = [&](cudaStream_t s) {
    if (mode == 0) {
      element->enqueue(slot, rgbaIn.view(), rgbaOut.view(), parsed[0], result, s);
      slot ^= 1;
    } else if (mode == 3) {
      chain.processBatch(a, frameBytes, b, frameBytes, kBatch, s);
    } else {
      chain.process(a, b, s);
    }
  };
  const int calls = mode == 3 ? 1 : kCalls;
  timeCudaLoop(st, stream, [&](cudaStream_t s) {
    for (int i = 0; i < calls; ++i) call(s);
  });
  // Manual time covers `calls` calls of `frames` frames: report per frame.
  st.counters["us/frame"] = benchmark::Counter(double(calls * frames) * double(st.iterations()),
                                               benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  static const char* const kModes[] = {"element", "api rgba", "api rgb", "api rgb batch 64", "api rgb legacy stream"};
  st.SetLabel(std::string(kModes[mode]) + " " + spec);
}
BENCHMARK(BM_ChainApiGpu)
    ->ArgNames({"w", "h", "chain", "mode"})
    ->ArgsProduct({{1920}, {1080}, {0, 1}, {0, 1, 2, 3, 4}})
    ->ArgsProduct({{3840}, {2160}, {0, 1}, {0, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vp::test
