#include "app/pacing.h"

namespace vp {

int64_t PlaybackClock::untilDueUs(int64_t ptsUs, int64_t nowUs) const {
  if (!anchored_) return 0;
  return (anchorWallUs_ + (ptsUs - anchorPtsUs_)) - nowUs;
}

PaceDecision PlaybackClock::decide(int64_t ptsUs, int64_t nowUs, bool isLast) {
  if (!sync_) return PaceDecision::Present;
  // A timestamp going backwards (loop, seek, broken stream) or far ahead re-anchors.
  const int64_t until = untilDueUs(ptsUs, nowUs);
  if (!anchored_ || until > 5'000'000) {
    anchored_ = true;
    anchorPtsUs_ = ptsUs;
    anchorWallUs_ = nowUs;
    return PaceDecision::Present;
  }
  if (until > 0) return PaceDecision::Wait;
  if (-until > lateToleranceUs_) {
    if (!isLast) return PaceDecision::Drop;
    // Late with nothing newer: the pipeline is slower than real time. Show it and
    // let the clock slip, so the next frames are not all late too.
    anchorPtsUs_ = ptsUs;
    anchorWallUs_ = nowUs;
  }
  return PaceDecision::Present;
}

}  // namespace vp
