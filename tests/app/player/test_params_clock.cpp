// What the parameter commands do (bounds, cycles) and the presentation clock.
#include "app/input/commands.h"
#include "app/player/clock.h"

#include <gtest/gtest.h>

namespace vp {
namespace {

TEST(Controls, ClusterBounds) {
  ProcessParams p;
  p.kmeans.k = 3;
  EXPECT_TRUE(applyParams(commandFrom("k -1"), p));
  EXPECT_EQ(p.kmeans.k, 2);
  EXPECT_FALSE(applyParams(commandFrom("k -1"), p));  // 2 is the floor
  EXPECT_EQ(p.kmeans.k, 2);
  p.kmeans.k = 31;
  EXPECT_TRUE(applyParams(commandFrom("k +1"), p));
  EXPECT_FALSE(applyParams(commandFrom("k +1"), p));
  EXPECT_EQ(p.kmeans.k, 32);
}

TEST(Controls, RadiusBoundsAndModeParameter) {
  ProcessParams p;
  p.blur.radius = 0;
  EXPECT_FALSE(applyParams(commandFrom("radius -1"), p));
  p.blur.radius = 100;
  EXPECT_FALSE(applyParams(commandFrom("radius +1"), p));
  p.mode = Mode::Blur;
  EXPECT_TRUE(applyParams(commandFrom("param -1"), p));
  EXPECT_EQ(p.blur.radius, 99);
  p.mode = Mode::Kmeans;
  p.kmeans.k = 8;
  EXPECT_TRUE(applyParams(commandFrom("param +1"), p));
  EXPECT_EQ(p.kmeans.k, 9);
  p.mode = Mode::None;
  EXPECT_FALSE(applyParams(commandFrom("param +1"), p));
}

TEST(Controls, CyclesAndModes) {
  ProcessParams p;
  p.blur.passes = 3;
  applyParams(commandFrom("passes cycle"), p);
  EXPECT_EQ(p.blur.passes, 1);
  p.blur.border = BorderMode::Wrap;
  applyParams(commandFrom("border cycle"), p);
  EXPECT_EQ(p.blur.border, BorderMode::Zero);
  p.mode = Mode::None;
  applyParams(commandFrom("mode cycle"), p);
  EXPECT_EQ(p.mode, Mode::Kmeans);
  EXPECT_TRUE(applyParams(commandFrom("mode blur"), p));
  EXPECT_FALSE(applyParams(commandFrom("mode blur"), p));
  EXPECT_EQ(p.mode, Mode::Blur);
  EXPECT_FALSE(applyParams(commandFrom("quit"), p));
  EXPECT_EQ(describeParams(p).rfind("blur r=", 0), 0u);
}

TEST(Pacing, PresentsOnTimeWaitsEarlyDropsLate) {
  FramePacer c(true, 50'000);
  EXPECT_EQ(c.decide(0, 0, 1'000'000, false), PaceDecision::Present);  // anchors
  EXPECT_EQ(c.decide(40'000, 0, 1'020'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.untilDueUs(40'000, 1'020'000), 20'000);
  EXPECT_EQ(c.decide(40'000, 0, 1'040'000, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(80'000, 0, 1'200'000, false), PaceDecision::Drop);    // 120 ms late
  EXPECT_EQ(c.decide(120'000, 0, 1'150'000, false), PaceDecision::Present);  // 30 ms late: within tolerance
  EXPECT_EQ(c.decide(160'000, 0, 1'300'000, true), PaceDecision::Present);  // late, nothing newer: shown
  EXPECT_EQ(c.decide(200'000, 0, 1'320'000, false), PaceDecision::Wait);  // the clock slipped to it
}

TEST(Pacing, ReanchorsAfterPauseAndOnJumps) {
  FramePacer c(true);
  c.decide(0, 0, 0, false);
  c.reanchor();
  EXPECT_EQ(c.decide(5'000'000, 0, 60'000'000, false), PaceDecision::Present);  // resumed much later
  EXPECT_EQ(c.decide(5'040'000, 0, 60'010'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.decide(100'000'000, 0, 60'010'000, false), PaceDecision::Present);  // far jump re-anchors
}

TEST(Pacing, NoSyncPresentsEverything) {
  FramePacer c(false);
  EXPECT_EQ(c.decide(1'000'000, 0, 0, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(0, 0, 0, false), PaceDecision::Present);
}

}  // namespace
}  // namespace vp

namespace vp {
namespace {

TEST(Pacing, ANewSerialReanchors) {
  FramePacer c(true, 50'000);
  EXPECT_EQ(c.decide(0, 0, 1'000'000, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(40'000, 0, 1'020'000, false), PaceDecision::Wait);
  // After a seek (serial 1) the first frame is shown at once and anchors the clock.
  EXPECT_EQ(c.decide(9'000'000, 1, 1'030'000, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(9'040'000, 1, 1'040'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.untilDueUs(9'040'000, 1'040'000), 30'000);
}

TEST(Clock, RunsHoldsWhilePausedAndSetsAnew) {
  Clock c;
  EXPECT_FALSE(c.at(0));
  c.set(5'000'000, 3, 100);
  EXPECT_EQ(c.serial(), 3);
  EXPECT_EQ(*c.at(1'100), 5'001'000);
  c.setPaused(true, 1'100);
  EXPECT_EQ(*c.at(9'000'000), 5'001'000);  // held
  c.setPaused(false, 9'000'000);
  EXPECT_EQ(*c.at(9'000'500), 5'001'500);  // runs on from where it stopped
  c.invalidate();
  EXPECT_FALSE(c.at(9'000'500));
}

// An external master (audio) is read, never set, by the pacer.
TEST(Pacing, AnotherMasterTimesTheFrames) {
  Clock audio;
  FramePacer c(true, 50'000);
  c.setMaster(&audio);
  EXPECT_EQ(c.decide(0, 0, 0, false), PaceDecision::Present);  // no audio time yet: shown
  EXPECT_TRUE(c.videoClock().at(0));  // and the video clock times frames until audio plays
  EXPECT_EQ(c.decide(40'000, 0, 10'000, false), PaceDecision::Wait);
  audio.set(1'000'000, 0, 0);
  EXPECT_EQ(c.decide(1'040'000, 0, 10'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.decide(1'040'000, 0, 40'000, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(1'080'000, 0, 200'000, false), PaceDecision::Drop);  // 120 ms behind the audio
  EXPECT_EQ(*audio.at(0), 1'000'000);  // untouched
  // After a seek (serial 1) the audio clock still reads serial 0: the video clock re-anchors.
  EXPECT_EQ(c.decide(5'000'000, 1, 300'000, false), PaceDecision::Present);
  EXPECT_EQ(c.decide(5'040'000, 1, 310'000, false), PaceDecision::Wait);
  EXPECT_EQ(c.decide(5'040'000, 1, 341'000, false), PaceDecision::Present);
}

}  // namespace
}  // namespace vp
