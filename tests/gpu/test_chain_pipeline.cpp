// Filter chains through the real processors, and the compare view.
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
//   CompareView*           composeCompareCpu against the contract written out here;
//                          composeCompareGpu == composeCompareCpu (aligned and unaligned
//                          views); through both processors: the view against the definition
//                          applied to the input and the compare-off output, keepProcessed.
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

// ---- Inputs and the processor loop ----

struct Clip {
  FrameLayout layout;
  std::vector<HostImage> rgba;               // the pictures
  std::vector<std::vector<uint8_t>> frames;  // the same as `layout` frames
};

// A moving natural clip of n frames, yuv420p or rgba (then converting is the identity).
Clip makeClip(int w, int h, int n, PixelFormat format, float step = 0.15f) {
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

std::vector<uint8_t> packedRows(const uint8_t* p, size_t pitch, int width, int height) {
  std::vector<uint8_t> out(size_t(width) * 3 * size_t(height));
  for (int y = 0; y < height; ++y) std::memcpy(&out[size_t(y) * width * 3], p + y * pitch, size_t(width) * 3);
  return out;
}

using ParamsOf = std::function<ProcessParams(int frame)>;

// Every frame of `clip` through `p`, submitting ahead as far as the slots allow (a refused
// submit, a full pipeline or a new shape, waits for the oldest frame).
std::vector<Out> runAll(Processor& p, const Clip& clip, const ParamsOf& paramsOf, int* refused = nullptr) {
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

enum class Backend { Cpu, Cuda };
const char* backendName(Backend b) { return b == Backend::Cpu ? "cpu" : "cuda"; }
void PrintTo(Backend b, std::ostream* os) { *os << backendName(b); }
std::unique_ptr<Processor> makeBackend(Backend b, int slots) {
  return b == Backend::Cuda ? makeCudaProcessor(slots) : makeCpuProcessor(slots);
}
#define VP_REQUIRE_BACKEND(b)                \
  do {                                       \
    if ((b) == Backend::Cuda) VP_REQUIRE_GPU(); \
  } while (0)

ProcessParams chainParams(const char* chain) {
  ProcessParams p;
  p.chain = parseChain(chain);
  return p;
}

std::map<std::string, double> metricsOf(const ElementResult& r) {
  std::map<std::string, double> out;
  for (const FilterMetric& m : r.metrics)
    if (m.name) out[m.name] = m.value;
  return out;
}

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

class ChainToggle : public testing::TestWithParam<Backend> {};

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

INSTANTIATE_TEST_SUITE_P(ChainBackends, ChainToggle, testing::Values(Backend::Cpu, Backend::Cuda),
                         [](const auto& info) { return std::string(backendName(info.param)); });

class ChainShapeChange : public testing::TestWithParam<Backend> {};

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

INSTANTIATE_TEST_SUITE_P(ChainBackends, ChainShapeChange, testing::Values(Backend::Cpu, Backend::Cuda),
                         [](const auto& info) { return std::string(backendName(info.param)); });

// ---- The compare view ----

// The contract, written out: packed RGB24 rows of the original and the processed frame
// (w x h) -> the view. Split: c = round(split * w); x < c original, x >= c processed,
// columns c-1 and c inside the frame painted 255. Side: 2w wide, original then processed.
std::vector<uint8_t> compareDefinition(const std::vector<uint8_t>& original, const std::vector<uint8_t>& processed,
                                       int w, int h, CompareMode mode, float split) {
  const int outW = mode == CompareMode::Side ? 2 * w : w;
  const int c = int(std::floor(double(split) * w + 0.5));
  std::vector<uint8_t> out(size_t(outW) * 3 * size_t(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < outW; ++x) {
      uint8_t* o = &out[(size_t(y) * outW + x) * 3];
      const uint8_t* src;
      if (mode == CompareMode::Side)
        src = x < w ? &original[(size_t(y) * w + x) * 3] : &processed[(size_t(y) * w + x - w) * 3];
      else
        src = x < c ? &original[(size_t(y) * w + x) * 3] : &processed[(size_t(y) * w + x) * 3];
      const bool line = mode == CompareMode::Split && (x == c - 1 || x == c);
      for (int ch = 0; ch < 3; ++ch) o[ch] = line ? 255 : src[ch];
    }
  return out;
}

struct View {
  CompareMode mode;
  float split;
};
const View kViews[] = {{CompareMode::Split, 0.f},  {CompareMode::Split, 0.37f}, {CompareMode::Split, 0.5f},
                       {CompareMode::Split, 1.f},  {CompareMode::Side, 0.5f}};

std::string viewName(const View& v) {
  return v.mode == CompareMode::Side ? "side" : "split " + std::to_string(v.split);
}

TEST(CompareViewCpu, SplitColumnAndWidth) {
  EXPECT_EQ(splitColumn(0.f, 17), 0);
  EXPECT_EQ(splitColumn(1.f, 17), 17);
  EXPECT_EQ(splitColumn(0.5f, 17), 9);  // 8.5: halves round up
  EXPECT_EQ(splitColumn(0.5f, 16), 8);
  EXPECT_EQ(splitColumn(0.37f, 333), 123);
  EXPECT_EQ(splitColumn(0.5f, 1), 1);
  EXPECT_EQ(splitColumn(0.49f, 1), 0);
  EXPECT_EQ(compareWidth(CompareMode::Off, 17), 17);
  EXPECT_EQ(compareWidth(CompareMode::Split, 17), 17);
  EXPECT_EQ(compareWidth(CompareMode::Side, 17), 34);
}

TEST(CompareViewCpu, MatchesTheDefinition) {
  for (auto [w, h] : {std::pair{1, 1}, {2, 1}, {3, 2}, {17, 9}, {333, 197}}) {
    const HostImage original = test::makeRandom(w, h, 5), processed = test::makeNatural(w, h, 6);
    const std::vector<uint8_t> o = test::packRgb(original), p = test::packRgb(processed);
    std::vector<View> views(std::begin(kViews), std::end(kViews));
    views.push_back({CompareMode::Split, 1.f / float(w)});
    views.push_back({CompareMode::Split, (float(w) - 0.5f) / float(w)});
    for (const View& v : views) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + viewName(v));
      const int outW = compareWidth(v.mode, w);
      const size_t pitch = size_t(outW) * 3 + 5;  // padding the view must leave alone
      std::vector<uint8_t> dst(pitch * size_t(h), test::kPoison);
      composeCompareCpu(original.cview(), processed.cview(), v.mode, v.split, dst.data(), pitch);
      EXPECT_TRUE(packedRows(dst.data(), pitch, outW, h) == compareDefinition(o, p, w, h, v.mode, v.split));
      for (int y = 0; y < h; ++y)
        for (size_t b = size_t(outW) * 3; b < pitch; ++b) ASSERT_EQ(dst[y * pitch + b], test::kPoison) << "row " << y;
    }
  }
}

TEST(CompareViewCpu, RefusesBadArguments) {
  const HostImage a = test::makeRandom(8, 4, 1), b = test::makeRandom(8, 4, 2), small = test::makeRandom(7, 4, 3);
  std::vector<uint8_t> dst(16 * 3 * 4);
  EXPECT_THROW(composeCompareCpu(a.cview(), small.cview(), CompareMode::Split, 0.5f, dst.data(), 24),
               std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Off, 0.5f, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Split, 1.5f, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Split, -0.1f, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Split, NAN, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Side, 0.5f, dst.data(), 24), std::invalid_argument)
      << "side needs 2 x 8 x 3 bytes a row";
  EXPECT_NO_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Side, 0.5f, dst.data(), 48));
}

// GPU == CPU, with aligned views (the kernel's wide path) and unaligned ones (a view one
// pixel into its buffer, a destination pitch that is no multiple of 4).
TEST(CompareViewGpu, SameBytesAsCpu) {
  VP_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1, 1}, {17, 9}, {333, 197}, {1921, 1081}})
    for (bool aligned : {true, false}) {
      const HostImage original = test::makeRandom(w + 1, h, 5), processed = test::makeNatural(w + 1, h, 6);
      const DeviceImage dOriginal = test::upload(original), dProcessed = test::upload(processed);
      const int skip = aligned ? 0 : 1;
      auto sub = [&](const HostImage& img) {
        return ConstRgbaView{img.data() + skip, img.pitch(), w, img.height()};
      };
      auto dsub = [&](const DeviceImage& img) {
        return ConstRgbaView{img.view().data + skip, img.pitch(), w, img.height()};
      };
      for (const View& v : kViews) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (aligned ? " aligned " : " unaligned ") +
                     viewName(v));
        const int outW = compareWidth(v.mode, w);
        const size_t pitch = aligned ? (size_t(outW) * 3 + 15) / 16 * 16 : size_t(outW) * 3 + 1;
        std::vector<uint8_t> want(pitch * size_t(h), test::kPoison), got(pitch * size_t(h));
        composeCompareCpu(sub(original), sub(processed), v.mode, v.split, want.data(), pitch);
        DeviceBuffer dst(got.size());
        VP_CUDA_CHECK(cudaMemset(dst.get(), test::kPoison, got.size()));
        VP_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy-stream memset vs the non-blocking stream below
        Stream s;
        composeCompareGpu(dsub(dOriginal), dsub(dProcessed), v.mode, v.split, dst.as<uint8_t>(), pitch, s);
        s.synchronize();
        VP_CUDA_CHECK(cudaMemcpy(got.data(), dst.get(), got.size(), cudaMemcpyDeviceToHost));
        size_t differing = 0, first = 0;
        for (size_t i = got.size(); i-- > 0;)
          if (got[i] != want[i]) ++differing, first = i;
        EXPECT_EQ(differing, 0u) << "first at row " << first / pitch << " byte " << first % pitch;
      }
    }
}

// Through the processors, RGBA input (so the original is the input picture): the view is
// the definition applied to the input and to the compare-off output of the same frames;
// keepProcessed brings that output along; compare off, processed is the view itself.
class CompareViewPipeline : public testing::TestWithParam<Backend> {};

TEST_P(CompareViewPipeline, ViewMatchesDefinitionAndProcessedMatchesCompareOff) {
  VP_REQUIRE_BACKEND(GetParam());
  for (auto [w, h] : {std::pair{17, 9}, {333, 197}}) {
    const Clip clip = makeClip(w, h, 3, PixelFormat::Rgba);
    auto plain = makeBackend(GetParam(), 2);
    const ProcessParams off = chainParams("blur=r=3,kmeans=k=6");
    const std::vector<Out> processed = runAll(*plain, clip, [&](int) { return off; });
    ASSERT_EQ(processed.size(), 3u);
    for (const Out& o : processed) {
      EXPECT_TRUE(o.processedIsRgb) << "compare off: processed is the view";
      EXPECT_EQ(o.width, w);
      EXPECT_EQ(o.frameWidth, w);
    }
    for (const View& v : kViews)
      for (bool keep : {false, true}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + viewName(v) + (keep ? " keep" : ""));
        ProcessParams params = off;
        params.compare = v.mode;
        params.split = v.split;
        params.keepProcessed = keep;
        auto p = makeBackend(GetParam(), 2);
        const std::vector<Out> shown = runAll(*p, clip, [&](int) { return params; });
        ASSERT_EQ(shown.size(), 3u);
        for (size_t i = 0; i < shown.size(); ++i) {
          const Out& o = shown[i];
          EXPECT_EQ(o.width, compareWidth(v.mode, w));
          EXPECT_EQ(o.height, h);
          EXPECT_EQ(o.frameWidth, w);
          EXPECT_EQ(o.frameHeight, h);
          EXPECT_TRUE(o.rgb == compareDefinition(test::packRgb(clip.rgba[i]), processed[i].rgb, w, h, v.mode, v.split))
              << "frame " << i;
          EXPECT_FALSE(o.processedIsRgb);
          if (keep) {
            EXPECT_TRUE(o.processed == processed[i].rgb) << "frame " << i;
          } else {
            EXPECT_TRUE(o.processed.empty()) << "frame " << i << ": processed without keepProcessed";
          }
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(CompareBackends, CompareViewPipeline, testing::Values(Backend::Cpu, Backend::Cuda),
                         [](const auto& info) { return std::string(backendName(info.param)); });

}  // namespace
}  // namespace vp
