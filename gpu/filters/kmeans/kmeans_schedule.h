// Chooses, frame by frame, whether K-means warm-starts from the previous frame's
// centres or re-initialises: on the first frame, after a change of K, after a
// change of frame size (the backend calls reset()), and after a scene cut (the converged cost per pixel of a frame
// jumps well above its recent average). Shared by every backend.
#pragma once

#include "gpu/filters/kmeans/kmeans.h"

#include <cstdint>

namespace vp {

class KmeansSchedule {
 public:
  // The parameters to run the next K-means frame with; `reinit` says whether it
  // re-initialises (params.init) rather than warm-starting.
  KmeansParams next(const KmeansParams& requested, bool warmStart, bool& reinit);
  // Feeds back frame n's result before next() is asked for frame n + 1 (both backends
  // do: the GPU waits for frame n's K-means there), so each frame's start is a function
  // of the frames before it, whatever the timing. Cost per pixel drives the scene-cut
  // test; a cut found here re-initialises frame n + 1.
  void observe(uint64_t cost, int64_t pixels, bool wasReinit);
  void reset() { *this = KmeansSchedule(); }

 private:
  static constexpr double kCutRatio = 3.0;  // cost jump that counts as a scene cut
  static constexpr double kAverageWeight = 0.2;  // exponential average of cost per pixel
  bool haveState_ = false;    // some earlier K-means frame left centres on the device
  int lastK_ = 0;
  bool cutPending_ = false;   // a scene cut was seen: re-initialise next frame
  double costAverage_ = -1;   // recent cost per pixel; < 0 until the first observation
};

}  // namespace vp
