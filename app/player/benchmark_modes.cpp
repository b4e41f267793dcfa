#include "app/player/benchmark_modes.h"

#include "app/player/source_setup.h"
#include "gpu/color/color_convert.h"
#include "io/source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace vp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDistinctFrames = 8;  // a moving clip, so K-means warm starts do real work

void parseSize(const std::string& text, int& w, int& h) {
  if (std::sscanf(text.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384)
    throw std::invalid_argument("--synthetic: expected WIDTHxHEIGHT, got '" + text + "'");
}

// Colourful moving content: gradients and a few soft discs, frame `t` of kDistinctFrames.
HostImage syntheticFrame(int w, int h, int t) {
  HostImage img(w, h);
  const float phase = 6.2831853f * float(t) / kDistinctFrames;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float u = float(x) / float(w), v = float(y) / float(h);
      float r = 200 * u, g = 180 * v, b = 220 * (1 - u * v);
      for (int k = 0; k < 4; ++k) {
        const float cx = 0.5f + 0.3f * std::cos(phase + 1.7f * k), cy = 0.5f + 0.3f * std::sin(phase + 2.3f * k);
        const float d2 = (u - cx) * (u - cx) + (v - cy) * (v - cy);
        if (d2 < 0.01f + 0.005f * k) {
          r = float((k * 97) % 256);
          g = float((k * 57 + 80) % 256);
          b = float((k * 151 + 40) % 256);
        }
      }
      const int noise = int((x * 7919 + y * 104729 + t * 31) % 7) - 3;
      auto c = [noise](float f) { return uint8_t(std::clamp(int(f) + noise, 0, 255)); };
      img.at(x, y) = make_uchar4(c(r), c(g), c(b), 255);
    }
  return img;
}

}  // namespace

int runSynthetic(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  int w = 0, h = 0;
  parseSize(o.synthetic, w, h);
  std::unique_ptr<Processor> processor = makeProcessor(o.backend, o.streams);
  stats.input = "synthetic " + std::to_string(w) + "x" + std::to_string(h) + " yuv420p";
  stats.backend = processor->backendName();
  stats.device = processor->deviceName();

  const FrameLayout layout = frameLayout(PixelFormat::Yuv420p, w, h);
  const ColorSpace color{ColorMatrix::Bt709, ColorRange::Limited};
  HostAllocator alloc = frameAllocator(*processor);
  std::vector<std::unique_ptr<HostFrame>> frames;
  for (int t = 0; t < kDistinctFrames; ++t) {
    frames.push_back(std::make_unique<HostFrame>(alloc));
    frames.back()->reserve(layout.bytes);
    rgbaToYuv420pCpu(syntheticFrame(w, h, t).view(), layout, frames.back()->data(), color);
  }
  const int64_t total = o.frames > 0 ? o.frames : 2000;
  spdlog::info("{}: {} frames through {} ({}), {} streams", stats.input, total, stats.backend, stats.device,
               o.streams);

  auto drain = [&](bool wait) {
    while (const OutputFrame* out = processor->poll(wait)) {
      stats.addFrame(*out);
      processor->release();
      wait = false;
    }
  };
  const auto t0 = Clock::now();
  int64_t submitted = 0;
  while (submitted < total && !signals.stopRequested()) {
    const HostFrame& f = *frames[size_t(submitted % kDistinctFrames)];
    InputFrame in{f.data(), layout, color, submitted * 33'333};
    if (processor->submit(in, o.process)) {
      ++submitted;
      drain(false);
    } else {
      drain(true);
    }
  }
  while (processor->inFlight() > 0) drain(true);
  stats.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  stats.framesIn = submitted;
  double sumMs = 0;
  for (const auto& st : stats.stages) sumMs += st.meanMs();
  std::printf("sum of mean stage times %.4f ms per frame vs %.4f ms between frames: overlap %.2fx\n", sumMs,
              1e3 / std::max(1e-9, stats.fps()), sumMs * stats.fps() / 1e3);
  return signals.stopRequested() ? kExitInterrupted : kExitOk;
}

int runDecodeOnly(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  FrameQueue queue(o.streams + 3, HostAllocator::plain(), false);  // outlives the decode thread
  std::unique_ptr<Source> source = openSource(sourceOptionsFrom(o));
  stats.input = inputDisplayName(o);
  stats.backend = "none (decode only)";
  stats.device = "-";
  const auto t0 = Clock::now();
  const double cpu0 = processCpuSeconds();
  source->start(queue);
  int64_t frames = 0;
  while (!signals.stopRequested() && (o.frames == 0 || frames < o.frames)) {
    HostFrame* f = queue.peekReadable();
    if (!f) break;
    const bool eos = f->info.endOfStream;
    queue.pop();
    if (eos) break;
    ++frames;
  }
  source->stop();
  stats.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  stats.cpuSeconds = processCpuSeconds() - cpu0;
  stats.framesIn = stats.framesProcessed = frames;
  stats.decodeErrors = source->stats().decodeErrors;
  const SourceInfo last = source->info();
  stats.decodePath = last.decodePath, stats.surfaceFormat = last.surfaceFormat;
  stats.colorMatrix = last.colorMatrix, stats.hdr = last.hdr;
  return signals.stopRequested() ? kExitInterrupted : kExitOk;
}

}  // namespace vp
