#include "io/source/video_decoder.h"

#include "io/video/rotate.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include "gpu/cuda/cuda_check.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vp {
namespace {

constexpr size_t kDeviceRowAlign = 256;  // rows of a device copy start aligned, as the decoder's did

}  // namespace

VideoDecoder::VideoDecoder(const SourceOptions& options, SourceControl& control, const VideoStream& stream,
                           bool device, bool live, bool seekable)
    : options_(options), control_(control), device_(device), live_(live), loops_(options.loop && seekable) {
  try {
    open(stream);
  } catch (const std::runtime_error& e) {
    throw SourceError("'" + options_.url + "': " + e.what());
  }
}

// A decoder for `stream` (at open, and when --reconnect brings a device back); throws
// std::runtime_error with the reason.
void VideoDecoder::open(const VideoStream& stream) {
  dec_.reset();  // before hw_, which it refers to
  params_ = stream.params;
  codec_ = stream.codec;
  timeBase_ = stream.timeBase;
  fps_ = stream.fps;
  rotation_ = stream.rotation;
  reported_ = false;
  setUpHardware();
  openCodec(hw_ != nullptr);
}

// --hwdec: makes hw_ when nvdec can be tried; otherwise says why once (auto) or
// fails (nvdec).
void VideoDecoder::setUpHardware() {
  hw_.reset();
  if (options_.hwdec == HwDecodeMode::No) return;
  std::string why;
  if (rotation_ != 0)
    why = "frames are turned upright (autorotate) in host memory";
  else if (device_)
    why = "capture devices and lavfi graphs are decoded in software";
  else if (options_.hwdec == HwDecodeMode::Auto && !hwdecCodecListed(avcodec_get_name(codec_->id), options_.hwdecCodecs))
    why = std::string(avcodec_get_name(codec_->id)) + " is not in --hwdec-codecs (" + options_.hwdecCodecs + ")";
  else
    why = av::HwDecode::unsupportedReason(codec_);
  if (why.empty()) {
    try {
      hw_ = std::make_unique<av::HwDecode>(options_.gpu);
      return;
    } catch (const std::exception& e) {
      why = std::string("no hardware decoder (") + e.what() + ")";
    }
  }
  if (options_.hwdec == HwDecodeMode::Nvdec) throw std::runtime_error("--hwdec nvdec: " + why);
  // Capture devices and lavfi graphs are never hardware-decoded: no notice for them.
  if (device_)
    spdlog::debug("'{}': decoding in software: {}", options_.url, why);
  else
    spdlog::info("'{}': decoding in software: {}", options_.url, why);
}

// A decoder context for codec_ on the stream: hardware (hw_ attached, one thread) or
// software (frame + slice threads, or slices only for live inputs).
void VideoDecoder::openCodec(bool hardware) {
  dec_.reset(avcodec_alloc_context3(codec_));
  if (!dec_) throw std::bad_alloc();
  int r = avcodec_parameters_to_context(dec_.get(), params_.get());
  if (r < 0) throw std::runtime_error("bad codec parameters (" + av::errorText(r) + ")");
  // Decoders refuse larger pictures before allocating them (a damaged header or a
  // size change mid-stream); such frames are counted as decode errors.
  dec_->max_pixels = options_.maxPixels;
  dec_->pkt_timebase = timeBase_;
  dec_->opaque = &control_.decoderTap;
  control_.decoderTap.hw = nullptr;
  if (hardware) {
    hw_->attach(dec_.get(), control_.decoderTap);
  } else {
    dec_->thread_count = options_.decoderThreads;
    // Frame threading adds one frame of latency per thread: live inputs use slices only.
    dec_->thread_type = live_ ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
  }
  if ((r = avcodec_open2(dec_.get(), codec_, nullptr)) < 0)
    throw std::runtime_error(std::string("cannot open the ") + codec_->name + " decoder (" + av::errorText(r) + ")");
  framesFromCodec_ = 0;
}

void VideoDecoder::run(VideoPacketQueue& packets, FrameQueue& frames) {
  frames_ = &frames;
  try {
    if (hw_) hw_->bindThread();  // events on the decoder's stream, surfaces on its device
    frame_ = av::makeFrame();
    VideoPacket p;
    while (!control_.aborted() && packets.pop(p)) {
      if (control_.demuxerWaiting() && packets.level().packets <= kRefillPackets) control_.roomMade();
      if (p.kind == VideoPacket::Kind::Seek) {
        startSerial(p.serial, p.targetUs);
        continue;
      }
      if (p.kind == VideoPacket::Kind::Stream) {
        open(*p.stream);
        if (hw_) hw_->bindThread();
        continue;
      }
      if (p.serial != frameSerial_ || stale()) continue;  // read before a seek
      switch (p.kind) {
        case VideoPacket::Kind::Data:
          originTs_ = p.originTs;
          // Reordered with the packet's frame (frame threads and B-frames included):
          // the frame's arrival time comes out in AVFrame::reordered_opaque.
          dec_->reordered_opaque = p.arrivalUs;
          decodePacket(p.packet.get());
          break;
        case VideoPacket::Kind::End: endOfPass(); break;
        default: decodePacket(nullptr); break;  // Drain
      }
    }
  } catch (const std::exception& e) {
    control_.setFatal(e.what());
    pushEndOfStream();
  }
  control_.videoDone();
}

// Frames decoded under an older serial than the latest seek request are stale.
bool VideoDecoder::stale() const { return control_.seekPending() || frameSerial_ != control_.requestedSerial(); }

// The first packet of a seek: the decoder starts afresh, frames carry the new serial and
// are shown from the target on, timed from the file start again.
void VideoDecoder::startSerial(uint32_t serial, int64_t targetUs) {
  avcodec_flush_buffers(dec_.get());
  framesThisPass_ = 0;
  frameSerial_ = serial;
  loopOffsetUs_ = 0;
  skipBeforeUs_ = targetUs;
  nextPtsUs_ = endUs_ = targetUs;
  frames_->flush();  // frames pushed between the request and now
}

// The end of the input (or of a --loop pass): drain the decoder, then restart (--loop)
// or end the stream; the demuxer waits for the verdict.
void VideoDecoder::endOfPass() {
  decodePacket(nullptr);
  if (control_.aborted() || frameSerial_ != control_.requestedSerial()) return;  // a seek replaces what follows
  if (loops_ && framesThisPass_ > 0 && control_.fatal().empty()) {
    avcodec_flush_buffers(dec_.get());
    loopOffsetUs_ = endUs_;  // the next pass continues where this one ended
    nextPtsUs_ = endUs_;
    framesThisPass_ = 0;
    control_.passEnded(frameSerial_, true, loopOffsetUs_);
    return;
  }
  // A stream that ends without a single frame is an error, not an empty success
  // (after a seek, frames may have been skipped: no verdict then; devices end as they do).
  if (!decodedAny_ && frameSerial_ == 0 && !device_) {
    const int64_t errors = control_.errors();
    control_.setFatal(errors > 0 ? "no frame could be decoded (" + std::to_string(errors) + " decode errors)"
                                 : "the video stream has no frames");
  }
  pushEndOfStream();
  control_.passEnded(frameSerial_, false, 0);
}

// Sends one packet (nullptr: drain) and writes every frame that comes out.
void VideoDecoder::decodePacket(const AVPacket* packet) {
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
    control_.countError();
    spdlog::debug("'{}': decode error: {}", options_.url, av::errorText(r));
  }
  receiveFrames();
}

// The hardware decoder went to software (get_format without CUDA): --hwdec nvdec
// ends with the reason; auto says it once and, when nothing was decoded yet, reopens
// the decoder in software with all its threads (the hardware one has one).
void VideoDecoder::checkHardware(const AVPacket* packet) {
  hwFellBack_ = true;
  if (options_.hwdec == HwDecodeMode::Nvdec) throw std::runtime_error("--hwdec nvdec: " + hw_->fallbackReason());
  spdlog::info("'{}': decoding in software: {}", options_.url, hw_->fallbackReason());
  if (framesFromCodec_ == 0 && packet) openCodec(false);
}

void VideoDecoder::receiveFrames() {
  while (!control_.aborted()) {
    const int r = avcodec_receive_frame(dec_.get(), frame_.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
    if (r < 0) {
      control_.countError();
      spdlog::debug("'{}': decode error: {}", options_.url, av::errorText(r));
      return;
    }
    if (frame_->decode_error_flags || (frame_->flags & AV_FRAME_FLAG_CORRUPT)) control_.countError();
    decodedAny_ = true;
    ++framesFromCodec_;
    emitFrame(*frame_);
    av_frame_unref(frame_.get());
  }
}

void VideoDecoder::emitFrame(const AVFrame& f) {
  if (stale()) return;  // decoded before a seek
  const int64_t ts = f.best_effort_timestamp != AV_NOPTS_VALUE ? f.best_effort_timestamp : f.pts;
  int64_t durationUs = 0;
  if (f.pkt_duration > 0)
    durationUs = av_rescale_q(f.pkt_duration, timeBase_, av::kMicros);
  else if (fps_ > 0)
    durationUs = int64_t(1e6 / fps_ + 0.5);
  int64_t ptsUs = nextPtsUs_;
  if (ts != AV_NOPTS_VALUE)
    ptsUs = av_rescale_q(ts - (originTs_ != AV_NOPTS_VALUE ? originTs_ : 0), timeBase_, av::kMicros) + loopOffsetUs_;
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
  HostFrame* out = frames_->peekWritable();
  if (!out || stale()) return;  // aborted, or a seek came meanwhile
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
  out->info.arrivalUs = f.reordered_opaque;
  out->info.decodedUs = steadyMicros();
  frames_->push();
  ++framesThisPass_;
  control_.countFrame();
  reportFormat(f, shown, onDevice);
}

// SourceInfo follows the frames: size, pixel format, decode path, colour (on changes only).
void VideoDecoder::reportFormat(const AVFrame& f, const FrameLayout& shown, bool onDevice) {
  const bool colorChanged = colorReport_.note(f, av::frameMatrix(f));
  const char* name = av_get_pix_fmt_name(onDevice ? dec_->sw_pix_fmt : AVPixelFormat(f.format));
  if (reported_ && !(name && lastFormatName_ != name) && shown.width == lastWidth_ && shown.height == lastHeight_ &&
      !colorChanged && onDevice == lastOnDevice_)
    return;
  reported_ = true;
  if (name) lastFormatName_ = name;
  lastWidth_ = shown.width;
  lastHeight_ = shown.height;
  lastOnDevice_ = onDevice;
  control_.updateInfo([&](SourceInfo& info) {
    info.width = shown.width;
    info.height = shown.height;
    if (name) info.pixelFormat = name;
    info.decodePath = onDevice ? "nvdec" : "software";
    info.surfaceFormat = pixelFormatName(shown.format);
    info.colorMatrix = colorReport_.matrixText();
    info.hdr = colorReport_.hdrText();
  });
}

// An nvdec picture is copied into the queue slot's own device memory on the decoder's
// stream, and the decoder's surface goes back when `f` is unreferenced (right after this
// call): FFmpeg 5.1 hands out its surfaces themselves, and a held one keeps a decode
// surface, a mapped output surface and a pool buffer (~37 MB at 4K) where the copy costs
// one 12 MB buffer and ~10 µs of copy. The decode thread waits for the copy before the
// surface is released, so the slot's frame is complete when it is pushed.
void VideoDecoder::describeSurface(HostFrame& out, const AVFrame& f, PixelFormat format) {
  const FrameLayout layout = frameLayout(format, f.width, f.height, kDeviceRowAlign);
  uint8_t* const copy = out.deviceCopy(layout.bytes).as<uint8_t>();
  const cudaStream_t stream = hw_->stream();
  for (int p = 0; p < layout.planes; ++p) {
    const PlaneLayout& pl = layout.plane[p];
    if (!f.data[p] || size_t(f.linesize[p]) < pl.widthBytes)
      throw std::runtime_error("NVDEC surface plane " + std::to_string(p) + " is missing or too narrow");
    VP_CUDA_CHECK(cudaMemcpy2DAsync(copy + pl.offset, pl.pitch, f.data[p], size_t(f.linesize[p]), pl.widthBytes,
                                    size_t(pl.rows), cudaMemcpyDeviceToDevice, stream));
  }
  Event& ready = out.readyEvent();
  ready.record(stream);
  ready.synchronize();
  out.info.device.planes = planarView(layout, copy);
  out.info.device.ready = ready;  // complete already; readers may wait on it as on any other
}

void VideoDecoder::pushEndOfStream() {
  if (!frames_) return;
  HostFrame* out = frames_->peekWritable();
  if (!out) return;
  out->info = FrameInfo{};
  out->info.ptsUs = endUs_;
  out->info.index = index_;
  out->info.serial = frameSerial_;
  out->info.endOfStream = true;
  frames_->push();
}

}  // namespace vp
