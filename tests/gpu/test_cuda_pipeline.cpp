// The processing backends end to end: the CUDA pipeline (N streams, warm-started
// K-means chained across frames) gives the same bytes as the CPU backend, frame by
// frame, and its streams really overlap.
#include "gpu/color/color_convert.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/processor.h"
#include "support/chains.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace vp {
namespace {

// A moving clip as yuv420p frames in host memory.
std::vector<std::vector<uint8_t>> makeClipFrames(int w, int h, int n, const FrameLayout& layout) {
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < n; ++i) {
    HostImage rgba = test::makeNatural(w, h, 11, 0.15f * float(i));
    frames.emplace_back(layout.bytes);
    rgbaToYuv420pCpu(rgba.view(), layout, frames.back().data(), ColorSpace{});
  }
  return frames;
}

struct Result {
  std::vector<uint8_t> rgb;
  int iterations;
  uint64_t cost;
  StageTimeline timeline;
};

// Runs every frame through `p` (submitting ahead as far as slots allow).
std::vector<Result> runAll(Processor& p, const std::vector<std::vector<uint8_t>>& frames, const FrameLayout& layout,
                           const ProcessParams& params) {
  std::vector<Result> out;
  auto take = [&](bool wait) {
    while (const OutputFrame* f = p.poll(wait)) {
      Result r;
      const size_t row = size_t(f->width) * 3;
      r.rgb.resize(row * f->height);
      for (int y = 0; y < f->height; ++y) std::memcpy(&r.rgb[row * y], f->rgb + y * f->pitch, row);
      r.iterations = int(f->chain[0].get("iterations"));
      r.cost = uint64_t(f->chain[0].get("cost"));
      r.timeline = f->timeline;
      out.push_back(std::move(r));
      p.release();
      wait = false;
    }
  };
  for (size_t i = 0; i < frames.size();) {
    InputFrame in{frames[i].data(), layout, ColorSpace{}, int64_t(i) * 40'000};
    if (p.submit(in, params)) {
      ++i;
      take(false);
    } else {
      take(true);
    }
  }
  while (p.inFlight() > 0) take(true);
  return out;
}

// One-filter chains (the modes of earlier versions) and none.
class CudaPipeline : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaPipeline, MatchesCpuBackendFrameByFrame) {
  VP_REQUIRE_GPU();
  const int w = 321, h = 181, n = 12;
  const FrameLayout layout = frameLayout(PixelFormat::Yuv420p, w, h);
  const auto frames = makeClipFrames(w, h, n, layout);
  ProcessParams params;
  params.chain = parseChain(GetParam());
  auto gpu = makeCudaProcessor(3);
  auto cpu = makeCpuProcessor(3);
  const auto a = runAll(*gpu, frames, layout, params);
  const auto b = runAll(*cpu, frames, layout, params);
  ASSERT_EQ(a.size(), size_t(n));
  ASSERT_EQ(b.size(), size_t(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(a[i].rgb, b[i].rgb) << "frame " << i;
    EXPECT_EQ(a[i].iterations, b[i].iterations) << "frame " << i;
    EXPECT_EQ(a[i].cost, b[i].cost) << "frame " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CudaPipeline, ::testing::Values("kmeans=k=6:init=kmeans++", "blur=r=7:passes=2", "none"),
                         [](const auto& info) { return std::string(info.param).substr(0, std::string(info.param).find('=')); });

TEST(CudaPipelineOverlap, NextUploadOverlapsPreviousCompute) {
  VP_REQUIRE_GPU();
  const int w = 1920, h = 1080, n = 24;
  const FrameLayout layout = frameLayout(PixelFormat::Yuv420p, w, h);
  const auto frames = makeClipFrames(w, h, 4, layout);
  std::vector<std::vector<uint8_t>> clip;
  for (int i = 0; i < n; ++i) clip.push_back(frames[size_t(i % 4)]);
  ProcessParams params;
  params.chain = parseChain("kmeans=iterations=20:epsilon=0");  // heavy compute so overlap is visible
  auto gpu = makeCudaProcessor(3);
  // Pinned inputs, else the uploads are synchronous and cannot overlap.
  std::vector<PinnedBuffer> pinned;
  for (const auto& f : clip) {
    pinned.emplace_back(f.size());
    std::memcpy(pinned.back().get(), f.data(), f.size());
  }
  std::vector<Result> out;
  size_t i = 0;
  while (out.size() < clip.size()) {
    if (i < clip.size() && gpu->submit({pinned[i].get(), layout, ColorSpace{}, int64_t(i)}, params)) {
      ++i;
      continue;
    }
    const OutputFrame* f = gpu->poll(true);
    ASSERT_NE(f, nullptr);
    out.push_back({{}, int(f->chain[0].get("iterations")), uint64_t(f->chain[0].get("cost")), f->timeline});
    gpu->release();
  }
  int overlaps = 0;
  for (size_t j = 1; j < out.size(); ++j) {
    const StageTimeline& prev = out[j - 1].timeline;
    const StageTimeline& next = out[j].timeline;
    EXPECT_LE(prev.uploadStart, prev.uploadEnd);
    EXPECT_LE(prev.computeEnd, prev.downloadEnd);
    if (next.uploadStart < prev.computeEnd && next.uploadEnd > prev.computeStart) ++overlaps;
  }
  EXPECT_GE(overlaps, int(out.size()) / 2) << "uploads of frame i+1 should run during frame i's kernels";
  std::printf("overlapping upload/compute pairs: %d of %zu\n", overlaps, out.size() - 1);
}

TEST(CudaPipelineArgs, LayoutChangeDrainsThenReconfigures) {
  VP_REQUIRE_GPU();
  auto gpu = makeCudaProcessor(2);
  const FrameLayout a = frameLayout(PixelFormat::Yuv420p, 64, 48);
  const FrameLayout b = frameLayout(PixelFormat::Nv12, 33, 17);
  std::vector<uint8_t> fa(a.bytes, 100), fb(b.bytes, 50);
  const ProcessParams p = test::blurParams();
  ASSERT_TRUE(gpu->submit({fa.data(), a, {}, 0}, p));
  EXPECT_FALSE(gpu->submit({fb.data(), b, {}, 1}, p));  // the 64x48 frame is still in flight
  const OutputFrame* f = gpu->poll(true);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->width, 64);
  gpu->release();
  ASSERT_TRUE(gpu->submit({fb.data(), b, {}, 1}, p));
  f = gpu->poll(true);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->width, 33);
  EXPECT_EQ(f->height, 17);
  gpu->release();
}

}  // namespace
}  // namespace vp
