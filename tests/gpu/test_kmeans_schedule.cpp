#include "gpu/filters/kmeans/kmeans_schedule.h"

#include <gtest/gtest.h>

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

TEST(KmeansSchedule, SceneCutReinitialisesTheNextFrame) {
  KmeansSchedule s;
  bool reinit = false;
  s.next(withK(8), true, reinit);
  s.observe(10'000, 1000, true);  // 10 per pixel
  s.next(withK(8), true, reinit);
  s.observe(12'000, 1000, false);  // ordinary motion
  s.next(withK(8), true, reinit);
  EXPECT_FALSE(reinit);
  s.observe(80'000, 1000, false);  // 80 per pixel: a cut
  EXPECT_EQ(s.next(withK(8), true, reinit).init, KmeansInit::KmeansPlusPlus);
  EXPECT_TRUE(reinit);
  s.observe(9'000, 1000, true);
  s.next(withK(8), true, reinit);
  EXPECT_FALSE(reinit);
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
