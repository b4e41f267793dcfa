#include "app/player/clock.h"

#include "io/frame.h"

namespace vp {

int64_t steadyNowUs() { return steadyMicros(); }

std::optional<int64_t> Clock::at(int64_t nowUs) const {
  if (!valid_) return std::nullopt;
  return paused_ ? ptsUs_ : ptsUs_ + (nowUs - lastSetUs_);
}

void Clock::set(int64_t ptsUs, int serial, int64_t nowUs) {
  valid_ = true;
  ptsUs_ = ptsUs;
  serial_ = serial;
  lastSetUs_ = nowUs;
}

void Clock::setPaused(bool paused, int64_t nowUs) {
  if (paused == paused_) return;
  if (valid_) ptsUs_ = *at(nowUs);
  lastSetUs_ = nowUs;
  paused_ = paused;
}

int64_t FramePacer::untilDueUs(int64_t ptsUs, int64_t nowUs) const {
  const std::optional<int64_t> t = master_->at(nowUs);
  return t ? ptsUs - *t : 0;
}

PaceDecision FramePacer::decide(int64_t ptsUs, int serial, int64_t nowUs, bool isLast) {
  if (!sync_) return PaceDecision::Present;
  // Another master (audio) that does not read this seek generation yet (just after a
  // seek, before its first samples play) leaves the frame to the video clock meanwhile.
  const bool otherMaster = master_ != &video_;
  const std::optional<int64_t> m = otherMaster ? master_->at(nowUs) : std::nullopt;
  const bool useMaster = m && master_->serial() == serial;
  const Clock& clock = useMaster ? *master_ : video_;
  // No anchor yet, a new seek generation or a timestamp far ahead (a jump in the
  // stream) re-anchors the video clock.
  const std::optional<int64_t> t = clock.at(nowUs);
  const int64_t until = t ? ptsUs - *t : 0;
  if (!t || clock.serial() != serial || until > 5'000'000) {
    if (!useMaster) video_.set(ptsUs, serial, nowUs);
    dropsInARow_ = 0;
    return PaceDecision::Present;
  }
  if (until > 0) return PaceDecision::Wait;
  if (-until > lateToleranceUs_) {
    if (!isLast && dropsInARow_ < kMaxDropsInARow) {
      ++dropsInARow_;
      return PaceDecision::Drop;
    }
    // Late with nothing newer, or late frame after late frame: the pipeline is slower than
    // real time. Show it and let the video clock slip, so the next frames are not all late too.
    if (!useMaster) video_.set(ptsUs, serial, nowUs);
  }
  dropsInARow_ = 0;
  // The video clock follows the frames shown, so it can take over from the master.
  if (useMaster) video_.set(ptsUs, serial, nowUs);
  return PaceDecision::Present;
}

}  // namespace vp
