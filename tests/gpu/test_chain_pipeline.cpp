// Filter chains through the real processors (the compare view: test_compare_view.cpp).
//
//   ChainPipelineCpu       (runs everywhere) the CPU backend: frame 0 of each scenario with
//                          RGBA input equals the elements' references applied in order
//                          (support/filter_reference.h); 1 and 3 slots give the same
//                          bytes and metrics; per-element results (ms >= 0 for elements
//                          that ran, -1 and no metrics for disabled ones), reinit only
//                          on a kmeans element's first frame.
//   ChainPipelineGpu       makeCudaProcessor == makeCpuProcessor byte for byte and metric
//                          for metric, every frame of every scenario (fixed 2- and
//                          3-element chains, toggles, shape changes, compare views
//                          switching), at 17x9, 333x197 and 1921x1081, 1 and 3 slots.
//   ChainToggle / ChainShapeChange (both backends): a disabled element passes its input
//                          through; a kmeans element keeps its warm start when a blur is
//                          inserted before it, removed, or the chain reordered; the CUDA
//                          backend refuses a new shape until drained.
//
// Tolerances: none. Frames come from a smoothly moving natural clip (no scene cut, so the
// K-means schedule re-initialises the same frames on every backend and slot count).
#include "gpu/color/color_convert.h"
#include "gpu/color/compare_view.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/chain.h"
#include "gpu/processor.h"
#include "support/filter_reference.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/processor_runs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <ostream>
#include <string>
#include <vector>

namespace vp {
namespace {

using namespace test::runs;

// ---- Scenarios: what each frame is processed with ----

struct Scenario {
  const char* name;
  int frames;
  ParamsOf params;
};

void PrintTo(const Scenario& s, std::ostream* os) { *os << s.name; }

std::vector<Scenario> scenarios() {
  auto fixed = [](const char* chain) { return [p = chainParams(chain)](int) { return p; }; };
  return {
      {"blur_kmeans", 5, fixed("blur=r=3,kmeans=k=6")},
      {"kmeans_blur", 5, fixed("kmeans=k=4,blur=r=2:passes=2")},
      {"blur_blur_kmeans", 5, fixed("blur=r=1,blur=r=4:border=wrap,kmeans=k=5")},
      {"two_kmeans", 5, fixed("kmeans=k=6,blur=r=1,kmeans=k=3:init=uniform")},
      // kmeans off on frames 2-3, the blur off on frame 4, both off on frame 5.
      {"toggles", 6,
       [](int i) {
         ProcessParams p = chainParams("blur=r=2,kmeans=k=4:init=uniform");
         p.chain[1].setEnabled(i < 2 || i > 3);
         p.chain[0].setEnabled(i != 4 && i != 5);
         if (i == 5) p.chain[1].setEnabled(false);
         return p;
       }},
      // Shape changes: a blur inserted before the kmeans, removed, appended after it,
      // options changed on the way (k stays, so the kmeans stays warm).
      {"shape_changes", 9,
       [](int i) {
         const char* chains[] = {"kmeans=k=4",         "kmeans=k=4",          "kmeans=k=4",
                                 "blur=r=2,kmeans=k=4", "blur=r=3,kmeans=k=4", "kmeans=k=4:iterations=5",
                                 "kmeans=k=4:iterations=5", "kmeans=k=4,blur=r=1", "kmeans=k=4,blur=r=1"};
         return chainParams(chains[i]);
       }},
      // A colour-view K-means writes over its input, unless that input is the converted
      // frame the compare view shows or a label view reads it after the kernel: each
      // frame switches between writing in place and into a ping-pong image.
      {"in_place", 7,
       [](int i) {
         const char* chains[] = {"kmeans=k=6",          "kmeans=k=6",          "kmeans=k=6:view=boundaries",
                                 "kmeans=k=6",          "kmeans=k=6,blur=r=2", "blur=r=2,kmeans=k=6",
                                 "kmeans=k=6"};
         const CompareMode modes[] = {CompareMode::Off, CompareMode::Split, CompareMode::Off, CompareMode::Side,
                                      CompareMode::Off, CompareMode::Split, CompareMode::Off};
         ProcessParams p = chainParams(chains[i]);
         p.compare = modes[i];
         p.keepProcessed = modes[i] != CompareMode::Off;
         return p;
       }},
      // The compare view switching frame by frame.
      {"compare", 7,
       [](int i) {
         ProcessParams p = chainParams("blur=r=3,kmeans=k=6");
         const CompareMode modes[] = {CompareMode::Off,   CompareMode::Split, CompareMode::Split, CompareMode::Side,
                                      CompareMode::Split, CompareMode::Split, CompareMode::Side};
         const float splits[] = {0.5f, 0.37f, 0.f, 0.5f, 1.f, 0.5f, 0.5f};
         p.compare = modes[i];
         p.split = splits[i];
         p.keepProcessed = i % 2 == 1;
         return p;
       }},
  };
}

Scenario scenarioNamed(const std::string& name) {
  for (const Scenario& s : scenarios())
    if (name == s.name) return s;
  throw std::logic_error("no scenario " + name);
}

// Per-element results as the interface promises: ms >= 0 where the element ran, -1 and
// no metrics where it is disabled or past the chain; kmeans reports its metrics.
void expectResults(const Out& o, const FilterChain& chain, int frame) {
  EXPECT_TRUE(o.chain == chain) << "frame " << frame << " reports " << describeChain(o.chain);
  EXPECT_EQ(o.ptsUs, int64_t(frame) * 40'000);
  for (int i = 0; i < kMaxChainLength; ++i) {
    const ElementResult& r = o.results[size_t(i)];
    const bool ran = i < chain.size() && chain[i].enabled();
    if (ran) {
      EXPECT_GE(r.ms, 0.f) << "frame " << frame << " element " << i;
    } else {
      EXPECT_EQ(r.ms, -1.f) << "frame " << frame << " element " << i;
      EXPECT_TRUE(metricsOf(r).empty()) << "frame " << frame << " element " << i;
    }
    if (ran && chain[i].name() == "kmeans") {
      const auto m = metricsOf(r);
      EXPECT_EQ(m.count("iterations"), 1u);
      EXPECT_EQ(m.count("cost"), 1u);
      EXPECT_EQ(m.count("reinit"), 1u);
    }
  }
}

void expectSameFrames(const std::vector<Out>& got, const std::vector<Out>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(std::string(what) + ", frame " + std::to_string(i));
    EXPECT_EQ(got[i].width, want[i].width);
    EXPECT_EQ(got[i].height, want[i].height);
    EXPECT_TRUE(got[i].rgb == want[i].rgb);
    EXPECT_TRUE(got[i].processed == want[i].processed);
    EXPECT_EQ(got[i].processedIsRgb, want[i].processedIsRgb);
    for (int e = 0; e < kMaxChainLength; ++e)
      EXPECT_EQ(metricsOf(got[i].results[size_t(e)]), metricsOf(want[i].results[size_t(e)])) << "element " << e;
  }
}

// The reinit metric of element `e` in each frame (-1: not run).
std::vector<int> reinits(const std::vector<Out>& frames, int e) {
  std::vector<int> out;
  for (const Out& o : frames) out.push_back(int(o.results[size_t(e)].get("reinit", -1)));
  return out;
}

// Each kmeans element re-initialises on frame 0 only (every scenario has its kmeans from
// frame 0 on, with one k): the clip has no scene cut, and warm starts carry across frames.
void expectKmeansWarm(const std::vector<Out>& frames, const Scenario& s) {
  for (size_t i = 0; i < frames.size(); ++i) {
    const FilterChain chain = s.params(int(i)).chain;
    for (int e = 0; e < chain.size(); ++e)
      if (chain[e].name() == "kmeans" && chain[e].enabled()) {
        EXPECT_EQ(frames[i].results[size_t(e)].get("reinit", -1), i == 0 ? 1 : 0)
            << "frame " << i << " " << elementLabel(chain, e) << (i ? ": a scene cut or a lost warm start" : "");
      }
  }
}

// ---- CPU backend ----

class ChainPipelineCpu : public testing::TestWithParam<Scenario> {};

TEST_P(ChainPipelineCpu, SlotsAgreeAndResultsAreReported) {
  const Scenario& s = GetParam();
  const Clip clip = makeClip(61, 33, s.frames, PixelFormat::Yuv420p);
  auto one = makeCpuProcessor(1), three = makeCpuProcessor(3);
  const std::vector<Out> a = runAll(*one, clip, s.params);
  const std::vector<Out> b = runAll(*three, clip, s.params);
  expectSameFrames(b, a, "3 slots vs 1");
  ASSERT_EQ(a.size(), size_t(s.frames));
  for (int i = 0; i < s.frames; ++i) expectResults(a[size_t(i)], s.params(i).chain, i);
  expectKmeansWarm(a, s);
}

// Frame 0 of a fresh processor, RGBA input: every element sees its first frame, so the
// output is the references applied one after another.
TEST_P(ChainPipelineCpu, FirstFrameIsTheReferencesInOrder) {
  const Scenario& s = GetParam();
  const ProcessParams params = s.params(0);
  const Clip clip = makeClip(61, 33, 1, PixelFormat::Rgba);
  auto cpu = makeCpuProcessor(1);
  const std::vector<Out> got = runAll(*cpu, clip, s.params);
  ASSERT_EQ(got.size(), 1u);
  HostImage want = clip.rgba[0];
  for (const FilterElement& e : params.chain) {
    if (!e.enabled()) continue;
    const test::ref::FilterReference* ref = test::ref::findFilterReference(e.name());
    ASSERT_NE(ref, nullptr) << e.name();
    want = ref->firstFrame(want, e).rgba;
  }
  const std::vector<uint8_t> processed = test::packRgb(want);
  if (params.compare == CompareMode::Off) {
    EXPECT_TRUE(got[0].rgb == processed);
  } else {
    ASSERT_FALSE(got[0].processed.empty());
    EXPECT_TRUE(got[0].processed == processed);
  }
}

INSTANTIATE_TEST_SUITE_P(ChainScenarios, ChainPipelineCpu, testing::ValuesIn(scenarios()),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- CUDA == CPU ----

struct GpuCase {
  Scenario scenario;
  int w, h, slots;
};

void PrintTo(const GpuCase& c, std::ostream* os) {
  *os << c.scenario.name << " " << c.w << "x" << c.h << " slots " << c.slots;
}

class ChainPipelineGpu : public testing::TestWithParam<GpuCase> {};

TEST_P(ChainPipelineGpu, SameBytesAsCpuBackend) {
  VP_REQUIRE_GPU();
  const GpuCase& c = GetParam();
  const Clip clip = makeClip(c.w, c.h, c.scenario.frames, PixelFormat::Yuv420p);
  auto gpu = makeCudaProcessor(c.slots);
  auto cpu = makeCpuProcessor(c.slots);
  const std::vector<Out> a = runAll(*gpu, clip, c.scenario.params);
  const std::vector<Out> b = runAll(*cpu, clip, c.scenario.params);
  expectSameFrames(a, b, "cuda vs cpu");
  for (size_t i = 0; i < a.size(); ++i) expectResults(a[i], c.scenario.params(int(i)).chain, int(i));
  // The comparison assumes no scene cut: a cut re-initialises the frame after the one whose
  // cost showed it, and with several slots that frame may already be submitted on the GPU.
  expectKmeansWarm(b, c.scenario);
}

std::vector<GpuCase> gpuCases() {
  std::vector<GpuCase> cases;
  for (const Scenario& s : scenarios())
    for (auto [w, h] : {std::pair{17, 9}, {333, 197}, {1921, 1081}})
      for (int slots : {1, 3}) cases.push_back({s, w, h, slots});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(ChainScenarios, ChainPipelineGpu, testing::ValuesIn(gpuCases()), [](const auto& info) {
  const GpuCase& c = info.param;
  return std::string(c.scenario.name) + "_" + std::to_string(c.w) + "x" + std::to_string(c.h) + "_slots" +
         std::to_string(c.slots);
});

// ---- Toggles and shape changes, on each backend ----

class ChainToggle : public testing::TestWithParam<RunOn> {};

TEST_P(ChainToggle, DisabledElementPassesItsInputThrough) {
  VP_REQUIRE_BACKEND(GetParam());
  const Clip clip = makeClip(97, 61, 4, PixelFormat::Yuv420p);
  ProcessParams off = chainParams("blur=r=3,kmeans=k=6");
  off.chain[0].setEnabled(false);
  auto p = makeBackend(GetParam(), 2), q = makeBackend(GetParam(), 2);
  const std::vector<Out> a = runAll(*p, clip, [&](int) { return off; });
  const std::vector<Out> b = runAll(*q, clip, [](int) { return chainParams("kmeans=k=6"); });
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].rgb == b[i].rgb) << "frame " << i;
    EXPECT_EQ(metricsOf(a[i].results[1]), metricsOf(b[i].results[0])) << "frame " << i;
    expectResults(a[i], off.chain, int(i));
  }
  // Every element off: the converted frame itself.
  ProcessParams none = off;
  none.chain[1].setEnabled(false);
  auto r = makeBackend(GetParam(), 1), s = makeBackend(GetParam(), 1);
  const std::vector<Out> c = runAll(*r, clip, [&](int) { return none; });
  const std::vector<Out> d = runAll(*s, clip, [](int) { return ProcessParams{}; });
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_TRUE(c[i].rgb == d[i].rgb) << "frame " << i;
    expectResults(c[i], none.chain, int(i));
  }
}

TEST_P(ChainToggle, KmeansToggledOffAndOnWarmStartsAgain) {
  VP_REQUIRE_BACKEND(GetParam());
  const Scenario toggles = scenarioNamed("toggles");
  const Clip clip = makeClip(97, 61, toggles.frames, PixelFormat::Yuv420p);
  auto p = makeBackend(GetParam(), 3), blurOnly = makeBackend(GetParam(), 1);
  const std::vector<Out> a = runAll(*p, clip, toggles.params);
  const std::vector<Out> b = runAll(*blurOnly, clip, [](int) { return chainParams("blur=r=2"); });
  ASSERT_EQ(a.size(), size_t(toggles.frames));
  EXPECT_TRUE(a[2].rgb == b[2].rgb) << "kmeans off: the blur alone";
  EXPECT_TRUE(a[3].rgb == b[3].rgb) << "kmeans off: the blur alone";
  EXPECT_EQ(reinits(a, 1), (std::vector<int>{1, 0, -1, -1, 0, -1})) << "back on, it warm-starts";
}

INSTANTIATE_TEST_SUITE_P(ChainBackends, ChainToggle, testing::Values(RunOn::Cpu, RunOn::Cuda),
                         [](const auto& info) { return std::string(backendName(info.param)); });

class ChainShapeChange : public testing::TestWithParam<RunOn> {};

TEST_P(ChainShapeChange, KmeansKeepsItsWarmStart) {
  VP_REQUIRE_BACKEND(GetParam());
  const Scenario shapes = scenarioNamed("shape_changes");
  const Clip clip = makeClip(97, 61, shapes.frames, PixelFormat::Yuv420p);
  for (int slots : {1, 3}) {
    SCOPED_TRACE(std::to_string(slots) + " slots");
    auto p = makeBackend(GetParam(), slots);
    const std::vector<Out> a = runAll(*p, clip, shapes.params);
    ASSERT_EQ(a.size(), size_t(shapes.frames));
    // Where the kmeans is in each frame's chain: 0, or 1 after the inserted blur.
    std::vector<int> reinit;
    for (int i = 0; i < shapes.frames; ++i)
      reinit.push_back(int(a[size_t(i)].results[size_t(shapes.params(i).chain.find("kmeans"))].get("reinit", -1)));
    EXPECT_EQ(reinit, (std::vector<int>{1, 0, 0, 0, 0, 0, 0, 0, 0})) << "re-initialised on the first frame only";
  }
  // A fresh processor given the frames from the change on re-initialises there: the warm
  // start above is what carried over.
  Clip tail = clip;
  tail.frames.erase(tail.frames.begin(), tail.frames.begin() + 3);
  auto fresh = makeBackend(GetParam(), 1);
  const std::vector<Out> b = runAll(*fresh, tail, [&](int i) { return shapes.params(i + 3); });
  EXPECT_EQ(b[0].results[1].get("reinit", -1), 1);
}

TEST(ChainShapeChangeCuda, RefusedUntilDrained) {
  VP_REQUIRE_GPU();
  const Clip clip = makeClip(64, 48, 4, PixelFormat::Yuv420p);
  auto gpu = makeCudaProcessor(3);
  const ProcessParams a = chainParams("kmeans=k=4"), b = chainParams("blur=r=2,kmeans=k=4");
  auto frame = [&](int i) { return InputFrame{clip.frames[size_t(i)].data(), clip.layout, ColorSpace{}, i}; };
  ASSERT_TRUE(gpu->submit(frame(0), a));
  ASSERT_TRUE(gpu->submit(frame(1), a));
  EXPECT_FALSE(gpu->submit(frame(2), b)) << "two frames of the old shape in flight";
  ProcessParams sameShape = chainParams("kmeans=k=4:iterations=3");
  EXPECT_TRUE(gpu->submit(frame(2), sameShape)) << "options alone are no new shape";
  for (int left = 3; left > 0; --left) {
    EXPECT_FALSE(gpu->submit(frame(3), b)) << left << " in flight";
    ASSERT_NE(gpu->poll(true), nullptr);
    gpu->release();
  }
  EXPECT_EQ(gpu->inFlight(), 0);
  ASSERT_TRUE(gpu->submit(frame(3), b));
  const OutputFrame* f = gpu->poll(true);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ptsUs, 3);
  EXPECT_EQ(f->chain[1].get("reinit", -1), 0) << "the kmeans kept its warm start";
  EXPECT_GE(f->chain[0].ms, 0.f);
  gpu->release();
}

INSTANTIATE_TEST_SUITE_P(ChainBackends, ChainShapeChange, testing::Values(RunOn::Cpu, RunOn::Cuda),
                         [](const auto& info) { return std::string(backendName(info.param)); });

}  // namespace
}  // namespace vp
