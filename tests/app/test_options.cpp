#include "app/options.h"
#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace vp {
namespace {

bool parse(std::vector<const char*> args, Options& o, int& code) {
  args.insert(args.begin(), "vidproc");
  return parseOptions(int(args.size()), args.data(), o, code);
}

TEST(Options, DefaultsWithoutArguments) {
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({}, o, code));
  EXPECT_TRUE(o.input.empty());
  EXPECT_EQ(formatChain(o.process.chain), formatChain(parseChain("kmeans")));  // one kmeans, its defaults
  const KmeansParams k = kmeansParamsOf(o.process.chain[0]);
  EXPECT_EQ(k.k, 8);
  EXPECT_EQ(k.maxIterations, 20);
  EXPECT_EQ(k.init, KmeansInit::KmeansPlusPlus);
  EXPECT_EQ(blurParamsOf(defaultElement(o, kBlurFilter)).border, BorderMode::Replicate);
  EXPECT_EQ(o.backend, Backend::Auto);
  EXPECT_EQ(o.streams, 3);
  EXPECT_TRUE(o.process.chain[0].boolValue(kmeans_option::Warm));
  EXPECT_EQ(o.process.compare, CompareMode::Off);
  EXPECT_TRUE(o.vsync);
}

TEST(Options, CommandLineValues) {
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({"clip.mp4", "--mode", "blur", "-k", "5", "-r", "15", "--passes", "3", "--border", "wrap",
                     "--backend", "cpu", "--streams", "2", "--frames", "10", "-o", "out.mkv", "-y", "--headless",
                     "--init", "uniform", "--no-warm"},
                    o, code));
  EXPECT_EQ(o.input, "clip.mp4");
  ASSERT_EQ(o.process.chain.size(), 1);  // --mode blur: a one-blur chain, the shorthands its values
  const BlurParams blur = blurParamsOf(o.process.chain[0]);
  EXPECT_EQ(blur.radius, 15);
  EXPECT_EQ(blur.passes, 3);
  EXPECT_EQ(blur.border, BorderMode::Wrap);
  const FilterElement kmeans = defaultElement(o, kKmeansFilter);  // what a kmeans added later starts with
  EXPECT_EQ(kmeans.intValue(kmeans_option::K), 5);
  EXPECT_EQ(o.backend, Backend::Cpu);
  EXPECT_EQ(o.streams, 2);
  EXPECT_EQ(o.frames, 10);
  EXPECT_EQ(o.output, "out.mkv");
  EXPECT_TRUE(o.overwrite);
  EXPECT_TRUE(o.headless);
  EXPECT_EQ(kmeansParamsOf(kmeans).init, KmeansInit::Uniform);
  EXPECT_FALSE(kmeans.boolValue(kmeans_option::Warm));
}

TEST(Options, OutOfRangeAndUnknownAreUsageErrors) {
  for (std::vector<const char*> bad : {std::vector<const char*>{"-k", "33"}, {"-k", "0"}, {"-r", "129"},
                                       {"--passes", "4"}, {"--mode", "sharpen"}, {"--border", "mirror"},
                                       {"--bogus"}, {"--streams", "0"}}) {
    Options o;
    int code = -1;
    EXPECT_FALSE(parse(bad, o, code)) << bad[0];
    EXPECT_EQ(code, kExitUsage) << bad[0];
  }
}

TEST(Options, WebcamShorthand) {
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({"--webcam"}, o, code));
  EXPECT_EQ(o.input, "/dev/video0");
  EXPECT_EQ(o.format, "v4l2");
  Options o2;
  ASSERT_TRUE(parse({"--webcam", "/dev/video2", "--video-size", "640x480"}, o2, code));
  EXPECT_EQ(o2.input, "/dev/video2");
  EXPECT_EQ(o2.videoSize, "640x480");
}

TEST(Options, ConfigAppliesAndCommandLineWins) {
  const std::string path = ::testing::TempDir() + "vidproc_test_config.toml";
  {
    std::ofstream f(path);
    f << "mode = \"blur\"\nradius = 9\nclusters = 4\nloop = true\n[keys]\nquit = \"ctrl+q\"\n";
  }
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({"--config", path.c_str(), "-r", "3"}, o, code));
  ASSERT_EQ(o.process.chain.size(), 1);
  EXPECT_EQ(o.process.chain[0].name(), "blur");
  EXPECT_EQ(blurParamsOf(o.process.chain[0]).radius, 3);  // command line wins
  EXPECT_EQ(defaultElement(o, kKmeansFilter).intValue(kmeans_option::K), 4);
  EXPECT_TRUE(o.loop);
  EXPECT_EQ(o.keys["quit"], "ctrl+q");
}

TEST(Options, UnknownConfigKeyIsNamed) {
  Options o;
  try {
    applyConfigText("clusters = 4\ncluster = 5\n", o);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'cluster'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(applyConfigText("clusters = 40\n", o), std::runtime_error);
  EXPECT_THROW(applyConfigText("clusters = \n", o), std::runtime_error);
}

// config/default.toml documents the defaults: applying it must change nothing.
TEST(Options, DefaultTomlMatchesBuiltInDefaults) {
  std::ifstream f(VP_SOURCE_DIR "/config/default.toml");
  ASSERT_TRUE(f) << "config/default.toml missing";
  std::stringstream text;
  text << f.rdbuf();
  Options fromFile;
  applyConfigText(text.str(), fromFile);
  Options builtIn;
  EXPECT_EQ(formatChain(fromFile.process.chain), formatChain(builtIn.process.chain));
  ASSERT_EQ(fromFile.filterDefaults.size(), builtIn.filterDefaults.size());
  for (size_t i = 0; i < builtIn.filterDefaults.size(); ++i)
    EXPECT_EQ(formatElement(fromFile.filterDefaults[i]), formatElement(builtIn.filterDefaults[i]));
  EXPECT_EQ(fromFile.process.compare, builtIn.process.compare);
  EXPECT_EQ(fromFile.process.split, builtIn.process.split);
  EXPECT_EQ(fromFile.outputView, builtIn.outputView);
  ASSERT_EQ(fromFile.presets.size(), builtIn.presets.size());
  for (size_t i = 0; i < builtIn.presets.size(); ++i) {
    EXPECT_EQ(fromFile.presets[i].name, builtIn.presets[i].name);
    EXPECT_EQ(fromFile.presets[i].chain, builtIn.presets[i].chain);
  }
  EXPECT_EQ(fromFile.backend, builtIn.backend);
  EXPECT_EQ(fromFile.streams, builtIn.streams);
  EXPECT_EQ(fromFile.loop, builtIn.loop);
  EXPECT_EQ(fromFile.frames, builtIn.frames);
  EXPECT_EQ(fromFile.vsync, builtIn.vsync);
  EXPECT_EQ(fromFile.sync, builtIn.sync);
  EXPECT_EQ(fromFile.screenshotDir, builtIn.screenshotDir);
  EXPECT_EQ(fromFile.logLevel, builtIn.logLevel);
  EXPECT_EQ(fromFile.control, builtIn.control);
  EXPECT_FALSE(fromFile.keys.empty());
}

TEST(Options, ControlChannelFromCommandLineAndConfig) {
  Options o;
  int code = -1;
  EXPECT_TRUE(o.control.empty());
  ASSERT_TRUE(parse({"--control", "-"}, o, code));
  EXPECT_EQ(o.control, "-");
  Options fromConfig;
  applyConfigText("control = \"/tmp/vidproc.ctl\"\n", fromConfig);
  EXPECT_EQ(fromConfig.control, "/tmp/vidproc.ctl");
}

}  // namespace
}  // namespace vp
