// Seeking in FfmpegSource's decode thread: user seeks (accurate: decode up to the
// target, show from there), loop restarts, and the landing check that makes seeks in
// containers without an index (MPEG-TS) land where they were asked to.
#include "io/ffmpeg_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace vp {

void FfmpegSource::applyPendingSeek() {
  if (!seekPending_) return;
  int64_t target;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    target = seekTarget_;
    frameSerial_ = serial_;
    seekPending_ = false;
  }
  seekFile(target);
  loopOffsetUs_ = 0;
  skipBeforeUs_ = target;
  reseekUs_ = -1;
  startLanding(target);
  nextPtsUs_ = endUs_ = target;
  queue_->flush();  // frames pushed between the request and now
}

// The landing was bad: the errors of what was decoded there are the seek's, not the stream's.
void FfmpegSource::reseek() {
  tap_.errors = tapErrorsAtLanding_;
  decodeErrors_ = decodeErrorsAtLanding_;
  const int64_t from = std::exchange(reseekUs_, -1);
  seekFile(from);
  startLanding(from);
}

void FfmpegSource::startLanding(int64_t fromUs) {
  landingFromUs_ = fromUs;
  landingFramed_ = landingKeyed_ = false;
  tapErrorsAtLanding_ = tap_.errors;
  decodeErrorsAtLanding_ = decodeErrors_;
}

// Each frame decoded after a seek until the one shown: true (and a new seek planned)
// when the demuxer missed the keyframe before the target (MPEG-TS searches by DTS,
// without an index): the first frame is past the target, or the frame to show comes
// with no keyframe since the landing and with errors reported (references missing).
// The next seek starts twice as far back, down to the start.
bool FfmpegSource::badLanding(const AVFrame& f, int64_t ptsUs, int64_t durationUs) {
  if (landingFromUs_ < 0 || skipBeforeUs_ < 0) return false;
  const bool late = !landingFramed_ && ptsUs - durationUs / 2 > skipBeforeUs_;
  landingFramed_ = true;
  if (f.key_frame && !landingKeyed_) {
    landingKeyed_ = true;  // frames before it were decoded without their references
    tap_.errors = tapErrorsAtLanding_;
    decodeErrors_ = decodeErrorsAtLanding_;
  }
  if (!late && ptsUs + durationUs / 2 < skipBeforeUs_) return false;  // still before the target
  const int64_t from = std::exchange(landingFromUs_, -1);
  const bool broken =
      !landingKeyed_ && (tap_.errors > tapErrorsAtLanding_ || decodeErrors_ > decodeErrorsAtLanding_);
  if (from <= 0 || !(late || broken)) return false;
  reseekUs_ = std::max<int64_t>(0, skipBeforeUs_ - 2 * std::max<int64_t>(skipBeforeUs_ - from, 500'000));
  spdlog::debug("'{}': seek to {:.3f} s landed {} at {:.3f} s; again from {:.3f} s", options_.url,
                double(skipBeforeUs_) * 1e-6, late ? "past it" : "mid-GOP", double(ptsUs) * 1e-6,
                double(reseekUs_) * 1e-6);
  return true;
}

void FfmpegSource::restartLoop() {
  loopOffsetUs_ = endUs_;  // the next pass continues where this one ended
  spdlog::debug("'{}': loop: the next pass starts at {:.6f} s", options_.url, double(endUs_) * 1e-6);
  seekFile(0);
  nextPtsUs_ = endUs_;
}

// Seeks to the keyframe at or before `targetUs` (file time) and resets the decoder.
// The start of a transport stream is sought by byte: MPEG-TS has no index, and its
// timestamp search lands on the first packet whose DTS reaches the target, which with
// B-frames (DTS before PTS) is past the opening keyframe; an HEVC decoder then skips
// to the next keyframe, and a loop's passes differ.
void FfmpegSource::seekFile(int64_t targetUs) {
  const AVStream* st = fmt_->streams[stream_];
  const int64_t ts = av_rescale_q(targetUs, av::kMicros, st->time_base) + (haveOrigin_ ? originTs_ : 0);
  const int flags = fmt_->iformat->flags;
  const bool byBytes = targetUs <= 0 && (flags & AVFMT_TS_DISCONT) && !(flags & AVFMT_NO_BYTE_SEEK);
  int r = byBytes ? avformat_seek_file(fmt_.get(), -1, INT64_MIN, 0, 0, AVSEEK_FLAG_BYTE) : -1;
  if (r < 0) r = avformat_seek_file(fmt_.get(), stream_, INT64_MIN, ts, ts, 0);
  if (r < 0) r = av_seek_frame(fmt_.get(), stream_, ts, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY);
  if (r < 0) spdlog::warn("'{}': seek to {:.3f} s failed: {}", options_.url, targetUs / 1e6, av::errorText(r));
  avcodec_flush_buffers(dec_.get());
  framesThisPass_ = 0;
}

}  // namespace vp
