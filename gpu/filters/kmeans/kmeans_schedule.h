// Chooses, frame by frame, whether K-means warm-starts from the previous frame's
// centres or re-initialises: on the first frame, after a change of K, when spatial
// K-means is turned on (colour-only runs leave positions stale), after a change of frame size (the backend calls reset()), and after a scene cut (the converged
// cost per pixel of a frame jumps well above its recent average). With warm starts on, a
// re-initialised frame runs to convergence (epsilon: the least float, so only a shift of
// 0 stops it before maxIterations): the frames after it start from a fixed point, and a
// still scene keeps every label. Shared by every backend, so both make the same choice
// for every frame.
#pragma once

#include "gpu/filters/kmeans/kmeans.h"

#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>

namespace vp {

// Automatic K (requested k = 0; kmeans_auto.h): the range, and how to choose K on the
// frame being decided (runs the search there, returns the chosen K and its score).
struct AutoKRequest {
  int kmin = 2, kmax = 12;
  struct Choice {
    int k;
    double score;
  };
  std::function<Choice()> choose;
};

class KmeansSchedule {
 public:
  // Frame n's decision reads the results of frames up to n - kDecisionLag. With a lag of
  // 2 the GPU backend finds frame n - 2's K-means finished (frame n - 1's waits for it on
  // the GPU) when it queues frame n, so it seldom waits and never leaves the GPU idle; a
  // lag of 1 cost 19 % of the 1080p pipeline rate (docs/design/kmeans.md). A cut is then
  // acted on one frame later than it could be: the second frame after it re-initialises.
  static constexpr int kDecisionLag = 2;

  // The parameters to run the next K-means frame with; `reinit` says whether it
  // re-initialises (params.init) rather than warm-starting. First applies the
  // observations of frames up to this one minus kDecisionLag (those must have been fed).
  // Automatic K (requested.k == 0): K is chosen on this frame (autoK->choose) when no
  // choice has been made, the range changed, a scene cut was seen or the score fell
  // (observe); otherwise the last choice holds. A new K re-initialises, as any change of K.
  KmeansParams next(const KmeansParams& requested, bool warmStart, bool& reinit, const AutoKRequest* autoK = nullptr);
  // Feeds back the oldest frame not yet observed, in order; any time from its end to the
  // next() of the frame kDecisionLag after it. Both backends decide the same for every
  // frame whatever the timing. Cost per pixel drives the scene-cut test; `score` (the
  // frame's silhouette with `k` clusters, automatic K only; NaN otherwise) the score test.
  void observe(uint64_t cost, int64_t pixels, bool wasReinit, int k = 0, double score = NAN);
  void reset() { *this = KmeansSchedule(); }

  // A later frame's score this far below the first one observed after a choice chooses again.
  static constexpr double kScoreDrop = 0.2;

 private:
  struct Observation {
    uint64_t cost;
    int64_t pixels;
    bool wasReinit;
    int k;
    double score;
  };
  void apply(const Observation& o);

  static constexpr double kCutRatio = 3.0;  // cost jump that counts as a scene cut
  static constexpr double kAverageWeight = 0.2;  // exponential average of cost per pixel
  bool haveState_ = false;    // some earlier K-means frame left centres on the device
  int lastK_ = 0;
  bool lastSpatial_ = false;  // the last frame ran spatial K-means (its centres have positions)
  bool cutPending_ = false;   // a scene cut was seen: re-initialise next frame
  double costAverage_ = -1;   // recent cost per pixel; < 0 until the first observation
  int64_t decided_ = 0;       // frames next() has decided
  int64_t applied_ = 0;       // observations applied (of frames 0 .. applied_ - 1)
  std::deque<Observation> pending_;  // fed, not yet applied, oldest first
  // Automatic K: the last choice (0: none) for the range kmin..kmax, the score of the first
  // frame observed with it, and whether a later one fell below that by kScoreDrop.
  int autoK_ = 0, autoMin_ = 0, autoMax_ = 0;
  bool haveBaseline_ = false, scoreFell_ = false;
  double baseline_ = 0;
};

}  // namespace vp
