// FfmpegSource with sound: a demux thread and a video decode thread, so back-pressure
// from the GPU pipeline on the video never starves the audio (ffplay's design).
//
// Demux thread: apply a pending seek (seek the input, flush the video packets, queue a
// Seek marker with the new serial; in MPEG-TS, drop the video up to the keyframe the
// target needs, seeking again if it landed past it: source_seek.cpp); wait while the
// packet queues are full together (io/source/video_packet_queue.h); read a packet: video into
// the video packet queue, audio to the sink. At the end of the input: queue an End
// marker and wait until the video thread has drained the pass; then restart at the start
// (--loop, the audio offset by where the video ended) or wait for a seek or stop.
// Video thread: pop a packet; Seek markers reset the decoder and the per-serial state;
// packets of a serial older than the latest request are skipped; End drains the decoder
// and either asks the demuxer for the next --loop pass or pushes the endOfStream frame.
// Every wait returns on abort: the queues' via abort(), the demuxer's via cond_.
#include "io/source/ffmpeg_source.h"

#include <spdlog/spdlog.h>

namespace vp {
namespace {

// How long the demuxer sleeps while the queues are full before looking again: the
// consumers take packets without telling it (ffplay waits 10 ms too).
constexpr std::chrono::milliseconds kFullWait{10};

}  // namespace

void FfmpegSource::demuxRun() {
  try {
    demuxLoop();
  } catch (const std::exception& e) {
    setFatal(e.what());
    // The video thread ends the stream: no pass follows (videoDone_ or abort ends the wait).
    videoPackets_.push({VideoPacket::Kind::End, nullptr, demuxSerial_, 0});
  }
}

void FfmpegSource::demuxLoop() {
  av::PacketPtr packet = av::makePacket();
  int consecutiveErrors = 0;
  while (!abort_) {
    applyDemuxSeek();
    if (packetQueuesFull(videoPackets_.level(), audioSink_->level(), options_.maxQueuedBytes)) {
      std::unique_lock<std::mutex> lock(mutex_);
      cond_.wait_for(lock, kFullWait, [this] { return abort_ || seekPending_ || videoDone_; });
      if (videoDone_) return;
      continue;
    }
    const int r = av_read_frame(fmt_.get(), packet.get());
    if (r == AVERROR(EAGAIN)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (r < 0) {
      if (abort_) return;
      if (r != AVERROR_EOF && !readFailed(r, consecutiveErrors)) continue;
      if (seekPending_) continue;  // the end of what a seek replaces
      if (landing_.reseekAtEnd()) {  // a seek landed past the last keyframe before its target
        reseek();
        continue;
      }
      videoPackets_.push({VideoPacket::Kind::End, nullptr, demuxSerial_, 0});
      if (!waitAfterEnd()) return;
      continue;
    }
    consecutiveErrors = 0;
    if (packet->stream_index == stream_) {
      noteOrigin(*packet);
      if (!admitVideo(*packet, demuxSerial_, demuxLoopOffsetUs_)) {
        av_packet_unref(packet.get());
        continue;
      }
      VideoPacket v;
      v.packet.reset(av_packet_alloc());
      if (!v.packet) throw std::bad_alloc();
      av_packet_move_ref(v.packet.get(), packet.get());
      v.packet->time_base = fmt_->streams[stream_]->time_base;
      v.serial = demuxSerial_;
      videoPackets_.push(std::move(v));
    } else if (packet->stream_index == audio_.index) {
      admitAudio(*packet, demuxSerial_, demuxLoopOffsetUs_);
    }
    av_packet_unref(packet.get());
  }
}

// Without a start time in the container, time 0 is the first video timestamp; set here,
// before the packet is queued, so both threads see it (the queue's lock orders it).
void FfmpegSource::noteOrigin(const AVPacket& p) {
  if (haveOrigin_) return;
  const int64_t ts = p.pts != AV_NOPTS_VALUE ? p.pts : p.dts;
  if (ts == AV_NOPTS_VALUE) return;
  originTs_ = ts;
  haveOrigin_ = true;
}

void FfmpegSource::applyDemuxSeek() {
  if (!seekPending_) return;
  int64_t target;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    target = seekTarget_;
    demuxSerial_ = serial_;
    seekPending_ = false;
    passEnded_ = restart_ = false;  // a pass end reported before the seek is moot
  }
  seekFormat(target);
  startLanding(target);
  demuxLoopOffsetUs_ = 0;
  videoPackets_.flush();
  videoPackets_.push({VideoPacket::Kind::Seek, nullptr, demuxSerial_, target});
}

// After an End marker: waits for the video thread's verdict on the pass. Returns false
// when the demuxer is done (stop, or the video thread ended).
bool FfmpegSource::waitAfterEnd() {
  std::unique_lock<std::mutex> lock(mutex_);
  // Only the verdict on this serial's pass: one from before a seek is moot.
  cond_.wait(lock, [this] { return abort_ || seekPending_ || videoDone_ || (passEnded_ && passSerial_ == demuxSerial_); });
  if (abort_ || videoDone_) return false;
  if (seekPending_) return true;  // carried out at the top of the loop
  passEnded_ = false;
  if (restart_) {  // the next --loop pass, its audio offset by where the video ended
    restart_ = false;
    demuxLoopOffsetUs_ = restartOffsetUs_;
    lock.unlock();
    seekFormat(0);
    return true;
  }
  // The input has ended: wait for a seek (or stop).
  cond_.wait(lock, [this] { return abort_ || seekPending_ || videoDone_; });
  return !abort_ && !videoDone_;
}

void FfmpegSource::videoRun() {
  try {
    if (hw_) hw_->bindThread();  // events on the decoder's stream, surfaces on its device
    frame_ = av::makeFrame();
    VideoPacket p;
    while (!abort_ && videoPackets_.pop(p)) {
      if (p.kind == VideoPacket::Kind::Seek) {
        startSerial(p.serial, p.targetUs);
        continue;
      }
      if (p.serial != frameSerial_ || frameSerial_ != requestedSerial_) continue;  // before a seek
      if (p.kind == VideoPacket::Kind::End) endOfPass();
      else decodePacket(p.packet.get());
    }
  } catch (const std::exception& e) {
    setFatal(e.what());
    pushEndOfStream();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    videoDone_ = true;
  }
  cond_.notify_all();
}

// The first packet of a seek: the decoder starts afresh, frames carry the new serial and
// are shown from the target on, timed from the file start again.
void FfmpegSource::startSerial(uint32_t serial, int64_t targetUs) {
  avcodec_flush_buffers(dec_.get());
  framesThisPass_ = 0;
  frameSerial_ = serial;
  loopOffsetUs_ = 0;
  skipBeforeUs_ = targetUs;
  nextPtsUs_ = endUs_ = targetUs;
  queue_->flush();  // frames pushed between the request and now
}

// The end of the input (or of a --loop pass) reached the video thread: drain the decoder,
// then restart (--loop) or end the stream.
void FfmpegSource::endOfPass() {
  decodePacket(nullptr);
  if (abort_ || frameSerial_ != requestedSerial_) return;  // a seek replaces what follows
  if (options_.loop && info_.seekable && framesThisPass_ > 0 && fatalError().empty()) {
    avcodec_flush_buffers(dec_.get());
    loopOffsetUs_ = endUs_;  // the next pass continues where this one ended
    nextPtsUs_ = endUs_;
    framesThisPass_ = 0;
    passEnded(true);
    return;
  }
  // A stream that ends without a single frame is an error, not an empty success
  // (after a seek, frames may have been skipped: no verdict then).
  if (!decodedAny_ && frameSerial_ == 0) {
    const int64_t errors = decodeErrors_ + tap_.errors;
    setFatal(errors > 0 ? "no frame could be decoded (" + std::to_string(errors) + " decode errors)"
                        : "the video stream has no frames");
  }
  pushEndOfStream();
  passEnded(false);
}

void FfmpegSource::passEnded(bool restart) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    passEnded_ = true;
    passSerial_ = frameSerial_;
    restart_ = restart;
    restartOffsetUs_ = loopOffsetUs_;
  }
  cond_.notify_all();
}

}  // namespace vp
