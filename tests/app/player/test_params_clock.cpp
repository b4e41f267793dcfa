// What the parameter commands do on the chain (bounds, cycles, modes) and the presentation clock.
#include "app/input/chain_editor.h"
#include "app/input/commands.h"
#include "app/player/clock.h"
#include "support/chains.h"

#include <gtest/gtest.h>

namespace vp {
namespace {

// Applies `text` through a ChainEditor; true when it changed something.
bool apply(ChainEditor& editor, const char* text, ProcessParams& p) { return editor.apply(commandFrom(text), p).has_value(); }

int kOf(const ProcessParams& p) { return test::firstOf(p, kKmeansFilter)->intValue(kmeans_option::K); }
BlurParams blurOf(const ProcessParams& p) { return blurParamsOf(*test::firstOf(p, kBlurFilter)); }

TEST(Controls, ClusterBounds) {
  ChainEditor editor;
  ProcessParams p = test::kmeansParams(KmeansParams{3});
  EXPECT_TRUE(apply(editor, "k -1", p));
  EXPECT_EQ(kOf(p), 2);
  EXPECT_FALSE(apply(editor, "k -1", p));  // 2 is the floor
  EXPECT_EQ(kOf(p), 2);
  p = test::kmeansParams(KmeansParams{31});
  EXPECT_TRUE(apply(editor, "k +1", p));
  EXPECT_FALSE(apply(editor, "k +1", p));
  EXPECT_EQ(kOf(p), 32);
}

TEST(Controls, RadiusBoundsAndModeParameter) {
  ChainEditor editor;
  ProcessParams p = test::blurParams(BlurParams{0});
  EXPECT_FALSE(apply(editor, "radius -1", p));
  p = test::blurParams(BlurParams{kMaxBlurRadius});
  EXPECT_FALSE(apply(editor, "radius +1", p));
  EXPECT_TRUE(apply(editor, "param -1", p));  // the first element's main option: the radius
  EXPECT_EQ(blurOf(p).radius, kMaxBlurRadius - 1);
  p = test::kmeansParams(KmeansParams{8});
  EXPECT_TRUE(apply(editor, "param +1", p));
  EXPECT_EQ(kOf(p), 9);
  p.chain.clear();
  EXPECT_FALSE(apply(editor, "param +1", p));
}

TEST(Controls, CyclesAndModes) {
  ChainEditor editor;
  ProcessParams p = test::blurParams(BlurParams{5, 3, BorderMode::Wrap});
  apply(editor, "passes cycle", p);
  EXPECT_EQ(blurOf(p).passes, 1);
  apply(editor, "border cycle", p);
  EXPECT_EQ(blurOf(p).border, BorderMode::Zero);
  p.chain.clear();
  editor.start(p.chain);  // the preset "none"
  apply(editor, "mode cycle", p);  // the next preset: kmeans
  EXPECT_EQ(test::chainMode(p), "kmeans");
  EXPECT_TRUE(apply(editor, "mode blur", p));
  EXPECT_FALSE(apply(editor, "mode blur", p));
  EXPECT_EQ(test::chainMode(p), "blur");
  EXPECT_EQ(blurOf(p).passes, 1);  // the blur's values were remembered
  EXPECT_EQ(blurOf(p).border, BorderMode::Zero);
  EXPECT_FALSE(apply(editor, "quit", p));
  EXPECT_EQ(describeParams(p).rfind("blur=border=zero", 0), 0u) << describeParams(p);
}

// A pipeline slower than real time always has a newer frame waiting: late frames are
// dropped at most four in a row, then one is shown and the clock slips to it.
TEST(Pacing, ShowsALateFrameAfterFourDropsInARow) {
  FramePacer c(true, 50'000);
  EXPECT_EQ(c.decide(0, 0, 1'000'000, false), PaceDecision::Present);  // anchors
  int64_t now = 1'000'000;
  for (int i = 1; i <= 4; ++i) {
    now += 60'000;  // 60 ms a frame for 40 ms frames: ever later
    EXPECT_EQ(c.decide(i * 40'000, 0, now + 100'000, false), PaceDecision::Drop) << "frame " << i;
  }
  EXPECT_EQ(c.decide(5 * 40'000, 0, now + 160'000, false), PaceDecision::Present);  // the fifth is shown
  EXPECT_EQ(c.decide(6 * 40'000, 0, now + 170'000, false), PaceDecision::Wait);     // the clock slipped to it
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
