#include "gpu/filters/kmeans/kmeans_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace vp {
namespace {

KmeansParams withK(int k, KmeansInit init = KmeansInit::KmeansPlusPlus) {
  KmeansParams p;
  p.k = k;
  p.init = init;
  return p;
}

TEST(KmeansSchedule, FirstFrameInitialisesThenWarmStarts) {
  KmeansSchedule s;
  bool reinit = false;
  EXPECT_EQ(s.next(withK(8), true, reinit).init, KmeansInit::KmeansPlusPlus);
  EXPECT_TRUE(reinit);
  s.observe(1000, 100, true);
  EXPECT_EQ(s.next(withK(8), true, reinit).init, KmeansInit::Warm);
  EXPECT_FALSE(reinit);
}

TEST(KmeansSchedule, ChangeOfKReinitialises) {
  KmeansSchedule s;
  bool reinit = false;
  s.next(withK(8), true, reinit);
  s.next(withK(8), true, reinit);
  EXPECT_EQ(s.next(withK(9), true, reinit).init, KmeansInit::KmeansPlusPlus);
  EXPECT_TRUE(reinit);
  s.next(withK(9), true, reinit);
  EXPECT_FALSE(reinit);
}

// Colour-only frames leave the centres' positions stale: turning spatial K-means on starts
// afresh; changing its weight, or turning it off, warm-starts.
TEST(KmeansSchedule, TurningSpatialOnReinitialises) {
  KmeansSchedule s;
  bool reinit = false;
  KmeansParams p = withK(8);
  s.next(p, true, reinit);
  s.next(p, true, reinit);
  p.spatial = 1.f;
  EXPECT_EQ(s.next(p, true, reinit).init, KmeansInit::KmeansPlusPlus);
  EXPECT_TRUE(reinit);
  p.spatial = 2.f;
  s.next(p, true, reinit);
  EXPECT_FALSE(reinit);
  p.spatial = 0.f;
  s.next(p, true, reinit);
  EXPECT_FALSE(reinit);
}

// Frame n's decision reads frames up to n - 2 (kDecisionLag): a cut in frame n
// re-initialises frame n + 2, and frame n + 1 still warm-starts.
TEST(KmeansSchedule, SceneCutReinitialisesTheFrameAfterNext) {
  static_assert(KmeansSchedule::kDecisionLag == 2, "this test spells out a lag of 2");
  KmeansSchedule s;
  bool reinit = false;
  s.next(withK(8), true, reinit);  // frame 0
  s.observe(10'000, 1000, true);   // 10 per pixel
  s.next(withK(8), true, reinit);  // frame 1
  s.observe(12'000, 1000, false);  // ordinary motion
  s.next(withK(8), true, reinit);  // frame 2
  EXPECT_FALSE(reinit);
  s.observe(11'000, 1000, false);
  s.next(withK(8), true, reinit);  // frame 3
  s.observe(80'000, 1000, false);  // frame 3: 80 per pixel, a cut
  s.next(withK(8), true, reinit);  // frame 4: reads frames up to 2
  EXPECT_FALSE(reinit);
  s.observe(70'000, 1000, false);
  EXPECT_EQ(s.next(withK(8), true, reinit).init, KmeansInit::KmeansPlusPlus);  // frame 5: sees frame 3
  EXPECT_TRUE(reinit);
  s.observe(9'000, 1000, true);
  s.next(withK(8), true, reinit);  // frame 6: frame 4 at 70 is no cut against 80
  EXPECT_FALSE(reinit);
}

// The CPU twin feeds each frame as soon as it ends; the GPU feeds frame n - 2 just before
// deciding frame n. Both give every frame the same decision.
TEST(KmeansSchedule, FeedingLateOrEarlyDecidesTheSame) {
  const uint64_t costs[] = {10'000, 11'000, 80'000, 9'000, 70'000, 75'000, 8'000, 90'000, 9'500, 9'000};
  const int n = int(sizeof costs / sizeof costs[0]);
  KmeansSchedule early, late;
  std::vector<bool> earlyReinit, lateReinit;
  for (int i = 0; i < n; ++i) {
    bool r = false;
    early.next(withK(8), true, r);
    earlyReinit.push_back(r);
    early.observe(costs[i], 1000, r);
  }
  for (int i = 0; i < n; ++i) {
    if (i >= KmeansSchedule::kDecisionLag) late.observe(costs[i - 2], 1000, lateReinit[size_t(i - 2)]);
    bool r = false;
    late.next(withK(8), true, r);
    lateReinit.push_back(r);
  }
  EXPECT_EQ(earlyReinit, lateReinit);
  // Frame 0, and frame 4 for the cut in frame 2 (the later jumps are against a raised average).
  EXPECT_EQ(earlyReinit, (std::vector<bool>{true, false, false, false, true, false, false, false, false, false}));
}

TEST(KmeansSchedule, NoWarmUsesTheRequestedInitEveryFrame) {
  KmeansSchedule s;
  bool reinit = false;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s.next(withK(4, KmeansInit::Uniform), false, reinit).init, KmeansInit::Uniform);
    EXPECT_TRUE(reinit);
  }
}

TEST(KmeansSchedule, WarmInitWarmsFromTheSecondFrameOn) {
  KmeansSchedule s;
  bool reinit = false;
  EXPECT_EQ(s.next(withK(4, KmeansInit::Warm), false, reinit).init, KmeansInit::KmeansPlusPlus);  // nothing yet
  EXPECT_EQ(s.next(withK(4, KmeansInit::Warm), false, reinit).init, KmeansInit::Warm);
  s.reset();
  EXPECT_EQ(s.next(withK(4, KmeansInit::Warm), true, reinit).init, KmeansInit::KmeansPlusPlus);
}

}  // namespace
}  // namespace vp
