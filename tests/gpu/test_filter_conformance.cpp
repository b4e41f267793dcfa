// What every registered filter must do, run over each entry of filterRegistry(): a filter
// gets all of it by being registered, and fails it until tests/support/filter_reference.*
// holds its reference.
//
//   FilterConformance (CPU)   the FilterInfo and its option table are sound (bounds,
//                             defaults, unique names the parser can read, choices and
//                             values that format and parse back, set() refusing what is
//                             out of bounds); the representative settings are valid; the
//                             CPU twin (makeCpu) gives the reference's output and metrics;
//                             configure() forgets the state carried between frames.
//   FilterConformanceGpu      makeGpu, configure(w, h, 1), enqueue on a stream, finish:
//                             the same bytes and metrics as the CPU twin, with poisoned
//                             outputs, at 1x1, 17x9, 1921x1081 and 3840x2160, random and
//                             natural images, every representative setting.
//   FilterConformanceGpuClip  consecutive frames on two slots (two streams, the next
//                             frame enqueued before the previous one is finished), a
//                             reconfigure midway: frame by frame the CPU twin's output.
//
// Tolerances: none between the backends. Against the references the comparison is exact
// but where a reference says otherwise (FilterReference::levels: the bilateral's 1 level);
// see filter_reference.h for what each reference computes.
#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/chain.h"
#include "gpu/filters/registry.h"
#include "support/filter_reference.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace vp {
namespace {

using test::ref::FilterReference;
using test::ref::ReferenceFrame;

std::vector<std::string> registeredNames() {
  std::vector<std::string> names;
  for (const FilterInfo* f : filterRegistry()) names.push_back(f->name);
  return names;
}

std::string testName(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

enum class Input { Random, Natural };

const HostImage& image(int w, int h, Input kind, float phase = 0.f) {
  static std::map<std::tuple<int, int, Input, float>, HostImage> cache;
  const auto key = std::make_tuple(w, h, kind, phase);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, kind == Input::Random ? test::makeRandom(w, h, 42) : test::makeNatural(w, h, 7, phase))
             .first;
  return it->second;
}

const char* inputName(Input kind) { return kind == Input::Random ? "random" : "natural"; }

// The metrics a result holds, by name.
std::map<std::string, double> metricsOf(const ElementResult& r) {
  std::map<std::string, double> out;
  for (const FilterMetric& m : r.metrics)
    if (m.name) out[m.name] = m.value;
  return out;
}

std::vector<FilterElement> settingsOf(const FilterReference& ref) {
  std::vector<FilterElement> out;
  for (const std::string& s : ref.settings) out.push_back(parseElement(s));
  return out;
}

struct Frame {
  HostImage out;
  ElementResult result;
};

// One frame through a CPU twin, its output poisoned first.
Frame runCpu(CpuFilter& f, const HostImage& in, const FilterElement& e) {
  Frame r{HostImage(in.width(), in.height()), {}};
  test::poison(r.out);
  f.run(in.cview(), r.out.view(), e, r.result);
  return r;
}

// A fresh CPU twin's first frame.
Frame freshCpu(const FilterElement& e, const HostImage& in) {
  auto f = e.filter().makeCpu();
  f->configure(in.width(), in.height());
  return runCpu(*f, in, e);
}

// ---- CPU: the FilterInfo, its options, the twin against the reference ----

class FilterConformance : public testing::TestWithParam<std::string> {
 protected:
  const FilterInfo& filter() const { return *findFilter(GetParam()); }
  // The filter's reference; a registered filter without one fails here.
  const FilterReference* reference() const {
    const FilterReference* r = test::ref::findFilterReference(GetParam());
    if (!r)
      ADD_FAILURE() << "filter '" << GetParam() << "' is registered but has no reference: add one to "
                    << "tests/support/filter_reference.cpp (an independent definition of its output)";
    return r;
  }
};

TEST_P(FilterConformance, HasAReference) {
  const FilterReference* r = reference();
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->settings.empty());
  EXPECT_TRUE(r->firstFrame);
  EXPECT_NE(std::string(r->compared), "");
}

TEST_P(FilterConformance, InfoIsComplete) {
  const FilterInfo& f = filter();
  const std::string name = f.name;
  ASSERT_FALSE(name.empty());
  for (char c : name)
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')
        << "the name must be a word --vf can hold: '" << name << "'";
  EXPECT_NE(name, "none");  // the empty chain's word
  EXPECT_EQ(findFilter(name), &f);
  ASSERT_NE(f.summary, nullptr);
  EXPECT_NE(std::string(f.summary), "");
  EXPECT_GE(f.optionCount, 0);
  EXPECT_LE(f.optionCount, kMaxFilterOptions);
  if (f.optionCount > 0) {
    EXPECT_NE(f.options, nullptr);
  }
  EXPECT_GE(f.mainOption, -1);
  EXPECT_LT(f.mainOption, f.optionCount);
  ASSERT_NE(f.makeCpu, nullptr);
  ASSERT_NE(f.makeGpu, nullptr);
  EXPECT_NE(f.makeCpu(), nullptr);
}

TEST(FilterRegistryTable, NamesAreUniqueAndFound) {
  std::set<std::string> names;
  for (const FilterInfo* f : filterRegistry()) {
    EXPECT_TRUE(names.insert(f->name).second) << "two filters called " << f->name;
    EXPECT_EQ(findFilter(f->name), f);
  }
  EXPECT_EQ(findFilter("no-such-filter"), nullptr);
  EXPECT_EQ(findFilter(""), nullptr);
  // Every reference belongs to a registered filter (a stale one is a typo or a leftover).
  for (const FilterReference& r : test::ref::filterReferences())
    EXPECT_NE(findFilter(r.filter), nullptr) << "reference for unregistered filter " << r.filter;
}

bool whole(double v) { return std::isfinite(v) && v == std::floor(v); }

std::vector<std::string> choiceNames(const OptionInfo& o) {
  std::vector<std::string> out;
  std::string s = o.choices ? o.choices : "";
  size_t start = 0;
  for (size_t bar; (bar = s.find('|', start)) != std::string::npos; start = bar + 1) out.push_back(s.substr(start, bar - start));
  out.push_back(s.substr(start));
  return out;
}

TEST_P(FilterConformance, OptionTableIsSound) {
  const FilterInfo& f = filter();
  std::set<std::string> names;
  const FilterElement defaults(f);
  for (int i = 0; i < f.optionCount; ++i) {
    const OptionInfo& o = f.options[i];
    SCOPED_TRACE(std::string(f.name) + "." + (o.name ? o.name : "(null)"));
    ASSERT_NE(o.name, nullptr);
    const std::string name = o.name;
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << "option name used twice";
    for (char c : name)  // the parser splits at , : = ' and resolveElement at #
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_') << "character '" << c << "' in the name";
    EXPECT_TRUE(o.help && *o.help) << "no help text";
    EXPECT_TRUE(std::isfinite(o.lo) && std::isfinite(o.hi));
    EXPECT_LE(o.lo, o.hi);
    EXPECT_LE(o.lo, o.def);
    EXPECT_LE(o.def, o.hi);
    EXPECT_LE(o.lo, o.stepLo);
    EXPECT_LE(o.stepLo, o.hi);
    EXPECT_EQ(defaults.value(i), o.def);
    switch (o.type) {
      case OptionType::Float:
        EXPECT_EQ(o.choices, nullptr);
        break;
      case OptionType::Int:
        EXPECT_EQ(o.choices, nullptr);
        EXPECT_TRUE(whole(o.lo) && whole(o.hi) && whole(o.def));
        EXPECT_LE(o.hi, 9007199254740991.0) << "integers are held exactly only up to 2^53";
        break;
      case OptionType::Bool:
        EXPECT_EQ(o.choices, nullptr);
        EXPECT_EQ(o.lo, 0);
        EXPECT_EQ(o.hi, 1);
        EXPECT_TRUE(o.def == 0 || o.def == 1);
        break;
      case OptionType::Choice: {
        ASSERT_NE(o.choices, nullptr);
        const std::vector<std::string> choices = choiceNames(o);
        EXPECT_EQ(o.lo, 0);
        EXPECT_EQ(o.hi, double(choices.size() - 1)) << o.choices;
        EXPECT_TRUE(whole(o.def));
        std::set<std::string> unique;
        for (const std::string& c : choices) {
          EXPECT_FALSE(c.empty()) << o.choices;
          EXPECT_TRUE(unique.insert(c).second) << "choice " << c << " twice";
          EXPECT_EQ(c.find_first_of(",:=' \t"), std::string::npos) << "choice '" << c << "' cannot be written in --vf";
        }
        EXPECT_EQ(optionRange(o), o.choices);
        break;
      }
    }
    EXPECT_NE(optionBounds(o).find(name), std::string::npos) << optionBounds(o);
    EXPECT_FALSE(optionRange(o).empty());
  }
}

// The values worth trying for an option: its bounds, default, every choice, a midpoint.
std::vector<double> sampleValues(const OptionInfo& o) {
  std::vector<double> v = {o.lo, o.hi, o.def};
  if (o.type == OptionType::Choice || o.type == OptionType::Bool)
    for (double c = o.lo; c <= o.hi; ++c) v.push_back(c);
  else if (o.type == OptionType::Int)
    v.push_back(std::floor((o.lo + o.hi) / 2));
  else
    v.push_back(o.lo + (o.hi - o.lo) / 3);
  return v;
}

TEST_P(FilterConformance, OptionValuesFormatAndParseBack) {
  const FilterInfo& f = filter();
  for (int i = 0; i < f.optionCount; ++i) {
    const OptionInfo& o = f.options[i];
    for (double v : sampleValues(o)) {
      const std::string text = formatOptionValue(o, v);
      SCOPED_TRACE(std::string(o.name) + " = " + text);
      double back = -1;
      ASSERT_NO_THROW(back = parseOptionValue(o, text));
      EXPECT_EQ(back, v);
      if (o.type == OptionType::Choice) {
        EXPECT_EQ(text, choiceNames(o)[size_t(v)]);
      }
      // And through an element's text.
      FilterElement e(f);
      e.set(i, v);
      EXPECT_TRUE(parseElement(formatElement(e)) == e) << formatElement(e);
    }
    EXPECT_THROW(parseOptionValue(o, ""), std::invalid_argument) << o.name;
    EXPECT_THROW(parseOptionValue(o, "?"), std::invalid_argument) << o.name;
  }
}

TEST_P(FilterConformance, SetRefusesValuesOutOfBounds) {
  const FilterInfo& f = filter();
  for (int i = 0; i < f.optionCount; ++i) {
    const OptionInfo& o = f.options[i];
    SCOPED_TRACE(o.name);
    FilterElement e(f);
    std::vector<double> bad = {o.hi + 1, NAN, INFINITY, -INFINITY};
    if (!(o.zeroName && o.lo - 1 == 0)) bad.push_back(o.lo - 1);  // 0 is the zero word's value
    if (o.type != OptionType::Float)  // not whole (where a double can say so)
      for (double v : {o.lo + 0.5, o.hi - 0.25})
        if (v > o.lo && v < o.hi && !whole(v)) bad.push_back(v);
    for (double v : bad) {
      try {
        e.set(i, v);
        ADD_FAILURE() << "set(" << v << ") accepted";
      } catch (const std::invalid_argument& err) {
        EXPECT_NE(std::string(err.what()).find(o.name), std::string::npos) << err.what();
      }
      EXPECT_EQ(e.value(i), o.def) << "a refused value changed the element";
    }
    // A zero word stands for 0 both ways; the number 0 itself is refused.
    if (o.zeroName) {
      EXPECT_EQ(parseOptionValue(o, o.zeroName), 0);
      EXPECT_EQ(formatOptionValue(o, 0), o.zeroName);
      EXPECT_THROW(parseOptionValue(o, "0"), std::invalid_argument);
      e.set(i, 0);
      EXPECT_EQ(e.value(i), 0);
      e.set(i, o.def);
    }
    // Out-of-bounds text is refused by the parser as well.
    if (o.type == OptionType::Int || o.type == OptionType::Float) {
      EXPECT_THROW(parseOptionValue(o, std::to_string(o.lo - 1)), std::invalid_argument);
      EXPECT_THROW(parseOptionValue(o, formatOptionValue(o, o.hi + 1)), std::invalid_argument);
    }
    if (o.type == OptionType::Int && o.hi > o.lo) {
      EXPECT_THROW(parseOptionValue(o, formatOptionValue(o, o.lo + 0.5)), std::invalid_argument);
    }
    // Everything within bounds is taken.
    for (double v : sampleValues(o)) {
      EXPECT_NO_THROW(e.set(i, v)) << v;
      EXPECT_EQ(e.value(i), v);
    }
  }
}

TEST_P(FilterConformance, SettingsAreValidAndRoundTrip) {
  const FilterReference* ref = reference();
  ASSERT_NE(ref, nullptr);
  std::set<std::string> canonical;
  for (const std::string& s : ref->settings) {
    SCOPED_TRACE(s);
    FilterElement e;
    ASSERT_NO_THROW(e = parseElement(s));
    EXPECT_EQ(&e.filter(), &filter());
    EXPECT_TRUE(parseElement(formatElement(e)) == e);
    EXPECT_TRUE(canonical.insert(formatElement(e)).second) << "the same setting twice";
  }
}

// The twin against the reference: small sizes (the references are plain loops).
TEST_P(FilterConformance, CpuTwinMatchesReference) {
  const FilterReference* ref = reference();
  ASSERT_NE(ref, nullptr);
  for (const FilterElement& e : settingsOf(*ref))
    for (auto [w, h] : {std::pair{1, 1}, {17, 9}, {61, 33}, {160, 90}})
      for (Input kind : {Input::Random, Input::Natural}) {
        SCOPED_TRACE(formatElement(e) + " " + std::to_string(w) + "x" + std::to_string(h) + " " + inputName(kind));
        const HostImage& in = image(w, h, kind);
        const ReferenceFrame want = ref->firstFrame(in, e);
        const Frame got = freshCpu(e, in);
        if (ref->levels > 0) {
          EXPECT_LE(test::maxRgbDiff(got.out, want.rgba), ref->levels) << "levels from the reference (1000: alpha)";
        } else {
          const test::ImageDiff d = test::compare(got.out, want.rgba);
          EXPECT_EQ(d.differing, 0u) << d.first << " (the reference met " << want.openChoices
                                     << " choices the contract leaves open)";
        }
        const std::map<std::string, double> metrics = metricsOf(got.result);
        for (const auto& [name, value] : want.metrics) {
          const auto it = metrics.find(name);
          if (it == metrics.end()) {
            ADD_FAILURE() << "metric " << name << " not reported";
          } else {
            EXPECT_EQ(it->second, value) << "metric " << name;
          }
        }
      }
}

// configure() forgets the state carried between frames: after it, a frame comes out as a
// fresh element's first frame (a temporal filter re-initialises), at the same size or a new one.
TEST_P(FilterConformance, CpuConfigureForgetsState) {
  const FilterReference* ref = reference();
  ASSERT_NE(ref, nullptr);
  for (const FilterElement& e : settingsOf(*ref)) {
    SCOPED_TRACE(formatElement(e));
    const HostImage& a = image(61, 33, Input::Natural, 0.f);
    const HostImage& b = image(61, 33, Input::Natural, 0.3f);
    const HostImage& small = image(17, 9, Input::Natural, 0.3f);
    auto f = filter().makeCpu();
    f->configure(61, 33);
    runCpu(*f, a, e);
    runCpu(*f, b, e);
    f->configure(61, 33);
    const Frame again = runCpu(*f, b, e);
    const Frame fresh = freshCpu(e, b);
    EXPECT_EQ(test::compare(again.out, fresh.out).differing, 0u);
    EXPECT_EQ(metricsOf(again.result), metricsOf(fresh.result));
    f->configure(17, 9);
    const Frame resized = runCpu(*f, small, e);
    EXPECT_EQ(test::compare(resized.out, freshCpu(e, small).out).differing, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(FilterRegistry, FilterConformance, testing::ValuesIn(registeredNames()),
                         [](const auto& info) { return testName(info.param); });

// ---- GPU: the same bytes as the twin ----

Frame runGpuOnce(const FilterElement& e, const HostImage& in) {
  auto g = e.filter().makeGpu();
  g->configure(in.width(), in.height(), 1);
  DeviceImage din = test::upload(in), dout(in.width(), in.height());
  test::poison(dout);
  Stream stream;
  Frame r;
  g->enqueue(0, din.view(), dout.view(), e, r.result, stream);
  stream.synchronize();
  g->finish(0, r.result);
  r.out = test::download(dout);
  return r;
}

struct GpuCase {
  std::string filter;
  int w, h;
};

class FilterConformanceGpu : public testing::TestWithParam<GpuCase> {};

TEST_P(FilterConformanceGpu, SameBytesAsCpuTwin) {
  VP_REQUIRE_GPU();
  const GpuCase c = GetParam();
  const FilterReference* ref = test::ref::findFilterReference(c.filter);
  ASSERT_NE(ref, nullptr) << "filter '" << c.filter << "' has no reference (tests/support/filter_reference.cpp)";
  for (const FilterElement& e : settingsOf(*ref))
    for (Input kind : {Input::Random, Input::Natural}) {
      SCOPED_TRACE(formatElement(e) + " " + inputName(kind));
      const HostImage& in = image(c.w, c.h, kind);
      const Frame want = freshCpu(e, in);
      const Frame got = runGpuOnce(e, in);
      const test::ImageDiff d = test::compare(got.out, want.out);
      EXPECT_EQ(d.differing, 0u) << d.first;
      EXPECT_EQ(metricsOf(got.result), metricsOf(want.result));
    }
}

std::vector<GpuCase> gpuCases() {
  std::vector<GpuCase> cases;
  for (const std::string& name : registeredNames())
    for (auto [w, h] : {std::pair{1, 1}, {17, 9}, {1921, 1081}, {3840, 2160}}) cases.push_back({name, w, h});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(FilterRegistry, FilterConformanceGpu, testing::ValuesIn(gpuCases()), [](const auto& info) {
  return testName(info.param.filter) + "_" + std::to_string(info.param.w) + "x" + std::to_string(info.param.h);
});

// Consecutive frames of a moving clip, as a two-slot pipeline runs them: slot i % 2 on
// its own stream, frame i enqueued before frame i-1 is finished; a reconfigure after
// frame 3 (state forgotten on both sides). Frame by frame the twin's bytes and metrics.
class FilterConformanceGpuClip : public testing::TestWithParam<std::string> {};

TEST_P(FilterConformanceGpuClip, TwoSlotsMatchTheTwinFrameByFrame) {
  VP_REQUIRE_GPU();
  const FilterReference* ref = test::ref::findFilterReference(GetParam());
  ASSERT_NE(ref, nullptr) << "filter '" << GetParam() << "' has no reference (tests/support/filter_reference.cpp)";
  constexpr int w = 333, h = 197, n = 7, slots = 2;
  for (const FilterElement& e : settingsOf(*ref)) {
    SCOPED_TRACE(formatElement(e));
    auto cpu = e.filter().makeCpu();
    auto gpu = e.filter().makeGpu();
    cpu->configure(w, h);
    gpu->configure(w, h, slots);
    std::vector<DeviceImage> in, out;
    std::vector<Stream> streams(slots);
    for (int s = 0; s < slots; ++s) in.emplace_back(w, h), out.emplace_back(w, h);
    std::vector<ElementResult> results(n);
    std::vector<HostImage> want(n);
    std::vector<ElementResult> wantResults(n);
    auto collect = [&](int i) {  // finishes frame i and compares it
      const int s = i % slots;
      streams[size_t(s)].synchronize();
      gpu->finish(s, results[size_t(i)]);
      const test::ImageDiff d = test::compare(test::download(out[size_t(s)]), want[size_t(i)]);
      EXPECT_EQ(d.differing, 0u) << "frame " << i << ": " << d.first;
      EXPECT_EQ(metricsOf(results[size_t(i)]), metricsOf(wantResults[size_t(i)])) << "frame " << i;
    };
    for (int i = 0; i < n; ++i) {
      const HostImage& frame = image(w, h, Input::Natural, 0.1f * float(i));
      if (i == 4) {  // reconfigure: nothing in flight first
        collect(i - 1);
        cpu->configure(w, h);
        gpu->configure(w, h, slots);
      }
      Frame c = runCpu(*cpu, frame, e);
      want[size_t(i)] = std::move(c.out);
      wantResults[size_t(i)] = c.result;
      const int s = i % slots;
      test::upload(frame, in[size_t(s)]);
      test::poison(out[size_t(s)]);
      gpu->enqueue(s, in[size_t(s)].view(), out[size_t(s)].view(), e, results[size_t(i)], streams[size_t(s)]);
      if (i >= 1 && i != 4) collect(i - 1);
    }
    collect(n - 1);
  }
}

INSTANTIATE_TEST_SUITE_P(FilterRegistry, FilterConformanceGpuClip, testing::ValuesIn(registeredNames()),
                         [](const auto& info) { return testName(info.param); });

}  // namespace
}  // namespace vp
