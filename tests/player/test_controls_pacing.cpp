#include "app/controls.h"
#include "app/pacing.h"

#include <gtest/gtest.h>

namespace vp {
namespace {

TEST(Controls, ClusterBounds) {
  ProcessParams p;
  p.kmeans.k = 3;
  EXPECT_TRUE(applyParamAction(Action::KDec, p));
  EXPECT_EQ(p.kmeans.k, 2);
  EXPECT_FALSE(applyParamAction(Action::KDec, p));  // 2 is the floor
  EXPECT_EQ(p.kmeans.k, 2);
  p.kmeans.k = 31;
  EXPECT_TRUE(applyParamAction(Action::KInc, p));
  EXPECT_FALSE(applyParamAction(Action::KInc, p));
  EXPECT_EQ(p.kmeans.k, 32);
}

TEST(Controls, RadiusBoundsAndModeParameter) {
  ProcessParams p;
  p.blur.radius = 0;
  EXPECT_FALSE(applyParamAction(Action::RadiusDec, p));
  p.blur.radius = 100;
  EXPECT_FALSE(applyParamAction(Action::RadiusInc, p));
  p.mode = Mode::Blur;
  EXPECT_TRUE(applyParamAction(Action::ParamDec, p));
  EXPECT_EQ(p.blur.radius, 99);
  p.mode = Mode::Kmeans;
  p.kmeans.k = 8;
  EXPECT_TRUE(applyParamAction(Action::ParamInc, p));
  EXPECT_EQ(p.kmeans.k, 9);
  p.mode = Mode::None;
  EXPECT_FALSE(applyParamAction(Action::ParamInc, p));
}

TEST(Controls, CyclesAndModes) {
  ProcessParams p;
  p.blur.passes = 3;
  applyParamAction(Action::CyclePasses, p);
  EXPECT_EQ(p.blur.passes, 1);
  p.blur.border = BorderMode::Wrap;
  applyParamAction(Action::CycleBorder, p);
  EXPECT_EQ(p.blur.border, BorderMode::Zero);
  p.mode = Mode::None;
  applyParamAction(Action::CycleMode, p);
  EXPECT_EQ(p.mode, Mode::Kmeans);
  EXPECT_TRUE(applyParamAction(Action::ModeBlur, p));
  EXPECT_FALSE(applyParamAction(Action::ModeBlur, p));
  EXPECT_EQ(p.mode, Mode::Blur);
  EXPECT_FALSE(applyParamAction(Action::Quit, p));
  EXPECT_EQ(describeParams(p).rfind("blur r=", 0), 0u);
}

TEST(Pacing, PresentsOnTimeWaitsEarlyDropsLate) {
  PlaybackClock c(true, 50'000);
  EXPECT_EQ(c.decide(0, 1'000'000, false), PaceDecision::Present);  // anchors
  EXPECT_EQ(c.decide(40'000, 1'020'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.untilDueUs(40'000, 1'020'000), 20'000);
  EXPECT_EQ(c.decide(40'000, 1'040'000, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(80'000, 1'200'000, false), PaceDecision::Drop);    // 120 ms late
  EXPECT_EQ(c.decide(120'000, 1'150'000, false), PaceDecision::Present);  // 30 ms late: within tolerance
  EXPECT_EQ(c.decide(160'000, 1'300'000, true), PaceDecision::Present);  // late, nothing newer: shown
  EXPECT_EQ(c.decide(200'000, 1'320'000, false), PaceDecision::Wait);  // the clock slipped to it
}

TEST(Pacing, ReanchorsAfterPauseAndOnJumps) {
  PlaybackClock c(true);
  c.decide(0, 0, false);
  c.reanchor();
  EXPECT_EQ(c.decide(5'000'000, 60'000'000, false), PaceDecision::Present);  // resumed much later
  EXPECT_EQ(c.decide(5'040'000, 60'010'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.decide(100'000'000, 60'010'000, false), PaceDecision::Present);  // far jump re-anchors
}

TEST(Pacing, NoSyncPresentsEverything) {
  PlaybackClock c(false);
  EXPECT_EQ(c.decide(1'000'000, 0, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(0, 0, false), PaceDecision::Present);
}

}  // namespace
}  // namespace vp
