// The --vf, preset and compare options as parseOptions and applyConfigText build them:
// good and bad chains (exit 2, one line naming the position), --vf with --mode, NAME=help,
// the shorthands as a one-filter chain and as the defaults of --vf elements, config vf and
// [presets], the command line over the config, --compare / --split / --output-view.
#include "app/input/chain_editor.h"
#include "app/input/commands.h"
#include "app/options.h"
#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/median/median_filter.h"
#include "gpu/filters/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>


namespace vp {
namespace {

// The registered filters' names, "kmeans, blur, median" (as the messages list them).
std::string filterNames() {
  std::string out;
  for (const FilterInfo* f : filterRegistry()) out += (out.empty() ? "" : ", ") + std::string(f->name);
  return out;
}

struct Parsed {
  bool run = false;  // parseOptions said run
  int code = -1;
  std::string err, out;
  Options o;
};

// parseOptions on `args` (after "vidproc"), with its stderr and stdout captured.
Parsed parse(std::vector<const char*> args) {
  Parsed r;
  args.insert(args.begin(), "vidproc");
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  r.run = parseOptions(int(args.size()), args.data(), r.o, r.code);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  return r;
}

std::string describe(const Parsed& r) { return describeChain(r.o.process.chain); }

TEST(ChainOptions, VfGivesTheChain) {
  Parsed r = parse({"--vf", "blur=r=3,kmeans=k=6"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "blur=r=3,kmeans=k=6");
  EXPECT_EQ(formatChain(r.o.process.chain),
            "blur=r=3:passes=1:border=replicate,kmeans=k=6:iterations=20:epsilon=0.01:init=kmeans++:warm=1:seed=24301:view=colour:spatial=0:kmin=2:kmax=12");
  r = parse({"--vf", " blur = 2 : border = wrap , median=r='3' "});  // blanks, bare values, quotes
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "blur=r=2:border=wrap,median=r=3");
  r = parse({"--vf=kmeans=4"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=4");
  r = parse({"--vf", "none"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_TRUE(r.o.process.chain.empty());
  r = parse({});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans");  // the default: one kmeans
}

TEST(ChainOptions, BadVfIsAUsageErrorOfOneLineNamingThePosition) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"blur=r=3,kmeans=q=6",
       "vidproc: --vf: 'blur=r=3,kmeans=q=6' at 16: unknown option 'q' of kmeans (k, iterations, epsilon, init, warm, "
       "seed, view, spatial, kmin, kmax) (see --help)\n"},
      {"blur=r=999", "vidproc: --vf: 'blur=r=999' at 7: blur: r must be 0..128, not '999' (see --help)\n"},
      {"blur,,kmeans",
       "vidproc: --vf: 'blur,,kmeans' at 5: a filter name was expected (" + filterNames() + ") (see --help)\n"},
      {"sharpen",
       "vidproc: --vf: 'sharpen' at 0: unknown filter 'sharpen' (filters: " + filterNames() + ") (see --help)\n"},
      {"kmeans=k=3:k=4", "vidproc: --vf: 'kmeans=k=3:k=4' at 11: option 'k' is given twice (see --help)\n"},
      {"blur=r='3", "vidproc: --vf: 'blur=r='3' at 9: a closing ' was expected (see --help)\n"},
  };
  for (const auto& [vf, line] : cases) {
    const Parsed r = parse({"--vf", vf});
    EXPECT_FALSE(r.run) << vf;
    EXPECT_EQ(r.code, kExitUsage) << vf;
    EXPECT_EQ(r.err, line) << vf;
    EXPECT_EQ(r.out, "") << vf;
  }
  const Parsed many = parse({"--vf", "blur,blur,blur,blur,blur,blur,blur,blur,blur"});
  EXPECT_FALSE(many.run);
  EXPECT_EQ(many.code, kExitUsage);
  EXPECT_NE(many.err.find("at 40: a chain holds at most 8 filters"), std::string::npos) << many.err;
  EXPECT_EQ(std::count(many.err.begin(), many.err.end(), '\n'), 1) << many.err;
}

// The grammar's "" is the empty chain: --vf "" must not silently run the default kmeans.
TEST(ChainOptions, EmptyVfIsNoFilterOrRefused) {
  const Parsed r = parse({"--vf", ""});
  if (!r.run) {
    EXPECT_EQ(r.code, kExitUsage) << r.err;
  } else {
    EXPECT_TRUE(r.o.process.chain.empty()) << "--vf '' gave " << describe(r);
  }
}

TEST(ChainOptions, VfWithModeIsRefused) {
  for (std::vector<const char*> args : {std::vector<const char*>{"--vf", "blur", "--mode", "kmeans"},
                                        {"--mode", "blur", "--vf", "blur"}}) {
    const Parsed r = parse(args);
    EXPECT_FALSE(r.run);
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "vidproc: --mode: --vf gives the chain; drop --mode (see --help)\n");
  }
}

TEST(ChainOptions, FilterHelpPrintsTheOptionsAndExitsZero) {
  Parsed r = parse({"--vf", "kmeans=help"});
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_EQ(r.err, "");
  for (int i = 0; i < kKmeansFilter.optionCount; ++i)
    EXPECT_NE(r.out.find(std::string("  ") + kKmeansFilter.option(i).name + " <"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("k <integer> auto|1..32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default 8"), std::string::npos) << r.out;
  r = parse({"--vf", "help"});
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.code, kExitOk);
  for (const FilterInfo* f : filterRegistry()) EXPECT_NE(r.out.find(std::string("  ") + f->name + ": "), std::string::npos);
  r = parse({"--vf", "sharpen=help"});
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.code, kExitUsage);
}

TEST(ChainOptions, ShorthandsBuildAOneFilterChain) {
  Parsed r = parse({"-k", "6"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=6");  // --mode's default is kmeans
  r = parse({"--mode", "kmeans", "--clusters", "5", "--iterations", "7", "--epsilon", "0.5", "--init", "uniform",
             "--seed", "9", "--no-warm"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=5:iterations=7:epsilon=0.5:init=uniform:warm=0:seed=9");
  r = parse({"--mode", "blur", "-r", "7", "--passes", "2", "--border", "wrap", "-k", "3"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "blur=r=7:passes=2:border=wrap");  // -k is kept for kmeans, not in the chain
  EXPECT_EQ(defaultElement(r.o, kKmeansFilter).intValue(kmeans_option::K), 3);
  r = parse({"--mode", "none", "-k", "3"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_TRUE(r.o.process.chain.empty());
  r = parse({"--mode", "median"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "median");
  for (std::vector<const char*> bad : {std::vector<const char*>{"-k", "0"}, {"-k", "33"}, {"-r", "129"},
                                       {"--passes", "4"}, {"--border", "mirror"}, {"--epsilon", "-1"},
                                       {"--mode", "sharpen"}}) {
    const Parsed b = parse(bad);
    EXPECT_FALSE(b.run) << bad[0] << " " << bad[1];
    EXPECT_EQ(b.code, kExitUsage) << bad[0] << " " << bad[1];
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  }
  EXPECT_EQ(parse({"-k", "0"}).err, "vidproc: --clusters: k must be auto or 1..32 (see --help)\n");
  EXPECT_EQ(formatChain(parse({"-k", "auto"}).o.process.chain).rfind("kmeans=k=auto:", 0), 0u);
}

TEST(ChainOptions, ShorthandsSetTheDefaultsOfVfElements) {
  Parsed r = parse({"--vf", "kmeans", "-k", "6"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=6");
  r = parse({"--vf", "kmeans=k=4", "-k", "6"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=4");  // the chain's own value wins
  EXPECT_EQ(defaultElement(r.o, kKmeansFilter).intValue(kmeans_option::K), 6);  // kept for commands
  r = parse({"-r", "2", "--vf", "blur,kmeans,blur=r=4", "--no-warm", "--border", "reflect"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "blur=r=2:border=reflect,kmeans=warm=0,blur=r=4:border=reflect");
  // What a run's editor brings in later starts from the same values.
  ChainEditor editor([&o = r.o](const FilterInfo& f) { return defaultElement(o, f); }, r.o.presets);
  editor.start(r.o.process.chain);
  ProcessParams p = r.o.process;
  EXPECT_EQ(editor.apply(commandFrom("vf add median"), p), "chain: blur=r=2:border=reflect,kmeans=warm=0,blur=r=4:border=reflect,median");
  Parsed m = parse({"-k", "6", "-r", "2"});
  ASSERT_TRUE(m.run) << m.err;
  ChainEditor fromMode([&o = m.o](const FilterInfo& f) { return defaultElement(o, f); }, m.o.presets);
  fromMode.start(m.o.process.chain);
  p = m.o.process;
  EXPECT_EQ(fromMode.apply(commandFrom("mode blur"), p), "chain: blur=r=2");
}

TEST(ChainOptions, ConfigVfAndPresets) {
  Options o;
  applyConfigText("vf = \"blur=r=2\"\n[presets]\nzz = \"kmeans=k=3\"\naa = \"none\"\nmm = \"blur,median\"\n", o);
  EXPECT_EQ(describeChain(o.process.chain), "blur=r=2");
  ASSERT_EQ(o.presets.size(), 3u);
  EXPECT_EQ(o.presets[0].name, "zz");  // the file's order, not the names'
  EXPECT_EQ(o.presets[1].name, "aa");
  EXPECT_EQ(o.presets[2].name, "mm");
  EXPECT_EQ(o.presets[2].chain, "blur,median");
  // The editor cycles them in that order.
  ChainEditor editor(nullptr, o.presets);
  editor.start(o.process.chain);
  ProcessParams p = o.process;
  EXPECT_EQ(editor.apply(commandFrom("preset cycle"), p), "preset zz: kmeans=k=3");
  EXPECT_EQ(editor.apply(commandFrom("preset cycle"), p), "preset aa: none");
  EXPECT_EQ(editor.apply(commandFrom("preset cycle"), p), "preset mm: blur=r=2,median");

  Options defaults;
  EXPECT_EQ(defaults.presets.size(), 3u);  // without [presets]: kmeans, blur, none
  Options bad;
  try {
    applyConfigText("[presets]\ngood = \"blur\"\nbad = \"kmeans=k=99\"\n", bad);
    ADD_FAILURE() << "a bad preset was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("presets.bad"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("k must be auto or 1..32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(applyConfigText("[presets]\nbad = 3\n", bad), std::runtime_error);
  EXPECT_THROW(applyConfigText("vf = \"blur=q=1\"\n", bad), std::runtime_error);
}

TEST(ChainOptions, ConfigFileAndCommandLine) {
  const std::string dir = ::testing::TempDir();
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = dir + name;
    std::ofstream(path) << text;
    return path;
  };
  const std::string vf = write("vp_chain_vf.toml", "vf = \"blur=r=2\"\nclusters = 5\n");
  // The command line's --mode wins over the config's vf; its --vf over the config's mode.
  Parsed r = parse({"--config", vf.c_str(), "--mode", "kmeans"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=5");
  r = parse({"--config", vf.c_str()});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "blur=r=2");
  r = parse({"--config", vf.c_str(), "--vf", "median"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "median");
  const std::string mode = write("vp_chain_mode.toml", "mode = \"blur\"\n");
  r = parse({"--config", mode.c_str(), "--vf", "kmeans=k=3"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(describe(r), "kmeans=k=3");
  // A bad preset is a usage error naming it, in one line.
  const std::string bad = write("vp_chain_bad_preset.toml", "[presets]\nfine = \"blur\"\nbroken = \"blur=r=3:q=1\"\n");
  r = parse({"--config", bad.c_str()});
  EXPECT_FALSE(r.run);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("presets.broken"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at 9: unknown option 'q' of blur"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const std::string presets = write("vp_chain_presets.toml", "[presets]\nb = \"blur=r=1\"\na = \"kmeans\"\n");
  r = parse({"--config", presets.c_str(), "-k", "4"});
  ASSERT_TRUE(r.run) << r.err;
  ASSERT_EQ(r.o.presets.size(), 2u);
  EXPECT_EQ(r.o.presets[0].name, "b");
  EXPECT_EQ(r.o.presets[1].name, "a");
}

TEST(ChainOptions, CompareSplitAndOutputView) {
  Parsed r = parse({});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(r.o.process.compare, CompareMode::Off);
  EXPECT_FLOAT_EQ(r.o.process.split, 0.5f);
  EXPECT_EQ(r.o.outputView, "processed");
  r = parse({"--compare", "split", "--split", "25", "--output-view", "shown"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(r.o.process.compare, CompareMode::Split);
  EXPECT_FLOAT_EQ(r.o.process.split, 0.25f);
  EXPECT_EQ(r.o.outputView, "shown");
  r = parse({"--compare", "side", "--split", "0"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(r.o.process.compare, CompareMode::Side);
  EXPECT_FLOAT_EQ(r.o.process.split, 0.f);
  r = parse({"--compare", "off", "--split", "100", "--output-view", "processed"});
  ASSERT_TRUE(r.run) << r.err;
  EXPECT_EQ(r.o.process.compare, CompareMode::Off);
  EXPECT_FLOAT_EQ(r.o.process.split, 1.f);
  for (std::vector<const char*> bad : {std::vector<const char*>{"--compare", "up"}, {"--split", "101"},
                                       {"--split", "-1"}, {"--split", "x"}, {"--output-view", "both"}}) {
    const Parsed b = parse(bad);
    EXPECT_FALSE(b.run) << bad[0] << " " << bad[1];
    EXPECT_EQ(b.code, kExitUsage) << bad[0] << " " << bad[1];
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  }
  Options o;
  applyConfigText("compare = \"side\"\nsplit = 40\noutput-view = \"shown\"\n", o);
  EXPECT_EQ(o.process.compare, CompareMode::Side);
  EXPECT_FLOAT_EQ(o.process.split, 0.4f);
  EXPECT_EQ(o.outputView, "shown");
}


}  // namespace
}  // namespace vp
