// The decode thread of FfmpegSource: read -> decode -> write into the queue.
//
// Loop: apply a pending seek; read a packet; decode it; write each frame into
// the writable slot of the FrameQueue (blocking while the queue is full, which
// paces decoding to the consumer). At end of file: drain the decoder, then
// either restart (loop) or push an endOfStream marker and wait for a seek or
// stop. Every blocking point returns on abort: the queue's waits via abort(),
// the end-of-stream wait via cond_, libav's I/O via the interrupt callback.
#include "io/source/ffmpeg_source.h"

#include "io/video/rotate.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include <algorithm>

namespace vp {
namespace {

constexpr int kMaxConsecutiveReadErrors = 32;  // a file demuxer that keeps failing has ended

}  // namespace

void FfmpegSource::run() {
  try {
    if (hw_) hw_->bindThread();  // events on the decoder's stream, surfaces on its device
    frame_ = av::makeFrame();
    decodeLoop();
  } catch (const std::exception& e) {
    setFatal(e.what());
    pushEndOfStream();
  }
}

void FfmpegSource::setFatal(const std::string& reason) {
  const std::string message = "'" + options_.url + "': " + reason;
  spdlog::debug("{}", message);  // the caller reports fatalError()
  std::lock_guard<std::mutex> lock(mutex_);
  if (fatal_.empty()) fatal_ = message;
}

void FfmpegSource::decodeLoop() {
  av::PacketPtr packet = av::makePacket();
  int consecutiveErrors = 0;
  while (!abort_) {
    applyPendingSeek();
    const int r = av_read_frame(fmt_.get(), packet.get());
    if (r == AVERROR(EAGAIN)) {  // a non-blocking device with nothing yet
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (r < 0) {
      if (abort_) return;
      if (r != AVERROR_EOF && !readFailed(r, consecutiveErrors)) continue;
      if (device_ && !fatalError().empty()) return;  // readFailed ended a live input
      if (landing_.reseekAtEnd()) {  // a seek landed past the last keyframe before its target
        reseek();
        continue;
      }
      decodePacket(nullptr);  // drain the decoder
      if (abort_) return;
      if (seekPending_) continue;
      if (options_.loop && info_.seekable && framesThisPass_ > 0) {
        restartLoop();
        continue;
      }
      // A stream that ends without a single frame is an error, not an empty success
      // (after a seek, frames may have been skipped: no verdict then).
      if (!decodedAny_ && frameSerial_ == 0 && !device_) {
        const int64_t errors = decodeErrors_ + tap_.errors;
        setFatal(errors > 0 ? "no frame could be decoded (" + std::to_string(errors) + " decode errors)"
                            : "the video stream has no frames");
      }
      pushEndOfStream();
      if (!waitForSeekOrStop()) return;
      continue;
    }
    consecutiveErrors = 0;
    if (packet->stream_index == stream_) {
      if (admitVideo(*packet, frameSerial_, loopOffsetUs_)) decodePacket(packet.get());
    } else if (packet->stream_index == audio_.index) {
      admitAudio(*packet, frameSerial_, loopOffsetUs_);
    }
    av_packet_unref(packet.get());
  }
}

// A read error other than EOF. Returns true when the stream has ended: a live
// input (fatal, e.g. unplugged) or a file demuxer that keeps failing; a file's
// isolated damaged spot is counted and skipped.
bool FfmpegSource::readFailed(int err, int& consecutiveErrors) {
  ++decodeErrors_;
  if (device_) {
    const bool gone = err == AVERROR(ENODEV) || err == AVERROR(EIO) || err == AVERROR(ENXIO);
    const std::string why = std::string(gone ? "device unplugged" : "device read failed") + " (" +
                            av::errorText(err) + ")";
    if (options_.reconnect) {
      if (reconnect(why)) return false;
      if (abort_) return true;
    }
    setFatal(why);
    decodePacket(nullptr);
    pushEndOfStream();
    return true;
  }
  spdlog::debug("'{}': read error: {}", options_.url, av::errorText(err));
  const bool stuck = fmt_->pb && (fmt_->pb->eof_reached || fmt_->pb->error < 0);
  return stuck || ++consecutiveErrors >= kMaxConsecutiveReadErrors;
}

// --reconnect: closes the lost device, then tries to reopen it once a second until
// it opens (true) or the source is stopped (false).
bool FfmpegSource::reconnect(const std::string& why) {
  spdlog::warn("'{}': {}; waiting for it to return (--reconnect)", options_.url, why);
  decodePacket(nullptr);
  dec_.reset();
  fmt_.reset();
  while (!abort_) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cond_.wait_for(lock, std::chrono::seconds(1), [this] { return abort_.load(); });
    }
    if (abort_) break;
    try {
      openInput(options_.format);
      std::lock_guard<std::mutex> lock(mutex_);  // openDecoder refreshes info_
      openDecoder();
    } catch (const std::exception& e) {
      spdlog::debug("'{}': not back yet: {}", options_.url, e.what());
      dec_.reset();
      fmt_.reset();
      continue;
    }
    spdlog::info("'{}': device is back", options_.url);
    return true;
  }
  return false;
}

// Sends one packet (nullptr: drain) and writes every frame that comes out.
void FfmpegSource::decodePacket(const AVPacket* packet) {
  int r = avcodec_send_packet(dec_.get(), packet);
  if (r == AVERROR(EAGAIN)) {  // output pending first (not expected with receive after every send)
    receiveFrames();
    r = avcodec_send_packet(dec_.get(), packet);
  }
  if (hw_ && !hwFellBack_ && hw_->state() == av::HwDecode::State::Software) {
    checkHardware(packet);
    if (framesFromCodec_ == 0 && packet) r = avcodec_send_packet(dec_.get(), packet);  // reopened
  }
  if (r < 0 && r != AVERROR_EOF && r != AVERROR(EAGAIN)) {
    ++decodeErrors_;
    spdlog::debug("'{}': decode error: {}", options_.url, av::errorText(r));
  }
  receiveFrames();
}

// The hardware decoder went to software (get_format without CUDA): --hwdec nvdec
// ends with the reason; auto says it once and, when nothing was decoded yet, reopens
// the decoder in software with all its threads (the hardware one has one).
void FfmpegSource::checkHardware(const AVPacket* packet) {
  hwFellBack_ = true;
  if (options_.hwdec == HwDecodeMode::Nvdec) throw std::runtime_error("--hwdec nvdec: " + hw_->fallbackReason());
  spdlog::info("'{}': decoding in software: {}", options_.url, hw_->fallbackReason());
  if (framesFromCodec_ == 0 && packet) openCodec(false);
}

void FfmpegSource::receiveFrames() {
  while (!abort_) {
    const int r = avcodec_receive_frame(dec_.get(), frame_.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
    if (r < 0) {
      ++decodeErrors_;
      spdlog::debug("'{}': decode error: {}", options_.url, av::errorText(r));
      return;
    }
    if (frame_->decode_error_flags || (frame_->flags & AV_FRAME_FLAG_CORRUPT)) ++decodeErrors_;
    decodedAny_ = true;
    ++framesFromCodec_;
    emitFrame(*frame_);
    av_frame_unref(frame_.get());
  }
}

void FfmpegSource::emitFrame(const AVFrame& f) {
  if (seekPending_ || frameSerial_ != requestedSerial_) return;  // decoded before a seek: stale
  const AVStream* st = fmt_->streams[stream_];
  int64_t ts = f.best_effort_timestamp != AV_NOPTS_VALUE ? f.best_effort_timestamp : f.pts;
  int64_t durationUs = 0;
  if (f.pkt_duration > 0)
    durationUs = av_rescale_q(f.pkt_duration, st->time_base, av::kMicros);
  else if (info_.fps > 0)
    durationUs = int64_t(1e6 / info_.fps + 0.5);
  int64_t ptsUs = nextPtsUs_;
  if (ts != AV_NOPTS_VALUE) {
    if (!haveOrigin_ && !split_) {  // with sound the demux thread sets it (noteOrigin)
      originTs_ = ts;
      haveOrigin_ = true;
    }
    ptsUs = av_rescale_q(ts - (haveOrigin_ ? originTs_ : 0), st->time_base, av::kMicros) + loopOffsetUs_;
  }
  if (skipBeforeUs_ >= 0) {  // accurate seek: decode up to the target, show from there
    if (ptsUs + durationUs / 2 < skipBeforeUs_) return;
    skipBeforeUs_ = -1;
  }
  nextPtsUs_ = ptsUs + durationUs;
  endUs_ = std::max(endUs_, ptsUs + std::max<int64_t>(durationUs, 1));  // a loop restarts strictly later

  PixelFormat surface{};
  const bool onDevice = av::HwDecode::surfaceFormat(f, surface);
  if (f.format == AV_PIX_FMT_CUDA && !onDevice) throw std::runtime_error("NVDEC surface format not supported");
  FrameLayout layout;
  ColorSpace color;
  if (onDevice) {
    layout = frameLayout(surface, f.width, f.height);
    av::NativeFormat native;
    native.format = surface;
    color = av::frameColorSpace(f, native);
  } else {
    writer_.plan(f, layout, color, rotation_ != 0);
  }
  const FrameLayout shown = rotation_ ? rotatedLayout(layout, rotation_) : layout;
  HostFrame* out = queue_->peekWritable();
  if (!out || seekPending_ || frameSerial_ != requestedSerial_) return;  // aborted, or a seek came meanwhile
  out->info = FrameInfo{};
  if (onDevice) {
    describeSurface(*out, f, surface);
  } else {
    out->reserve(shown.bytes);
    if (rotation_) {
      if (unrotated_.size() < layout.bytes) unrotated_.resize(layout.bytes);
      writer_.write(f, layout, unrotated_.data());
      rotateFrame(layout, unrotated_.data(), rotation_, out->data());
    } else {
      writer_.write(f, layout, out->data());
    }
  }
  out->info.layout = shown;
  out->info.color = color;
  out->info.ptsUs = ptsUs;
  out->info.durationUs = durationUs;
  out->info.index = index_++;
  out->info.serial = frameSerial_;
  queue_->push();
  ++framesThisPass_;
  countFrame();

  const bool colorChanged = colorReport_.note(f, av::frameMatrix(f));
  const char* name = av_get_pix_fmt_name(onDevice ? dec_->sw_pix_fmt : AVPixelFormat(f.format));
  if ((name && lastFormatName_ != name) || shown.width != info_.width || shown.height != info_.height ||
      colorChanged || onDevice != lastOnDevice_ || info_.surfaceFormat.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    info_.width = shown.width;
    info_.height = shown.height;
    if (name) info_.pixelFormat = lastFormatName_ = name;
    info_.decodePath = onDevice ? "nvdec" : "software";
    info_.surfaceFormat = pixelFormatName(shown.format);
    info_.colorMatrix = colorReport_.matrixText();
    info_.hdr = colorReport_.hdrText();
    lastOnDevice_ = onDevice;
  }
}

// An nvdec frame goes into the queue as it is: the slot keeps a reference to the
// decoder's surface (released when the consumer pops it) and an event recorded on the
// decoder's stream after its copy into that surface.
void FfmpegSource::describeSurface(HostFrame& out, const AVFrame& f, PixelFormat format) {
  AVFrame* ref = av_frame_clone(&f);
  if (!ref) throw std::bad_alloc();
  out.holdSurface(std::shared_ptr<void>(ref, [](void* p) {
    AVFrame* q = static_cast<AVFrame*>(p);
    av_frame_free(&q);
  }));
  Event& ready = out.readyEvent();
  ready.record(hw_->stream());
  DeviceSurface& d = out.info.device;
  d.planes.format = format;
  d.planes.width = f.width;
  d.planes.height = f.height;
  for (int p = 0; p < kMaxPlanes && ref->data[p]; ++p) {
    d.planes.data[p] = ref->data[p];
    d.planes.pitch[p] = size_t(ref->linesize[p]);
  }
  d.ready = ready;
}

void FfmpegSource::countFrame() {
  ++framesDecoded_;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  ++windowFrames_;
  const double elapsed = std::chrono::duration<double>(now - windowStart_).count();
  if (elapsed >= 1.0) {
    decodeFps_ = windowFrames_ / elapsed;
    windowFrames_ = 0;
    windowStart_ = now;
  }
}

void FfmpegSource::pushEndOfStream() {
  if (!queue_) return;
  HostFrame* out = queue_->peekWritable();
  if (!out) return;
  out->info = FrameInfo{};
  out->info.ptsUs = endUs_;
  out->info.index = index_;
  out->info.serial = frameSerial_;
  out->info.endOfStream = true;
  queue_->push();
}

bool FfmpegSource::waitForSeekOrStop() {
  std::unique_lock<std::mutex> lock(mutex_);
  cond_.wait(lock, [&] { return abort_ || seekPending_; });
  return !abort_;
}

}  // namespace vp
