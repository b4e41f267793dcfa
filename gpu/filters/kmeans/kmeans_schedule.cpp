#include "gpu/filters/kmeans/kmeans_schedule.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

namespace vp {

KmeansParams KmeansSchedule::next(const KmeansParams& asked, bool warmStart, bool& reinit,
                                  const AutoKRequest* autoK) {
  while (!pending_.empty() && applied_ <= decided_ - kDecisionLag) {
    apply(pending_.front());
    pending_.pop_front();
    ++applied_;
  }
  ++decided_;
  KmeansParams requested = asked;
  if (requested.k == 0 && autoK && autoK->choose) {
    if (autoK_ == 0 || autoMin_ != autoK->kmin || autoMax_ != autoK->kmax || cutPending_ || scoreFell_) {
      const AutoKRequest::Choice c = autoK->choose();
      spdlog::debug("K-means: automatic K chose {} (silhouette {:.3f}){}", c.k, c.score,
                    scoreFell_ ? ", the score had fallen" : "");
      autoK_ = c.k, autoMin_ = autoK->kmin, autoMax_ = autoK->kmax;
      haveBaseline_ = scoreFell_ = false;
    }
    requested.k = autoK_;
  } else {
    autoK_ = 0;  // a fixed K: the next automatic run chooses afresh
  }
  KmeansParams p = requested;
  // init "warm" asks for warm starts always; with nothing to warm from, k-means++ it is.
  // Colour-only runs leave the centres' positions stale: turning position on starts afresh.
  const bool spatialOn = requested.spatial > 0.f && !lastSpatial_;
  reinit = !haveState_ || requested.k != lastK_ || cutPending_ || spatialOn ||
           (!warmStart && requested.init != KmeansInit::Warm);
  if (reinit && p.init == KmeansInit::Warm) p.init = KmeansInit::KmeansPlusPlus;
  // A fresh start that later frames warm-start from runs until no centre moves (within its
  // iteration budget), so a still scene keeps every label from the next frame on; stopping
  // at epsilon left a few pixels to change over the next frames as the centres settled.
  // (An epsilon of 0 already runs every iteration.)
  if (reinit && warmStart && p.epsilon > 0) p.epsilon = std::numeric_limits<float>::denorm_min();
  if (!reinit) p.init = KmeansInit::Warm;
  if (reinit && haveState_ && requested.k != lastK_) costAverage_ = -1;  // other K, other cost scale
  haveState_ = true;
  lastK_ = requested.k;
  lastSpatial_ = requested.spatial > 0.f;
  cutPending_ = false;
  return p;
}

void KmeansSchedule::observe(uint64_t cost, int64_t pixels, bool wasReinit, int k, double score) {
  pending_.push_back({cost, pixels, wasReinit, k, score});
}

void KmeansSchedule::apply(const Observation& o) {
  if (autoK_ != 0 && o.k == autoK_ && std::isfinite(o.score)) {
    if (!haveBaseline_)
      baseline_ = o.score, haveBaseline_ = true;
    else if (o.score < baseline_ - kScoreDrop)
      scoreFell_ = true;
  }
  if (o.pixels <= 0) return;
  const double perPixel = double(o.cost) / double(o.pixels);
  if (costAverage_ < 0 || o.wasReinit) {
    costAverage_ = perPixel;
    return;
  }
  if (perPixel > kCutRatio * costAverage_ + 1.0) {
    spdlog::debug("K-means: scene cut (cost/pixel {:.1f} vs {:.1f}), re-initialising", perPixel, costAverage_);
    cutPending_ = true;
    costAverage_ = perPixel;
    return;
  }
  costAverage_ += kAverageWeight * (perPixel - costAverage_);
}

}  // namespace vp
