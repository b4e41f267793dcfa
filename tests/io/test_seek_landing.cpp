// SeekLanding: the verdicts on the video packets read after a seek in a container
// without an index (io/source/seek_landing.h).
#include "io/source/seek_landing.h"

#include <gtest/gtest.h>

namespace vp {
namespace {

using V = SeekLanding::Verdict;
constexpr int64_t kFrame = 40'000;  // 25 fps

TEST(SeekLanding, DropsUntilAKeyframeAtOrBeforeTheTarget) {
  SeekLanding l;
  l.start(5'000'000, 5'000'000);
  EXPECT_TRUE(l.active());
  EXPECT_EQ(l.video(4'960'000, kFrame, false), V::Drop);  // mid-GOP: nothing decodes it
  EXPECT_EQ(l.video(5'020'000, kFrame, false), V::Drop);  // non-keyframes never decide
  EXPECT_EQ(l.video(5'000'000 + kFrame / 2, kFrame, true), V::Pass);  // within half a frame
  EXPECT_FALSE(l.active());
  EXPECT_EQ(l.video(9'000'000, kFrame, false), V::Pass);  // landed: everything passes
}

TEST(SeekLanding, AKeyframePastTheTargetSeeksAgainFromTwiceAsFarBack) {
  SeekLanding l;
  l.start(5'000'000, 5'000'000);
  EXPECT_EQ(l.video(5'000'000 + kFrame / 2 + 1, kFrame, true), V::Reseek);
  EXPECT_EQ(l.nextFromUs(), 4'000'000);  // at least 1 s back
  l.start(5'000'000, 4'000'000);
  EXPECT_EQ(l.video(6'000'000, kFrame, true), V::Reseek);
  EXPECT_EQ(l.nextFromUs(), 3'000'000);
  l.start(5'000'000, 3'000'000);
  EXPECT_EQ(l.nextFromUs(), 1'000'000);
  l.start(5'000'000, 1'000'000);
  EXPECT_EQ(l.nextFromUs(), 0);  // never before the start
}

TEST(SeekLanding, TheEndBeforeAnyKeyframeSeeksAgain) {
  SeekLanding l;
  l.start(29'000'000, 29'000'000);
  EXPECT_EQ(l.video(29'100'000, kFrame, false), V::Drop);
  EXPECT_TRUE(l.reseekAtEnd());
  EXPECT_FALSE(l.active());
  EXPECT_FALSE(l.reseekAtEnd());  // asked once
}

TEST(SeekLanding, TheStartAcceptsEverything) {
  SeekLanding l;
  l.start(3'000'000, 0);
  EXPECT_FALSE(l.active());
  EXPECT_EQ(l.video(0, kFrame, false), V::Pass);
  EXPECT_FALSE(l.reseekAtEnd());
  l.start(3'000'000, 3'000'000);
  l.stop();
  EXPECT_EQ(l.video(3'500'000, kFrame, false), V::Pass);
}

}  // namespace
}  // namespace vp
