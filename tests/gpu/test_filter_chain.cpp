// The chain text (gpu/filters/chain.h): a table of good strings with the canonical text
// each formats to, a table of bad strings with the position their ChainError names,
// quoting and blanks, the formatChain -> parseChain round trip, labels, describeChain,
// resolveElement and FilterChain's own operations. CPU only; no device involved.
#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/chain.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/registry.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace vp {
namespace {

// Canonical texts of the registry defaults (written out: the format is what is tested).
constexpr const char* kKmeansDefault = "kmeans=k=8:iterations=20:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12";
constexpr const char* kBlurDefault = "blur=r=5:passes=1:border=replicate";

std::string repeat(const std::string& element, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? "," : "") + element;
  return out;
}

// ---- Good strings ----

struct Good {
  std::string text;
  std::string canonical;  // formatChain of what it parses to
};

std::vector<Good> goodStrings() {
  return {
      {"", "none"},
      {"none", "none"},
      {"  none  ", "none"},
      {" \t ", "none"},
      {"kmeans", kKmeansDefault},
      {"blur", kBlurDefault},
      {"kmeans=6", "kmeans=k=6:iterations=20:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=6:5", "kmeans=k=6:iterations=5:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=k=6:iterations=5:epsilon=0.5:init=uniform:warm=0:seed=7:view=colour:spatial=0:kmin=2:kmax=12",
       "kmeans=k=6:iterations=5:epsilon=0.5:init=uniform:warm=0:seed=7:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=seed=7:k=3", "kmeans=k=3:iterations=20:epsilon=0.01:init=kmeans++:warm=1:seed=7:view=colour:spatial=0:kmin=2:kmax=12"},
      // A bare value fills the option after the last one given.
      {"kmeans=iterations=5:0.25", "kmeans=k=8:iterations=5:epsilon=0.25:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"blur=2:3:wrap", "blur=r=2:passes=3:border=wrap"},
      {"blur=passes=2:wrap", "blur=r=5:passes=2:border=wrap"},
      {"blur=r=3,kmeans=k=6",
       "blur=r=3:passes=1:border=replicate,kmeans=k=6:iterations=20:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      // Blanks around names, keys and values.
      {"  blur = r = 3 ,\tkmeans = k = 6  ",
       "blur=r=3:passes=1:border=replicate,kmeans=k=6:iterations=20:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"blur=r=3 : passes=2 : border=zero", "blur=r=3:passes=2:border=zero"},
      // Quoted values.
      {"blur=border='wrap'", "blur=r=5:passes=1:border=wrap"},
      {"kmeans=epsilon='1e-3'", "kmeans=k=8:iterations=20:epsilon=0.001:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans='6':'4'", "kmeans=k=6:iterations=4:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      // Every spelling of a Bool.
      {"kmeans=warm=no", "kmeans=k=8:iterations=20:epsilon=0.01:init=kmeans++:warm=0:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=warm=off", "kmeans=k=8:iterations=20:epsilon=0.01:init=kmeans++:warm=0:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=warm=false", "kmeans=k=8:iterations=20:epsilon=0.01:init=kmeans++:warm=0:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=warm=0", "kmeans=k=8:iterations=20:epsilon=0.01:init=kmeans++:warm=0:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=warm=yes", kKmeansDefault},
      {"kmeans=warm=on", kKmeansDefault},
      {"kmeans=warm=true", kKmeansDefault},
      {"kmeans=warm=1", kKmeansDefault},
      // Every choice.
      {"kmeans=init=uniform", "kmeans=k=8:iterations=20:epsilon=0.01:init=uniform:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=init=warm", "kmeans=k=8:iterations=20:epsilon=0.01:init=warm:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      {"blur=border=reflect", "blur=r=5:passes=1:border=reflect"},
      // Bounds, both ends.
      {"kmeans=k=1:iterations=0:epsilon=0:seed=0", "kmeans=k=1:iterations=0:epsilon=0:init=kmeans++:warm=1:seed=0:view=colour:spatial=0:kmin=2:kmax=12"},
      {"kmeans=k=32:iterations=1000:epsilon=1000000:seed=9007199254740991",
       "kmeans=k=32:iterations=1000:epsilon=1000000:init=kmeans++:warm=1:seed=9007199254740991:view=colour:spatial=0:kmin=2:kmax=12"},
      {"blur=r=0:passes=1:border=zero", "blur=r=0:passes=1:border=zero"},
      {"blur=r=128:passes=3", "blur=r=128:passes=3:border=replicate"},
      {"kmeans=epsilon=0.1", "kmeans=k=8:iterations=20:epsilon=0.1:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12"},
      // Repeated filters, up to the largest chain.
      {"blur,blur", repeat(kBlurDefault, 2)},
      {"kmeans,blur,kmeans", std::string(kKmeansDefault) + "," + kBlurDefault + "," + kKmeansDefault},
      {repeat("blur", kMaxChainLength), repeat(kBlurDefault, kMaxChainLength)},
  };
}

TEST(FilterChainParse, GoodStringsFormatToTheirCanonicalText) {
  for (const Good& g : goodStrings()) {
    SCOPED_TRACE("'" + g.text + "'");
    FilterChain c;
    ASSERT_NO_THROW(c = parseChain(g.text));
    EXPECT_EQ(formatChain(c), g.canonical);
    // The canonical text is itself good and means the same chain.
    FilterChain again;
    ASSERT_NO_THROW(again = parseChain(g.canonical));
    EXPECT_TRUE(again == c) << formatChain(again);
    for (const FilterElement& e : c) EXPECT_TRUE(e.enabled());
  }
}

TEST(FilterChainParse, GoodStringsHoldTheirValues) {
  using namespace kmeans_option;
  FilterChain c = parseChain("kmeans=6:5");
  ASSERT_EQ(c.size(), 1);
  EXPECT_EQ(&c[0].filter(), &kKmeansFilter);
  EXPECT_EQ(c[0].intValue(K), 6);
  EXPECT_EQ(c[0].intValue(Iterations), 5);
  EXPECT_EQ(c[0].value(Epsilon), 0.01);
  EXPECT_EQ(c[0].intValue(Init), 1);  // kmeans++, the default
  EXPECT_TRUE(c[0].boolValue(Warm));
  EXPECT_EQ(c[0].value(Seed), 24301);

  c = parseChain("kmeans=epsilon='1e-3':warm=off:init=uniform:seed=9007199254740991");
  EXPECT_EQ(c[0].value(Epsilon), 0.001);
  EXPECT_FALSE(c[0].boolValue(Warm));
  EXPECT_EQ(c[0].intValue(Init), 0);
  EXPECT_EQ(c[0].value(Seed), 9007199254740991.0);

  c = parseChain(" blur = 7 : 2 : 'wrap' , kmeans ");
  ASSERT_EQ(c.size(), 2);
  EXPECT_EQ(&c[0].filter(), &kBlurFilter);
  EXPECT_EQ(blurParamsOf(c[0]).radius, 7);
  EXPECT_EQ(blurParamsOf(c[0]).passes, 2);
  EXPECT_EQ(blurParamsOf(c[0]).border, BorderMode::Wrap);
  EXPECT_EQ(&c[1].filter(), &kKmeansFilter);
  EXPECT_TRUE(c[1] == FilterElement(kKmeansFilter));

  EXPECT_TRUE(parseChain("").empty());
  EXPECT_TRUE(parseChain("none").empty());
  EXPECT_EQ(parseChain(repeat("kmeans", kMaxChainLength)).size(), kMaxChainLength);
}

TEST(FilterChainParse, CallerDefaultsFillOptionsNotGiven) {
  const ElementDefaults defaults = [](const FilterInfo& f) {
    FilterElement e(f);
    if (&f == &kKmeansFilter) e.set(kmeans_option::K, 5), e.set(kmeans_option::Iterations, 3);
    return e;
  };
  FilterChain c = parseChain("kmeans,blur,kmeans=k=7,kmeans=2", defaults);
  ASSERT_EQ(c.size(), 4);
  EXPECT_EQ(c[0].intValue(kmeans_option::K), 5);
  EXPECT_EQ(c[0].intValue(kmeans_option::Iterations), 3);
  EXPECT_TRUE(c[1] == FilterElement(kBlurFilter));
  EXPECT_EQ(c[2].intValue(kmeans_option::K), 7);
  EXPECT_EQ(c[2].intValue(kmeans_option::Iterations), 3);
  EXPECT_EQ(c[3].intValue(kmeans_option::K), 2);
  EXPECT_EQ(parseElement("kmeans", defaults).intValue(kmeans_option::K), 5);
}

// ---- Bad strings ----

struct Bad {
  std::string text;
  size_t position;   // 0-based offset ChainError names
  std::string says;  // a piece of what()
};

std::vector<Bad> badStrings() {
  return {
      // Unknown filters (names are case-sensitive; "none" is a whole chain, not a filter).
      {"sharpen", 0, "unknown filter 'sharpen'"},
      {"blur,sharpen", 5, "unknown filter 'sharpen'"},
      {"  sharpen", 2, "unknown filter"},
      {"Blur", 0, "unknown filter 'Blur'"},
      {"none,blur", 0, "unknown filter 'none'"},
      {"=3", 0, "unknown filter"},
      {"blur:r=3", 0, "unknown filter"},
      // Unknown options.
      {"kmeans=q=3", 7, "unknown option 'q' of kmeans"},
      {"blur=r=3:radius=4", 9, "unknown option 'radius' of blur"},
      {"blur = r=1 : K=2", 13, "unknown option 'K'"},
      // Out of range.
      {"kmeans=k=0", 9, "k must be auto or 1..32"},
      {"kmeans=k=33", 9, "k must be auto or 1..32"},
      {"blur=r=-1", 7, "r must be 0..128"},
      {"blur=r=129", 7, "r must be 0..128"},
      {"blur=passes=0", 12, "passes must be 1..3"},
      {"blur=passes=4", 12, "passes must be 1..3"},
      {"kmeans=iterations=1001", 18, "iterations must be 0..1000"},
      {"kmeans=epsilon=-0.1", 15, "epsilon must be 0..1000000"},
      {"kmeans=epsilon=1000001", 15, "epsilon must be"},
      {"kmeans=epsilon=nan", 15, "epsilon must be"},
      {"kmeans=epsilon=inf", 15, "epsilon must be"},
      {"kmeans=seed=-1", 12, "seed must be"},
      {"kmeans=seed=9007199254740992", 12, "seed must be"},
      {"kmeans=k=6,blur=r=200", 18, "r must be 0..128"},
      {"kmeans = k = 0", 13, "k must be auto or 1..32"},
      {"kmeans=k='40'", 9, "k must be auto or 1..32"},
      // Not an integer where an Int is wanted; not a number.
      {"kmeans=k=2.5", 9, "k must be auto or 1..32"},
      {"blur=r=0.5", 7, "r must be"},
      {"kmeans=k=abc", 9, "k must be"},
      {"kmeans=k=6x", 9, "k must be"},
      {"kmeans=k=", 9, "k must be"},
      {"blur=r=3 4", 7, "r must be"},
      {"kmeans=epsilon=0.1.2", 15, "epsilon must be"},
      // Bad choices and Bools (choices by name only).
      {"blur=border=mirror", 12, "border must be zero, replicate, reflect or wrap"},
      {"blur=border=Wrap", 12, "border must be"},
      {"blur=border=3", 12, "border must be"},
      {"kmeans=init=random", 12, "init must be uniform, kmeans++ or warm"},
      {"kmeans=warm=maybe", 12, "warm must be 0 or 1"},
      {"kmeans=warm=2", 12, "warm must be 0 or 1"},
      // Empty elements and options.
      {"blur,,kmeans", 5, "a filter name was expected"},
      {",blur", 0, "a filter name was expected"},
      {",", 0, "a filter name was expected"},
      {"blur,", 5, "a filter name was expected"},
      {"blur, ,kmeans", 6, "a filter name was expected"},
      {"kmeans=k=6,,", 11, "a filter name was expected"},
      {"kmeans=", 7, "an option of kmeans was expected"},
      {"blur=r=3:", 9, "an option of blur was expected"},
      {"blur=:3", 5, "an option of blur was expected"},
      {"blur=r=3::passes=2", 9, "an option of blur was expected"},
      // An option given twice (by name or by place).
      {"kmeans=k=3:k=4", 11, "option 'k' is given twice"},
      {"kmeans=3:k=4", 9, "option 'k' is given twice"},
      {"blur=r=1:passes=2:1", 18, "border must be"},  // a bare value after passes is a border
      {"blur=passes=2:r=1:2", 18, "option 'passes' is given twice"},
      // Too many bare values.
      {"blur=1:2:wrap:4", 14, "blur takes at most 3 options"},
      {"blur=border=wrap:4", 17, "blur takes at most 3 options"},
      // Unclosed quotes: the position is the end of the text.
      {"blur=border='wrap", 17, "a closing ' was expected"},
      {"blur='r=3", 9, "a closing ' was expected"},
      {"blur=r=3,kmeans=k='6", 20, "a closing ' was expected"},
      // A quoted ',' stays inside its value.
      {"blur=border='wr,ap'", 12, "border must be"},
      // More than kMaxChainLength elements: the first one too many.
      {repeat("blur", kMaxChainLength + 1), 5 * kMaxChainLength, "a chain holds at most 8 filters"},
      {repeat("kmeans=k=2", kMaxChainLength) + ",sharpen", 11 * kMaxChainLength, "at most 8"},
  };
}

TEST(FilterChainParse, BadStringsNameThePosition) {
  for (const Bad& b : badStrings()) {
    SCOPED_TRACE("'" + b.text + "'");
    try {
      const FilterChain c = parseChain(b.text);
      ADD_FAILURE() << "accepted as " << formatChain(c);
    } catch (const ChainError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.position(), b.position) << what;
      EXPECT_EQ(what.rfind("at " + std::to_string(b.position) + ": ", 0), 0u) << what;
      EXPECT_NE(what.find(b.says), std::string::npos) << what;
    }
  }
}

TEST(FilterChainParse, ChainErrorIsAnInvalidArgument) {
  EXPECT_THROW(parseChain("sharpen"), std::invalid_argument);
  // The messages list what would have been right.
  try {
    parseChain("sharpen");
  } catch (const ChainError& e) {
    for (const FilterInfo* f : filterRegistry()) EXPECT_NE(std::string(e.what()).find(f->name), std::string::npos);
  }
  try {
    parseChain("kmeans=q=1");
  } catch (const ChainError& e) {
    for (int i = 0; i < kKmeansFilter.optionCount; ++i)
      EXPECT_NE(std::string(e.what()).find(kKmeansFilter.options[i].name), std::string::npos) << e.what();
  }
}

TEST(FilterChainParse, ParseElementTakesOneElement) {
  EXPECT_TRUE(parseElement("kmeans=k=6") == parseChain("kmeans=k=6")[0]);
  EXPECT_TRUE(parseElement("  blur = 2 ") == parseChain("blur=r=2")[0]);
  const auto position = [](const char* text) -> long {
    try {
      parseElement(text);
    } catch (const ChainError& e) {
      return long(e.position());
    }
    return -1;
  };
  EXPECT_EQ(position("blur,kmeans"), 4);
  EXPECT_EQ(position(" , blur"), 1);
  EXPECT_EQ(position(""), 0);
  EXPECT_EQ(position("none"), 0);  // "none" is a chain, not an element
  EXPECT_EQ(position("kmeans=k=99"), 9);
  EXPECT_EQ(position("blur=r='3"), 9);
  EXPECT_EQ(position("blur=border='a,b'"), 12);  // the quoted ',' does not split
}

// ---- Round trips ----

// A random valid element of `f`: each option at a random value within its bounds (Floats
// with many digits, so the text must carry every bit).
FilterElement randomElement(const FilterInfo& f, test::SplitMix64& rng) {
  FilterElement e(f);
  for (int i = 0; i < f.optionCount; ++i) {
    const OptionInfo& o = f.options[i];
    const double u = double(rng.next() >> 11) * 0x1.0p-53;  // [0, 1)
    double v = o.lo + u * (o.hi - o.lo);
    if (o.type != OptionType::Float) v = std::floor(v);
    if (rng.next() % 5 == 0) v = rng.next() % 2 ? o.lo : o.hi;
    e.set(i, v);
  }
  return e;
}

TEST(FilterChainRoundTrip, FormatThenParseGivesTheSameChain) {
  test::SplitMix64 rng(2024);
  const auto& filters = filterRegistry();
  for (int trial = 0; trial < 300; ++trial) {
    FilterChain c;
    const int n = int(rng.next() % (kMaxChainLength + 1));
    for (int i = 0; i < n; ++i) c.add(randomElement(*filters[rng.next() % filters.size()], rng));
    const std::string text = formatChain(c);
    SCOPED_TRACE(text);
    FilterChain back;
    ASSERT_NO_THROW(back = parseChain(text));
    EXPECT_TRUE(back == c);
    EXPECT_EQ(formatChain(back), text);
    for (int i = 0; i < c.size(); ++i) EXPECT_TRUE(parseElement(formatElement(c[i])) == c[i]) << i;
  }
  // describeChain's shorter text means the same chain too.
  for (const Good& g : goodStrings()) {
    const FilterChain c = parseChain(g.text);
    EXPECT_TRUE(parseChain(describeChain(c)) == c) << g.text << " -> " << describeChain(c);
  }
}

TEST(FilterChainRoundTrip, FloatsKeepEveryBit) {
  for (double eps : {0.1, 1.0 / 3.0, 1e-7, 123456.789, 0.30000000000000004, 999999.99999999988}) {
    FilterElement e(kKmeansFilter);
    e.set(kmeans_option::Epsilon, eps);
    FilterChain c;
    c.add(e);
    const FilterChain back = parseChain(formatChain(c));
    EXPECT_EQ(back[0].value(kmeans_option::Epsilon), eps) << formatChain(c);
  }
}

TEST(FilterChainRoundTrip, DisabledElementsFormatAsEnabled) {
  FilterChain c = parseChain("blur=r=3,kmeans=k=6");
  c[0].setEnabled(false);
  const FilterChain back = parseChain(formatChain(c));
  EXPECT_TRUE(back[0].enabled());
  EXPECT_FALSE(back == c);  // enabled is part of equality
  c[0].setEnabled(true);
  EXPECT_TRUE(back == c);
}

// ---- Labels and descriptions ----

TEST(FilterChainLabels, FilterAndOneBasedPosition) {
  const FilterChain c = parseChain("blur,kmeans,blur=r=1");
  EXPECT_EQ(elementLabel(c, 0), "blur#1");
  EXPECT_EQ(elementLabel(c, 1), "kmeans#2");
  EXPECT_EQ(elementLabel(c, 2), "blur#3");
}

TEST(FilterChainLabels, DescribeWritesWhatDiffersFromTheDefaults) {
  EXPECT_EQ(describeChain(parseChain("")), "none");
  EXPECT_EQ(describeChain(parseChain("blur=r=5:passes=1,kmeans")), "blur,kmeans");
  EXPECT_EQ(describeChain(parseChain("blur=r=3,kmeans=k=6:init=uniform")), "blur=r=3,kmeans=k=6:init=uniform");
  EXPECT_EQ(describeChain(parseChain("kmeans=seed=1:k=2")), "kmeans=k=2:seed=1");  // table order
  FilterChain c = parseChain("blur=r=3,kmeans");
  c[0].setEnabled(false);
  EXPECT_EQ(describeChain(c), "blur=r=3 (off),kmeans");
  EXPECT_EQ(describeElement(c[1]), "kmeans");
}

// ---- resolveElement ----

struct Target {
  const char* target;
  const char* option;
  int index;  // -1: throws std::invalid_argument
};

TEST(FilterChainResolve, Targets) {
  const FilterChain c = parseChain("blur=r=3,kmeans=k=6,blur=r=1");
  const Target targets[] = {
      {"", "k", 1},          {"", "r", 0},          {"", "", 0},           {"", "border", 0},
      {"", "q", -1},         {"1", "r", 0},         {"2", "k", 1},         {"2", "", 1},
      {"3", "r", 2},         {"2", "r", -1},        {"0", "", -1},         {"4", "", -1},
      {"-1", "", -1},        {"2abc", "", -1},      {"99999999999999999999", "", -1},
      {"kmeans", "k", 1},    {"kmeans", "", 1},     {"blur", "r", 0},      {"blur", "k", -1},
      {"sharpen", "", -1},    {"kmeans#2", "k", 1},  {"blur#1", "passes", 0}, {"blur#3", "r", 2},
      {"blur#2", "", -1},    {"kmeans#1", "", -1},  {"kmeans#9", "k", -1},  {"kmeans#0", "", -1},
      {"sharpen#2", "", -1},  {"kmeans#2", "r", -1},
  };
  for (const Target& t : targets) {
    SCOPED_TRACE(std::string("target '") + t.target + "' option '" + t.option + "'");
    if (t.index >= 0) {
      EXPECT_EQ(resolveElement(c, t.target, t.option), t.index);
    } else {
      EXPECT_THROW(resolveElement(c, t.target, t.option), std::invalid_argument);
    }
  }
  const FilterChain empty;
  EXPECT_THROW(resolveElement(empty, "", "k"), std::invalid_argument);
  EXPECT_THROW(resolveElement(empty, "", ""), std::invalid_argument);
  EXPECT_THROW(resolveElement(empty, "1", ""), std::invalid_argument);
  EXPECT_THROW(resolveElement(empty, "kmeans", ""), std::invalid_argument);
}

TEST(FilterChainResolve, MessagesSayWhy) {
  const FilterChain c = parseChain("blur,kmeans");
  const auto message = [&](const char* target, const char* option) -> std::string {
    try {
      resolveElement(c, target, option);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(resolved)";
  };
  EXPECT_NE(message("", "q").find("'q'"), std::string::npos) << message("", "q");
  EXPECT_NE(message("5", "").find("5"), std::string::npos) << message("5", "");
  EXPECT_NE(message("blur#2", "").find("kmeans"), std::string::npos) << message("blur#2", "");
  EXPECT_NE(message("kmeans", "r").find("kmeans#2"), std::string::npos) << message("kmeans", "r");
}

// ---- FilterChain ----

TEST(FilterChainShape, SameShapeIgnoresOptionsAndToggles) {
  const auto shape = [](const char* a, const char* b) { return parseChain(a).sameShape(parseChain(b)); };
  EXPECT_TRUE(shape("", "none"));
  EXPECT_TRUE(shape("blur=r=3,kmeans=k=6", "blur=r=9:border=wrap,kmeans=k=2:init=uniform"));
  EXPECT_TRUE(shape("blur,blur", "blur=1,blur=2"));
  EXPECT_FALSE(shape("blur,kmeans", "kmeans,blur"));
  EXPECT_FALSE(shape("blur,kmeans", "blur"));
  EXPECT_FALSE(shape("blur", "blur,kmeans"));
  EXPECT_FALSE(shape("blur,blur", "blur,kmeans"));
  EXPECT_FALSE(shape("", "blur"));
  FilterChain a = parseChain("blur,kmeans"), b = a;
  b[1].setEnabled(false);
  EXPECT_TRUE(a.sameShape(b));
  EXPECT_TRUE(b.sameShape(a));
  EXPECT_FALSE(a == b);
}

TEST(FilterChainShape, AddRemoveFindCount) {
  FilterChain c;
  EXPECT_TRUE(c.empty());
  for (int i = 0; i < kMaxChainLength; ++i) c.add(FilterElement(i % 3 == 1 ? kKmeansFilter : kBlurFilter));
  EXPECT_EQ(c.size(), kMaxChainLength);
  EXPECT_THROW(c.add(FilterElement(kBlurFilter)), std::invalid_argument);
  EXPECT_EQ(c.size(), kMaxChainLength);
  EXPECT_EQ(c.find("kmeans"), 1);
  EXPECT_EQ(c.find("kmeans", 2), 4);
  EXPECT_EQ(c.find("kmeans", 8), -1);
  EXPECT_EQ(c.find("sharpen"), -1);
  c[0].setEnabled(false);
  c[4].setEnabled(false);
  EXPECT_EQ(c.enabledCount(), kMaxChainLength - 2);
  c.remove(1);  // blur(off) blur blur kmeans(off) blur blur kmeans
  EXPECT_EQ(c.size(), kMaxChainLength - 1);
  EXPECT_EQ(c.find("kmeans"), 3);
  EXPECT_FALSE(c[3].enabled());
  EXPECT_EQ(describeChain(c), "blur (off),blur,blur,kmeans (off),blur,blur,kmeans");
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(formatChain(c), "none");
}

}  // namespace
}  // namespace vp
