// Where a seek in a container without an index landed, judged from the video packets
// read after it. MPEG-TS (and other AVFMT_TS_DISCONT formats) seek by a DTS search that
// lands on any packet, usually mid-GOP: decoding from there gives broken pictures (HEVC
// skips to the next keyframe, H.264 decodes garbage) or lands past the target.
//
// After seeking the input to `from` for a seek to `target`: packets before the first
// video keyframe are dropped (nothing can decode them); a keyframe at or before the
// target ends the landing (that packet and all after it pass); a keyframe past the
// target, or the end of the input before any keyframe, asks for a new seek from twice
// as far back (at least 1 s), down to the start, where anything is accepted.
#pragma once

#include <algorithm>
#include <cstdint>

namespace vp {

class SeekLanding {
 public:
  enum class Verdict { Pass, Drop, Reseek };

  // Starts judging; `fromUs` <= 0 (the start of the input) accepts everything.
  void start(int64_t targetUs, int64_t fromUs) {
    targetUs_ = targetUs;
    fromUs_ = fromUs;
    active_ = fromUs > 0;
  }
  void stop() { active_ = false; }
  bool active() const { return active_; }

  // A video packet: its presentation time (file microseconds; the keyframe's own frame
  // is shown when it starts within half a frame of the target) and keyframe flag.
  Verdict video(int64_t ptsUs, int64_t durationUs, bool key) {
    if (!active_) return Verdict::Pass;
    if (!key) return Verdict::Drop;
    active_ = false;
    return ptsUs - durationUs / 2 <= targetUs_ ? Verdict::Pass : Verdict::Reseek;
  }
  // Other streams' packets read while active are held by the caller until the video's
  // verdict: passed after Pass, read again after Reseek.

  // The end of the input before any keyframe: a new seek is needed (when not at the start).
  bool reseekAtEnd() {
    const bool again = active_;
    active_ = false;
    return again;
  }

  // Where the next seek starts after Reseek.
  int64_t nextFromUs() const {
    return std::max<int64_t>(0, targetUs_ - 2 * std::max<int64_t>(targetUs_ - fromUs_, 500'000));
  }
  int64_t targetUs() const { return targetUs_; }

 private:
  int64_t targetUs_ = 0;
  int64_t fromUs_ = 0;
  bool active_ = false;
};

}  // namespace vp
