#include "app/player/stats.h"
#include "gpu/filters/chain.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace vp {
namespace {

TEST(TimeStats, MeanMaxAndPercentiles) {
  TimeStats s;
  for (int i = 1; i <= 1000; ++i) s.add(i * 0.01);  // 0.01 .. 10 ms
  s.add(-1);                                         // stage did not run: ignored
  EXPECT_EQ(s.count(), 1000);
  EXPECT_NEAR(s.meanMs(), 5.005, 1e-9);
  EXPECT_DOUBLE_EQ(s.maxMs(), 10.0);
  EXPECT_NEAR(s.percentileMs(0.5), 5.0, 5.0 * 0.012);
  EXPECT_NEAR(s.percentileMs(0.99), 9.9, 9.9 * 0.012);
  EXPECT_DOUBLE_EQ(s.lastMs(), 10.0);
}

TEST(TimeStats, EmptyIsZero) {
  TimeStats s;
  EXPECT_EQ(s.percentileMs(0.5), 0);
  EXPECT_EQ(s.meanMs(), 0);
}

TEST(RunStats, JsonHasCountersStagesAndTheChain) {
  RunStats r;
  r.backend = "cpu";
  r.device = "CPU";
  r.input = "clip.mp4";
  r.framesIn = 3;
  r.wallSeconds = 0.5;
  OutputFrame f;
  f.params.chain = parseChain("blur=r=7:passes=2,kmeans=k=6,blur=r=1");
  f.params.chain[2].setEnabled(false);
  f.times[Stage::Convert] = 0.5f;
  f.chain[0].ms = 1.5f;
  f.chain[1].ms = 2.5f;
  f.chain[1].set("iterations", 4);
  for (int i = 0; i < 3; ++i) r.addFrame(f);
  f.chain[1].set("iterations", 8);
  r.addFrame(f);
  nlohmann::json j = nlohmann::json::parse(statsJson(r));
  EXPECT_EQ(j["frames"]["processed"], 4);
  EXPECT_EQ(j["frames"]["in"], 3);
  EXPECT_DOUBLE_EQ(j["fps"].get<double>(), 8.0);
  EXPECT_EQ(j["params"]["vf"], formatChain(f.params.chain));
  EXPECT_EQ(j["params"]["compare"], "off");
  ASSERT_EQ(j["chain"].size(), 3u);
  const nlohmann::json& blur = j["chain"][0];
  EXPECT_EQ(blur["label"], "blur#1");
  EXPECT_EQ(blur["options"]["r"], 7);
  EXPECT_EQ(blur["options"]["passes"], 2);
  EXPECT_EQ(blur["options"]["border"], "replicate");
  EXPECT_NEAR(blur["ms"]["mean_ms"].get<double>(), 1.5, 1e-6);
  EXPECT_EQ(blur["ms"]["frames"], 4);
  const nlohmann::json& kmeans = j["chain"][1];
  EXPECT_EQ(kmeans["label"], "kmeans#2");
  EXPECT_EQ(kmeans["options"]["k"], 6);
  EXPECT_NEAR(kmeans["ms"]["mean_ms"].get<double>(), 2.5, 1e-6);
  EXPECT_DOUBLE_EQ(kmeans["metrics"]["iterations"]["mean"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(kmeans["metrics"]["iterations"]["max"].get<double>(), 8.0);
  EXPECT_FALSE(j["chain"][2]["enabled"].get<bool>());
  EXPECT_FALSE(j["chain"][2].contains("ms"));  // toggled off: it never ran
  EXPECT_FALSE(j["stages_ms"].contains("blur"));  // elements are not stages
  EXPECT_TRUE(j["stages_ms"].contains("convert"));
  const std::string summary = formatSummary(r);
  EXPECT_NE(summary.find("blur#1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("kmeans#2   4 frames, mean iterations 5.00"), std::string::npos) << summary;
  EXPECT_LT(summary.find("convert"), summary.find("blur#1")) << "elements come after convert";
}

}  // namespace
}  // namespace vp
