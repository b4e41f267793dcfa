// Presentation pacing for files: frames are shown at their timestamps against a
// wall clock anchored at the first frame (and re-anchored after a pause or seek);
// a frame more than `lateToleranceUs` past its time is dropped when a newer one
// is ready to take its place, else shown with the clock re-anchored on it (a
// pipeline slower than real time plays every frame it makes, as fast as it can).
// Live sources and --no-sync present immediately.
#pragma once

#include <cstdint>

namespace vp {

enum class PaceDecision { Wait, Present, Drop };

class PlaybackClock {
 public:
  explicit PlaybackClock(bool sync, int64_t lateToleranceUs = 50'000)
      : sync_(sync), lateToleranceUs_(lateToleranceUs) {}

  // What to do with a frame of timestamp ptsUs at wall time nowUs. `isLast`:
  // nothing newer is available, so a late frame is still shown (no black gaps).
  PaceDecision decide(int64_t ptsUs, int64_t nowUs, bool isLast);
  // Forget the anchor: the next frame presented starts the clock again.
  void reanchor() { anchored_ = false; }
  // Microseconds until ptsUs is due (<= 0: due now); 0 when unanchored.
  int64_t untilDueUs(int64_t ptsUs, int64_t nowUs) const;

 private:
  bool sync_;
  int64_t lateToleranceUs_;
  bool anchored_ = false;
  int64_t anchorPtsUs_ = 0;
  int64_t anchorWallUs_ = 0;
};

}  // namespace vp
