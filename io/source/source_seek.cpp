// Seeking in FfmpegSource: user seeks (accurate: decode from the keyframe before the
// target, show from the target on) and loop restarts of the one decode thread, the
// demuxer's half used by the demux thread too, and the landing check that makes seeks in
// containers without an index (MPEG-TS) start decoding at a keyframe at or before the
// target (io/source/seek_landing.h), in whichever thread reads the packets.
#include "io/source/ffmpeg_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>

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
  startLanding(target);
  loopOffsetUs_ = 0;
  skipBeforeUs_ = target;
  nextPtsUs_ = endUs_ = target;
  queue_->flush();  // frames pushed between the request and now
}

// A video packet read from the input, in whichever thread reads: true when it goes on to
// the decoder. While a seek is landing, packets before the keyframe it needs are not
// (a landing past that keyframe seeks again here); once it has landed, the audio held
// meanwhile goes on first, stamped `serial` / `loopOffsetUs` like the packets read now.
bool FfmpegSource::admitVideo(const AVPacket& packet, uint32_t serial, int64_t loopOffsetUs) {
  if (!landing_.active()) return true;
  const AVStream* st = fmt_->streams[stream_];
  const int64_t ts = packet.pts != AV_NOPTS_VALUE ? packet.pts : packet.dts;
  if (ts == AV_NOPTS_VALUE) return false;  // cannot be placed: not a landing
  const int64_t ptsUs = av_rescale_q(ts - (haveOrigin_ ? originTs_ : 0), st->time_base, av::kMicros);
  const int64_t durationUs = packet.duration > 0 ? av_rescale_q(packet.duration, st->time_base, av::kMicros)
                                                 : int64_t(1e6 / std::max(info_.fps, 1.0));
  switch (landing_.video(ptsUs, durationUs, packet.flags & AV_PKT_FLAG_KEY)) {
    case SeekLanding::Verdict::Drop: return false;
    case SeekLanding::Verdict::Reseek: reseek(); return false;
    case SeekLanding::Verdict::Pass: break;
  }
  for (const av::PacketPtr& a : heldAudio_) passAudio(*a, serial, loopOffsetUs);
  heldAudio_.clear();
  return true;
}

// An audio packet read from the input: passed on, or held while a seek is landing (a new
// seek reads it again, so it waits for the verdict on the video).
void FfmpegSource::admitAudio(const AVPacket& packet, uint32_t serial, int64_t loopOffsetUs) {
  if (!landing_.active()) {
    passAudio(packet, serial, loopOffsetUs);
    return;
  }
  av::PacketPtr held(av_packet_clone(&packet));
  if (!held) throw std::bad_alloc();
  heldAudio_.push_back(std::move(held));
}

// The landing missed the keyframe before the target: read again from further back. No
// packet reached the decoder since the seek flushed it.
void FfmpegSource::reseek() {
  const int64_t from = landing_.nextFromUs();
  spdlog::debug("'{}': seek to {:.3f} s landed past the keyframe it needs; again from {:.3f} s", options_.url,
                double(landing_.targetUs()) * 1e-6, double(from) * 1e-6);
  seekFormat(from);
  heldAudio_.clear();
  landing_.start(landing_.targetUs(), from);
}

// After the input was sought for a seek to `targetUs`: in a format without an index, the
// landing is judged (an indexed container seeks to a keyframe).
void FfmpegSource::startLanding(int64_t targetUs) {
  heldAudio_.clear();
  if (fmt_->iformat->flags & AVFMT_TS_DISCONT) landing_.start(targetUs, targetUs);
  else landing_.stop();
}

void FfmpegSource::restartLoop() {
  loopOffsetUs_ = endUs_;  // the next pass continues where this one ended
  spdlog::debug("'{}': loop: the next pass starts at {:.6f} s", options_.url, double(endUs_) * 1e-6);
  seekFile(0);
  nextPtsUs_ = endUs_;
}

// Seeks to the keyframe at or before `targetUs` (file time) and resets the decoder.
void FfmpegSource::seekFile(int64_t targetUs) {
  seekFormat(targetUs);
  avcodec_flush_buffers(dec_.get());
  framesThisPass_ = 0;
}

// The demuxer's half of seekFile: reading goes on from the keyframe at or before targetUs.
// The start of a transport stream is sought by byte: MPEG-TS has no index, and its
// timestamp search lands on the first packet whose DTS reaches the target, which with
// B-frames (DTS before PTS) is past the opening keyframe.
void FfmpegSource::seekFormat(int64_t targetUs) {
  const AVStream* st = fmt_->streams[stream_];
  const int64_t ts = av_rescale_q(targetUs, av::kMicros, st->time_base) + (haveOrigin_ ? originTs_ : 0);
  const int flags = fmt_->iformat->flags;
  const bool byBytes = targetUs <= 0 && (flags & AVFMT_TS_DISCONT) && !(flags & AVFMT_NO_BYTE_SEEK);
  int r = byBytes ? avformat_seek_file(fmt_.get(), -1, INT64_MIN, 0, 0, AVSEEK_FLAG_BYTE) : -1;
  if (r < 0) r = avformat_seek_file(fmt_.get(), stream_, INT64_MIN, ts, ts, 0);
  if (r < 0) r = av_seek_frame(fmt_.get(), stream_, ts, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY);
  if (r < 0) spdlog::warn("'{}': seek to {:.3f} s failed: {}", options_.url, targetUs / 1e6, av::errorText(r));
}

}  // namespace vp
