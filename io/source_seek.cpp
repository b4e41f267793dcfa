// Seeking in FfmpegSource's decode thread: user seeks (accurate: decode from the
// keyframe before the target, show from the target on), loop restarts, and the landing
// check that makes seeks in containers without an index (MPEG-TS) start decoding at a
// keyframe at or before the target (io/seek_landing.h).
#include "io/ffmpeg_source.h"

#include <spdlog/spdlog.h>

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
  heldAudio_.clear();
  if (fmt_->iformat->flags & AVFMT_TS_DISCONT) landing_.start(target, target);
  else landing_.stop();  // an indexed container seeks to a keyframe
  loopOffsetUs_ = 0;
  skipBeforeUs_ = target;
  nextPtsUs_ = endUs_ = target;
  queue_->flush();  // frames pushed between the request and now
}

// A video packet read from the input: decoded, unless a seek is still landing.
void FfmpegSource::readVideo(const AVPacket& packet) {
  if (landing_.active()) {
    const AVStream* st = fmt_->streams[stream_];
    const int64_t ts = packet.pts != AV_NOPTS_VALUE ? packet.pts : packet.dts;
    if (ts == AV_NOPTS_VALUE) return;  // cannot be placed: not a landing
    const int64_t ptsUs = av_rescale_q(ts - (haveOrigin_ ? originTs_ : 0), st->time_base, av::kMicros);
    const int64_t durationUs = packet.duration > 0 ? av_rescale_q(packet.duration, st->time_base, av::kMicros)
                                                   : int64_t(1e6 / std::max(info_.fps, 1.0));
    switch (landing_.video(ptsUs, durationUs, packet.flags & AV_PKT_FLAG_KEY)) {
      case SeekLanding::Verdict::Drop: return;
      case SeekLanding::Verdict::Reseek: reseek(); return;
      case SeekLanding::Verdict::Pass:
        for (const av::PacketPtr& a : heldAudio_) passAudio(*a);
        heldAudio_.clear();
        break;
    }
  }
  decodePacket(&packet);
}

// An audio packet: passed on, or held while a seek is landing (a new seek reads it again).
void FfmpegSource::readAudio(const AVPacket& packet) {
  if (!landing_.active()) {
    passAudio(packet);
    return;
  }
  av::PacketPtr held(av_packet_clone(&packet));
  if (!held) throw std::bad_alloc();
  heldAudio_.push_back(std::move(held));
}

// The landing missed the keyframe before the target: seek again from further back.
void FfmpegSource::reseek() {
  const int64_t from = landing_.nextFromUs();
  spdlog::debug("'{}': seek to {:.3f} s landed past the keyframe it needs; again from {:.3f} s", options_.url,
                double(landing_.targetUs()) * 1e-6, double(from) * 1e-6);
  seekFile(from);
  heldAudio_.clear();
  landing_.start(landing_.targetUs(), from);
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
// B-frames (DTS before PTS) is past the opening keyframe.
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
