// The demuxer's seeks: the input sought for a user seek or a --loop restart, and the
// landing check that makes seeks in containers without an index (MPEG-TS) start decoding
// at a keyframe at or before the target (io/source/seek_landing.h). The decoder's half
// (flush, show from the target on) is the video thread's, on the Seek marker.
#include "io/source/demuxer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace vp {

// A pending seek: the input sought, the video packets read before it dropped, and a Seek
// marker queued with the new serial (accurate seeks: the video thread decodes from the
// keyframe before the target and shows from the target on, timed from the file start).
void Demuxer::applySeek() {
  if (!control_.seekPending()) return;
  int64_t target = 0;
  if (!control_.takeSeek(target, serial_)) return;
  seekFormat(target);
  startLanding(target);
  loopOffsetUs_ = 0;
  video_->flush();
  video_->push(VideoPacket::marker(VideoPacket::Kind::Seek, serial_, target));
}

// Reading goes on from the keyframe at or before targetUs (file time).
// The start of a transport stream is sought by byte: MPEG-TS has no index, and its
// timestamp search lands on the first packet whose DTS reaches the target, which with
// B-frames (DTS before PTS) is past the opening keyframe.
void Demuxer::seekFormat(int64_t targetUs) {
  const AVStream* st = fmt_->streams[stream_];
  const int64_t ts = av_rescale_q(targetUs, av::kMicros, st->time_base) + (haveOrigin_ ? originTs_ : 0);
  const int flags = fmt_->iformat->flags;
  const bool byBytes = targetUs <= 0 && (flags & AVFMT_TS_DISCONT) && !(flags & AVFMT_NO_BYTE_SEEK);
  int r = byBytes ? avformat_seek_file(fmt_.get(), -1, INT64_MIN, 0, 0, AVSEEK_FLAG_BYTE) : -1;
  if (r < 0) r = avformat_seek_file(fmt_.get(), stream_, INT64_MIN, ts, ts, 0);
  if (r < 0) r = av_seek_frame(fmt_.get(), stream_, ts, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY);
  if (r < 0) spdlog::warn("'{}': seek to {:.3f} s failed: {}", options_.url, targetUs / 1e6, av::errorText(r));
}

// After the input was sought for a seek to `targetUs`: in a format without an index, the
// landing is judged (an indexed container seeks to a keyframe).
void Demuxer::startLanding(int64_t targetUs) {
  heldAudio_.clear();
  if (fmt_->iformat->flags & AVFMT_TS_DISCONT) landing_.start(targetUs, targetUs);
  else landing_.stop();
}

// A video packet read: true when it goes on to the decoder. While a seek is landing,
// packets before the keyframe it needs are not (a landing past that keyframe seeks again
// here); once it has landed, the audio held meanwhile goes on first.
bool Demuxer::admitVideo(const AVPacket& packet) {
  if (!landing_.active()) return true;
  const AVStream* st = fmt_->streams[stream_];
  const int64_t ts = packet.pts != AV_NOPTS_VALUE ? packet.pts : packet.dts;
  if (ts == AV_NOPTS_VALUE) return false;  // cannot be placed: not a landing
  const int64_t ptsUs = av_rescale_q(ts - (haveOrigin_ ? originTs_ : 0), st->time_base, av::kMicros);
  const int64_t durationUs = packet.duration > 0 ? av_rescale_q(packet.duration, st->time_base, av::kMicros)
                                                 : int64_t(1e6 / std::max(videoStream_->fps, 1.0));
  switch (landing_.video(ptsUs, durationUs, packet.flags & AV_PKT_FLAG_KEY)) {
    case SeekLanding::Verdict::Drop: return false;
    case SeekLanding::Verdict::Reseek: reseek(); return false;
    case SeekLanding::Verdict::Pass: break;
  }
  for (const av::PacketPtr& a : heldAudio_) passAudio(*a);
  heldAudio_.clear();
  return true;
}

// An audio packet read: passed on, or held while a seek is landing (a new seek reads it
// again, so it waits for the verdict on the video).
void Demuxer::admitAudio(const AVPacket& packet) {
  if (!landing_.active()) {
    passAudio(packet);
    return;
  }
  av::PacketPtr held(av_packet_clone(&packet));
  if (!held) throw std::bad_alloc();
  heldAudio_.push_back(std::move(held));
}

// The landing missed the keyframe before the target: read again from further back. No
// packet reached the decoder since the seek flushed it.
void Demuxer::reseek() {
  const int64_t from = landing_.nextFromUs();
  spdlog::debug("'{}': seek to {:.3f} s landed past the keyframe it needs; again from {:.3f} s", options_.url,
                double(landing_.targetUs()) * 1e-6, double(from) * 1e-6);
  seekFormat(from);
  heldAudio_.clear();
  landing_.start(landing_.targetUs(), from);
}

}  // namespace vp
