// HUD data structures and letterbox geometry: pure functions, no display needed.
#include <gtest/gtest.h>

#include "app/player/hud_data.h"
#include "app/ui/gl_video.h"

#include <string>
#include <vector>

namespace vp {
namespace {

TEST(FloatRing, FillsThenWraps) {
  FloatRing ring(4);
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_EQ(ring.capacity(), 4u);
  for (float v : {1.f, 2.f, 3.f}) ring.push(v);
  EXPECT_EQ(ring.size(), 3u);
  EXPECT_EQ(ring.offset(), 0);
  EXPECT_EQ(ring.at(0), 1.f);
  EXPECT_EQ(ring.at(2), 3.f);
  for (float v : {4.f, 5.f, 6.f}) ring.push(v);  // holds 3 4 5 6
  EXPECT_EQ(ring.size(), 4u);
  EXPECT_EQ(ring.at(0), 3.f);
  EXPECT_EQ(ring.at(3), 6.f);
  // PlotLines reads data()[(offset + i) % capacity]: oldest first.
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ring.data()[(static_cast<size_t>(ring.offset()) + i) % 4], ring.at(i));
  }
  ring.clear();
  EXPECT_EQ(ring.size(), 0u);
}

TEST(StageStats, LastAvgMaxOverHistory) {
  StageStats s;
  s.record(1.f);
  s.record(3.f);
  EXPECT_FLOAT_EQ(s.lastMs, 3.f);
  EXPECT_FLOAT_EQ(s.avgMs, 2.f);
  EXPECT_FLOAT_EQ(s.maxMs, 3.f);
  // A spike leaves the window after kHistory more samples.
  s.record(50.f);
  for (size_t i = 0; i < StageStats::kHistory; ++i) s.record(0.5f);
  EXPECT_FLOAT_EQ(s.maxMs, 0.5f);
  EXPECT_FLOAT_EQ(s.avgMs, 0.5f);
  EXPECT_EQ(s.historyMs.size(), StageStats::kHistory);
}

TEST(HudData, NamesTheStages) {
  HudData d;
  EXPECT_EQ(d.stage(Stage::Upload).name, "upload");
  EXPECT_EQ(d.stage(Stage::Convert).name, "convert");
  EXPECT_EQ(d.stage(Stage::Download).name, "download");
  EXPECT_EQ(d.stage(Stage::Present).name, "present");
  EXPECT_EQ(d.stage(Stage::Encode).name, "encode");
  d.stage(Stage::Download).record(2.f);
  EXPECT_FLOAT_EQ(d.stages[2].lastMs, 2.f);
}

// Chain elements get their own timing rows, by label, between convert and download.
TEST(HudData, ElementRowsInPipelineOrder) {
  HudData d;
  d.element("blur#1").record(1.f);
  d.element("kmeans#2").record(2.f);
  d.element("blur#1").record(3.f);  // found again, not added
  ASSERT_EQ(d.elements.size(), 2u);
  EXPECT_FLOAT_EQ(d.element("blur#1").lastMs, 3.f);
  std::vector<std::string> names;
  for (const StageStats* row : d.timingRows()) names.push_back(row->name);
  // The latency (arrival -> shown) spans them all: the last row.
  EXPECT_EQ(names, (std::vector<std::string>{"upload", "convert", "blur#1", "kmeans#2", "download", "present",
                                             "encode", "latency"}));
}

TEST(FormatClock, MinutesAndHours) {
  EXPECT_EQ(formatClock(0), "00:00.0");
  EXPECT_EQ(formatClock(65.25), "01:05.2");
  EXPECT_EQ(formatClock(3723.5), "1:02:03.5");
  EXPECT_EQ(formatClock(-3), "00:00.0");
}

TEST(Letterbox, BarsKeepTheAspectRatio) {
  // 4:3 frame in a 16:9 view: bars left and right.
  ViewportRect r = letterbox(800, 600, 1280, 720);
  EXPECT_EQ(r.width, 960);
  EXPECT_EQ(r.height, 720);
  EXPECT_EQ(r.x, 160);
  EXPECT_EQ(r.y, 0);
  // 16:9 frame in a 4:3 view: bars top and bottom.
  r = letterbox(1920, 1080, 800, 600);
  EXPECT_EQ(r.width, 800);
  EXPECT_EQ(r.height, 450);
  EXPECT_EQ(r.x, 0);
  EXPECT_EQ(r.y, 75);
  // Same aspect: fills exactly.
  r = letterbox(1920, 1080, 1280, 720);
  EXPECT_EQ(r.x, 0);
  EXPECT_EQ(r.y, 0);
  EXPECT_EQ(r.width, 1280);
  EXPECT_EQ(r.height, 720);
  // Odd sizes stay inside the view and centred.
  r = letterbox(1921, 1081, 1001, 999);
  EXPECT_LE(r.x + r.width, 1001);
  EXPECT_LE(r.y + r.height, 999);
  EXPECT_EQ(r.width, 1001);
  EXPECT_NEAR(static_cast<double>(r.width) / r.height, 1921.0 / 1081.0, 0.01);
  // Degenerate input gives an empty rectangle; a 1x1 frame still gets a pixel.
  EXPECT_EQ(letterbox(0, 10, 100, 100).width, 0);
  EXPECT_EQ(letterbox(10, 10, 0, 100).width, 0);
  r = letterbox(1000, 1, 10, 10);
  EXPECT_EQ(r.height, 1);
}

}  // namespace
}  // namespace vp
