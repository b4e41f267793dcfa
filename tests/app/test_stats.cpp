#include "app/player/stats.h"

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

TEST(RunStats, JsonHasCountersStagesAndParams) {
  RunStats r;
  r.backend = "cpu";
  r.device = "CPU";
  r.input = "clip.mp4";
  r.framesIn = 3;
  r.wallSeconds = 0.5;
  OutputFrame f;
  f.params.mode = Mode::Blur;
  f.params.blur.radius = 7;
  f.params.blur.passes = 2;
  f.params.kmeans.k = 6;
  f.times[Stage::Convert] = 0.5f;
  f.times[Stage::Blur] = 1.5f;
  for (int i = 0; i < 3; ++i) r.addFrame(f);
  nlohmann::json j = nlohmann::json::parse(statsJson(r));
  EXPECT_EQ(j["frames"]["processed"], 3);
  EXPECT_EQ(j["frames"]["in"], 3);
  EXPECT_DOUBLE_EQ(j["fps"].get<double>(), 6.0);
  EXPECT_EQ(j["params"]["mode"], "blur");
  EXPECT_EQ(j["params"]["k"], 6);
  EXPECT_EQ(j["params"]["radius"], 7);
  EXPECT_EQ(j["params"]["passes"], 2);
  EXPECT_NEAR(j["stages_ms"]["blur"]["mean_ms"].get<double>(), 1.5, 1e-6);
  EXPECT_FALSE(j["stages_ms"].contains("kmeans"));
  EXPECT_NE(formatSummary(r).find("blur"), std::string::npos);
}

}  // namespace
}  // namespace vp
