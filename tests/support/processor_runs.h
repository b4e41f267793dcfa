// Runs clips through the processing backends for the chain and compare-view suites
// (tests/gpu/test_chain_pipeline.cpp, test_compare_view.cpp): a moving clip, every frame
// submitted ahead as far as the slots allow, each output copied out.
#pragma once

#include "gpu/color/color_convert.h"
#include "gpu/filters/chain.h"
#include "gpu/processor.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace vp::test::runs {

struct Clip {
  FrameLayout layout;
  std::vector<HostImage> rgba;               // the pictures
  std::vector<std::vector<uint8_t>> frames;  // the same as `layout` frames
};

// A moving natural clip of n frames, yuv420p or rgba (then converting is the identity).
inline Clip makeClip(int w, int h, int n, PixelFormat format, float step = 0.15f) {
  Clip c;
  c.layout = frameLayout(format, w, h);
  for (int i = 0; i < n; ++i) {
    c.rgba.push_back(test::makeNatural(w, h, 11, step * float(i)));
    c.frames.emplace_back(c.layout.bytes);
    if (format == PixelFormat::Yuv420p) {
      rgbaToYuv420pCpu(c.rgba.back().view(), c.layout, c.frames.back().data(), ColorSpace{});
    } else {
      for (int y = 0; y < h; ++y)
        std::memcpy(c.frames.back().data() + c.layout.plane[0].offset + y * c.layout.plane[0].pitch,
                    &c.rgba.back().at(0, y), size_t(w) * 4);
    }
  }
  return c;
}

// What a processor returned for one frame, copied out.
struct Out {
  int width = 0, height = 0, frameWidth = 0, frameHeight = 0;
  std::vector<uint8_t> rgb;        // packed: width * 3 bytes a row
  std::vector<uint8_t> processed;  // packed: frameWidth * 3 bytes a row; empty when nullptr
  bool processedIsRgb = false;     // processed == rgb, processedPitch == pitch
  int64_t ptsUs = 0;
  FilterChain chain;               // params.chain it reports
  std::array<ElementResult, kMaxChainLength> results;
};

inline std::vector<uint8_t> packedRows(const uint8_t* p, size_t pitch, int width, int height) {
  std::vector<uint8_t> out(size_t(width) * 3 * size_t(height));
  for (int y = 0; y < height; ++y) std::memcpy(&out[size_t(y) * width * 3], p + y * pitch, size_t(width) * 3);
  return out;
}

using ParamsOf = std::function<ProcessParams(int frame)>;

// Every frame of `clip` through `p`, submitting ahead as far as the slots allow (a refused
// submit, a full pipeline or a new shape, waits for the oldest frame).
inline std::vector<Out> runAll(Processor& p, const Clip& clip, const ParamsOf& paramsOf, int* refused = nullptr) {
  std::vector<Out> out;
  auto take = [&](bool wait) {
    while (const OutputFrame* f = p.poll(wait)) {
      Out o;
      o.width = f->width, o.height = f->height, o.frameWidth = f->frameWidth, o.frameHeight = f->frameHeight;
      o.rgb = packedRows(f->rgb, f->pitch, f->width, f->height);
      if (f->processed) o.processed = packedRows(f->processed, f->processedPitch, f->frameWidth, f->frameHeight);
      o.processedIsRgb = f->processed == f->rgb && f->processedPitch == f->pitch;
      o.ptsUs = f->ptsUs;
      o.chain = f->params.chain;
      o.results = f->chain;
      out.push_back(std::move(o));
      p.release();
      wait = false;
    }
  };
  for (size_t i = 0; i < clip.frames.size();) {
    const InputFrame in{clip.frames[i].data(), clip.layout, ColorSpace{}, int64_t(i) * 40'000};
    if (p.submit(in, paramsOf(int(i)))) {
      ++i;
      take(false);
    } else {
      if (refused) ++*refused;
      if (p.inFlight() == 0) {
        ADD_FAILURE() << "frame " << i << " refused with nothing in flight";
        break;
      }
      take(true);
    }
  }
  while (p.inFlight() > 0) take(true);
  return out;
}

enum class RunOn { Cpu, Cuda };
inline const char* backendName(RunOn b) { return b == RunOn::Cpu ? "cpu" : "cuda"; }
inline void PrintTo(RunOn b, std::ostream* os) { *os << backendName(b); }
inline std::unique_ptr<Processor> makeBackend(RunOn b, int slots) {
  return b == RunOn::Cuda ? makeCudaProcessor(slots) : makeCpuProcessor(slots);
}
#define VP_REQUIRE_BACKEND(b)                \
  do {                                       \
    if ((b) == RunOn::Cuda) VP_REQUIRE_GPU(); \
  } while (0)

inline ProcessParams chainParams(const char* chain) {
  ProcessParams p;
  p.chain = parseChain(chain);
  return p;
}

// Each chain over `clip` on the CUDA and the CPU processor (3 slots each): the same frames.
inline void expectCudaMatchesCpu(const Clip& clip, std::initializer_list<const char*> chains) {
  for (const char* text : chains) {
    const auto params = [&](int) { return chainParams(text); };
    const std::vector<Out> gpu = runAll(*makeCudaProcessor(3), clip, params);
    const std::vector<Out> cpu = runAll(*makeCpuProcessor(3), clip, params);
    ASSERT_EQ(gpu.size(), clip.rgba.size()) << text;
    ASSERT_EQ(cpu.size(), clip.rgba.size()) << text;
    for (size_t i = 0; i < gpu.size(); ++i) EXPECT_EQ(gpu[i].rgb, cpu[i].rgb) << text << " frame " << i;
  }
}

inline std::map<std::string, double> metricsOf(const ElementResult& r) {
  std::map<std::string, double> out;
  for (const FilterMetric& m : r.metrics)
    if (m.name) out[m.name] = m.value;
  return out;
}

}  // namespace vp::test::runs
