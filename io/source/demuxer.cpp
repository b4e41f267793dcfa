#include "io/source/demuxer.h"

#include "io/capture/input_devices.h"

extern "C" {
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace vp {
namespace {

// How long the demuxer sleeps while the queues are full before looking again: the
// consumers take packets without telling it (ffplay waits 10 ms too).
constexpr std::chrono::milliseconds kFullWait{10};
// Live network streams probe this much at most (ffplay's low-latency flags probe 32 bytes;
// that leaves the picture size unknown until the first frame, this finds it on the first
// keyframe).
constexpr int64_t kLiveAnalyzeUs = 500'000;
constexpr int64_t kLiveProbeBytes = 1 << 20;

// Input formats that live in libavdevice/libavfilter, named for a clear error
// in builds without them.
bool isDeviceFormatName(const std::string& f) {
  for (const char* d : {"v4l2", "video4linux2", "lavfi", "x11grab", "kmsgrab", "fbdev", "alsa", "pulse",
                        "oss", "jack", "sndio", "openal", "decklink", "dshow", "avfoundation", "gdigrab"})
    if (f == d) return true;
  return false;
}

bool isCaptureFormat(const AVInputFormat* f) {
  return f && f->priv_class && AV_IS_INPUT_DEVICE(f->priv_class->category) && std::strcmp(f->name, "lavfi") != 0;
}

// A memory input is self-contained: playlists and references inside it
// (hls, concat, dash, mov external references ...) may not open files or URLs.
int refuseNestedOpen(AVFormatContext*, AVIOContext**, const char*, int, AVDictionary**) {
  return AVERROR(EPERM);
}

// The clockwise rotation (0, 90, 180, 270) that shows the stream upright, from
// its display matrix; 0 without one or for angles off a quarter turn (logged).
int displayRotation(const AVStream& st, const std::string& url) {
  size_t size = 0;
  const uint8_t* m = av_stream_get_side_data(&st, AV_PKT_DATA_DISPLAYMATRIX, &size);
  if (!m || size < 9 * sizeof(int32_t)) return 0;
  // av_display_rotation_get: counterclockwise degrees; the player turns it back.
  double theta = -av_display_rotation_get(reinterpret_cast<const int32_t*>(m));
  if (std::isnan(theta)) return 0;
  theta -= 360 * std::floor(theta / 360 + 0.9 / 360);  // into [0, 360), as ffmpeg's autorotate
  const double quarter = 90 * std::round(theta / 90);
  if (std::fabs(theta - quarter) > 2) {
    spdlog::warn("'{}': display rotation of {:.1f} degrees ignored (not a quarter turn)", url, theta);
    return 0;
  }
  return int(quarter) % 360;
}

}  // namespace

Demuxer::Demuxer(const SourceOptions& options, SourceControl& control)
    : options_(options), control_(control), openTimeoutUs_(options.openTimeoutUs) {
  av::initLibav();
  const bool haveDevices = registerInputDevices();
  std::string format = options_.format;
  if (options_.memory) {
    if (options_.memory->empty()) fail("input is empty");
  } else {
    if (format.empty() && options_.url.rfind("/dev/video", 0) == 0) format = "v4l2";
    if (format.empty() && options_.url.empty()) throw SourceError("no input given");
    if (!format.empty() && isDeviceFormatName(format) && !haveDevices)
      failOpen("built without capture-device/lavfi support (-f " + format + ")");
    const bool capture = format == "v4l2" || format == "video4linux2";
    if (format.empty() || capture) checkPath(capture);
  }
  openInput(format);
  selectVideo();
  selectAudio();
}

void Demuxer::fail(const std::string& reason) const { throw SourceError("'" + options_.url + "': " + reason); }

void Demuxer::failOpen(const std::string& reason) const {
  throw SourceError("cannot open '" + options_.url + "': " + reason);
}

// The obvious failures, checked before FFmpeg so the message is exact.
void Demuxer::checkPath(bool captureDevice) const {
  const std::string& url = options_.url;
  if (!captureDevice && url.find("://") != std::string::npos) return;  // a network/protocol URL
  struct stat st {};
  if (::stat(url.c_str(), &st) != 0) {
    const int err = errno;
    if (captureDevice) fail("no such capture device");
    if (err == ENOENT && url.find('%') != std::string::npos) return;  // an image2 pattern
    failOpen(std::strerror(err));
  }
  if (captureDevice) {
    if (!S_ISCHR(st.st_mode)) fail("not a capture device");
    return;
  }
  if (S_ISDIR(st.st_mode)) fail("is a directory");
  if (::access(url.c_str(), R_OK) != 0) failOpen(std::strerror(errno));
  if (S_ISREG(st.st_mode) && st.st_size == 0) fail("file is empty");
}

void Demuxer::openInput(const std::string& format) {
  const AVInputFormat* forced = nullptr;
  if (!format.empty() && !(forced = av_find_input_format(format.c_str())))
    fail("unknown input format '" + format + "'");
  device_ = forced && forced->priv_class && AV_IS_INPUT_DEVICE(forced->priv_class->category);
  const bool capture = isCaptureFormat(forced);
  network_ = options_.memory ? "" : liveStreamKind(options_.url);
  decideLive(capture);

  AVFormatContext* ctx = avformat_alloc_context();
  if (!ctx) throw std::bad_alloc();
  ctx->interrupt_callback = {&Demuxer::interrupted, this};
  ctx->opaque = &control_.inputTap;
  if (options_.memory) {
    memoryIo_ = av::openMemoryInput(options_.memory);
    ctx->pb = memoryIo_.get();
    ctx->flags |= AVFMT_FLAG_CUSTOM_IO;  // avformat_close_input leaves pb to memoryIo_
    ctx->io_open = refuseNestedOpen;
  }
  AVDictionary* opts = nullptr;
  for (const auto& [key, value] : options_.deviceOptions) av_dict_set(&opts, key.c_str(), value.c_str(), 0);
  if (live_ && !network_.empty()) {
    // Probe briefly: stream parameters come with the first keyframe, and what the probe
    // read is decoded at once and overtaken (the newest frame wins), not shown late.
    ctx->max_analyze_duration = kLiveAnalyzeUs;
    ctx->probesize = kLiveProbeBytes;
    // A UDP receive buffer that overflows while the player is busy loses packets, not the stream.
    if (network_ == "udp") av_dict_set(&opts, "overrun_nonfatal", "1", AV_DICT_DONT_OVERWRITE);
  }
  if (!network_.empty()) setDeadline(openTimeoutUs_);
  opening_ = true;
  const int r = avformat_open_input(&ctx, options_.url.c_str(), forced, &opts);  // frees ctx on failure
  opening_ = r >= 0;
  for (const AVDictionaryEntry* e = nullptr; r >= 0 && (e = av_dict_get(opts, "", e, AV_DICT_IGNORE_SUFFIX));)
    spdlog::warn("'{}': option '{}' was not used", options_.url, e->key);
  av_dict_free(&opts);
  if (r < 0) {
    setDeadline(0);
    if (timedOut_.load()) fail(silenceText(openTimeoutUs_));
    if (capture && (r == AVERROR(ENOENT) || r == AVERROR(ENODEV) || r == AVERROR(ENXIO)))
      fail("no such capture device");
    if (capture && r == AVERROR(EBUSY)) fail("device busy (" + av::errorText(r) + ")");
    if (forced && std::strcmp(forced->name, "lavfi") == 0) fail("invalid lavfi graph (" + av::errorText(r) + ")");
    if (r == AVERROR_INVALIDDATA) fail("not a video (" + av::errorText(r) + ")");
    failOpen(av::errorText(r));
  }
  fmt_.reset(ctx);
  // A text file probes as the "tty" (ANSI art) demuxer; nobody means that unless forced.
  if (!forced && std::strcmp(fmt_->iformat->name, "tty") == 0) fail("not a video (a text file)");
  const int s = avformat_find_stream_info(fmt_.get(), nullptr);
  setDeadline(0);
  opening_ = false;
  if (s < 0) fail(timedOut_.load() ? silenceText(openTimeoutUs_)
                                   : "cannot read stream information (" + av::errorText(s) + ")");
  // An HLS playlist without an end is a live broadcast: no duration to seek in.
  if (options_.latency == LatencyMode::Auto && !live_ && std::strcmp(fmt_->iformat->name, "hls") == 0 &&
      fmt_->duration <= 0) {
    liveReason_ = "live HLS";
    live_ = true;
  }
}

// The best video stream that is not a cover picture; every other stream is discarded.
void Demuxer::selectVideo() {
  const AVCodec* codec = nullptr;
  const AVStream* firstVideo = nullptr;
  int coverArt = 0;
  for (unsigned i = 0; i < fmt_->nb_streams; ++i) {
    AVStream* st = fmt_->streams[i];
    if (st->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
    if (st->disposition & AV_DISPOSITION_ATTACHED_PIC) {
      ++coverArt;
      st->discard = AVDISCARD_ALL;  // never read
      continue;
    }
    if (!firstVideo) firstVideo = st;
  }
  if (!firstVideo) fail(coverArt ? "no video stream (only cover art)" : "no video stream");
  stream_ = av_find_best_stream(fmt_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (stream_ >= 0 && (fmt_->streams[stream_]->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
    stream_ = firstVideo->index;
    codec = avcodec_find_decoder(firstVideo->codecpar->codec_id);
  }
  if (stream_ == AVERROR_DECODER_NOT_FOUND || (stream_ >= 0 && !codec)) {
    const AVStream* st = stream_ >= 0 ? fmt_->streams[stream_] : firstVideo;
    fail(std::string("unsupported codec '") + avcodec_get_name(st->codecpar->codec_id) + "'");
  }
  if (stream_ < 0) fail("no video stream");
  const AVStream* st = fmt_->streams[stream_];
  for (unsigned i = 0; i < fmt_->nb_streams; ++i)
    if (int(i) != stream_) fmt_->streams[i]->discard = AVDISCARD_ALL;  // skip audio etc. in the demuxer

  // Decoders refuse larger pictures themselves; a damaged or hostile header is refused here.
  const int width = st->codecpar->width, height = st->codecpar->height;
  if (width < 0 || height < 0 || int64_t(width) * height > options_.maxPixels)
    fail("frame too large: " + std::to_string(width) + "x" + std::to_string(height) + " (at most " +
         std::to_string(options_.maxPixels) + " pixels)");

  auto stream = std::make_shared<VideoStream>();
  AVCodecParameters* params = avcodec_parameters_alloc();
  if (!params) throw std::bad_alloc();
  stream->params.reset(params, [](AVCodecParameters* p) { avcodec_parameters_free(&p); });
  if (avcodec_parameters_copy(params, st->codecpar) < 0) throw std::bad_alloc();
  stream->codec = codec;
  stream->timeBase = st->time_base;
  const AVRational rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
  stream->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
  stream->rotation = options_.autorotate ? displayRotation(*st, options_.url) : 0;
  videoStream_ = std::move(stream);
  if (st->start_time != AV_NOPTS_VALUE) {
    originTs_ = st->start_time;
    haveOrigin_ = true;
  }
  const std::string iname = fmt_->iformat->name;
  seekable_ = !live_ && !device_ && ((fmt_->pb && (fmt_->pb->seekable & AVIO_SEEKABLE_NORMAL)) || iname == "image2");
  publishInfo();
}

// The SourceInfo the container tells (the decoder refines size and formats per frame).
void Demuxer::publishInfo() {
  const AVStream* st = fmt_->streams[stream_];
  SourceInfo s;
  s.codec = avcodec_get_name(st->codecpar->codec_id);
  const char* pf = av_get_pix_fmt_name(AVPixelFormat(st->codecpar->format));
  s.pixelFormat = pf ? pf : "unknown";
  s.rotation = videoStream_->rotation;
  const bool quarter = s.rotation == 90 || s.rotation == 270;
  s.width = quarter ? st->codecpar->height : st->codecpar->width;
  s.height = quarter ? st->codecpar->width : st->codecpar->height;
  if (!device_) {
    if (st->duration > 0)
      s.durationUs = av_rescale_q(st->duration, st->time_base, av::kMicros);
    else if (fmt_->duration > 0)
      s.durationUs = av_rescale_q(fmt_->duration, AV_TIME_BASE_Q, av::kMicros);
  }
  control_.updateInfo([&](SourceInfo& info) {
    info.url = options_.url;
    info.codec = s.codec;
    info.pixelFormat = s.pixelFormat;
    info.rotation = s.rotation;
    info.width = s.width;
    info.height = s.height;
    info.fps = videoStream_->fps;
    info.durationUs = s.durationUs;
    info.seekable = seekable_;
    info.live = live_;
    info.liveReason = liveReason_;
  });
  spdlog::debug("opened '{}': {} {} {}x{} {:.3f} fps, {} s, {}", options_.url, fmt_->iformat->name, s.codec, s.width,
                s.height, videoStream_->fps, s.durationUs / 1e6, seekable_ ? "seekable" : "not seekable");
}

void Demuxer::selectAudio() {
  // Live inputs and lavfi graphs stay silent unless an audio input is named (a later step).
  if (!options_.audio || device_ || live_) return;
  try {
    audio_ = selectAudioTrack(fmt_.get(), stream_, options_.audioTrack, options_.url);
  } catch (const std::invalid_argument& e) {
    throw SourceError(e.what());
  }
  if (audio_) fmt_->streams[audio_.index]->discard = AVDISCARD_DEFAULT;  // selectVideo discarded it
}

void Demuxer::run(VideoPacketQueue& video, AudioPacketSink* audio) {
  video_ = &video;
  audioSink_ = audio_ ? audio : nullptr;
  try {
    readLoop();
  } catch (const std::exception& e) {
    control_.setFatal(e.what());
    // The video thread ends the stream: no pass follows (its end or stop ends the wait).
    video_->push(VideoPacket::marker(VideoPacket::Kind::End, serial_));
  }
}

void Demuxer::readLoop() {
  av::PacketPtr packet = av::makePacket();
  int consecutiveErrors = 0;
  // --reconnect on a live stream over a connection (tcp, rtsp, rtmp, srt, http): one that
  // goes silent is reopened, as its connection may be dead. Datagrams (udp, rtp) have no
  // connection to lose: reading simply goes on when the sender comes back, which is also
  // the fastest way back (a reopen would probe again and wait for a keyframe).
  const bool connectionless = network_ == "udp" || network_ == "rtp" || network_ == "sdp";
  const bool watchStall = reconnectsAtEnd() && !connectionless && options_.stallTimeoutUs > 0;
  while (!control_.aborted()) {
    applySeek();
    if (queuesFull()) {
      if (!control_.waitForRoom(kFullWait)) return;  // the video thread has ended
      continue;
    }
    if (watchStall) setDeadline(options_.stallTimeoutUs);
    const int r = av_read_frame(fmt_.get(), packet.get());
    if (watchStall) setDeadline(0);
    if (r == AVERROR(EAGAIN)) {  // a non-blocking device with nothing yet
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (r < 0) {
      if (control_.aborted()) return;
      if (r == AVERROR_EOF && reconnectsAtEnd()) {
        if (reconnect("stream ended")) continue;
        return;  // stopped while waiting
      }
      if (r != AVERROR_EOF && !readFailed(r, consecutiveErrors)) continue;
      if (control_.seekPending()) continue;  // the end of what a seek replaces
      if (landing_.reseekAtEnd()) {  // a seek landed past the last keyframe before its target
        reseek();
        continue;
      }
      video_->push(VideoPacket::marker(VideoPacket::Kind::End, serial_));
      int64_t restartOffsetUs = 0;
      switch (control_.waitAfterEnd(serial_, restartOffsetUs)) {
        case SourceControl::AfterEnd::Stop: return;
        case SourceControl::AfterEnd::Seek: continue;  // carried out at the top of the loop
        case SourceControl::AfterEnd::Restart:  // the next --loop pass, its audio offset by where the video ended
          loopOffsetUs_ = restartOffsetUs;
          spdlog::debug("'{}': loop: the next pass starts at {:.6f} s", options_.url, double(loopOffsetUs_) * 1e-6);
          seekFormat(0);
          continue;
      }
    }
    consecutiveErrors = 0;
    route(*packet);
    av_packet_unref(packet.get());
  }
}

// Full: wait before reading on (io/source/video_packet_queue.h).
bool Demuxer::queuesFull() const {
  const PacketQueueLevel video = video_->level();
  if (live_) return video.packets >= kLivePackets;
  if (!audioSink_) return packetQueuesFull(video, nullptr, options_.maxQueuedBytes);
  const PacketQueueLevel audio = audioSink_->level();
  return packetQueuesFull(video, &audio, options_.maxQueuedBytes);
}

// A packet read: the video's into the queue (unless a seek is landing before it), the
// audio track's to the sink (held while landing); other streams are discarded unread.
void Demuxer::route(AVPacket& packet) {
  if (packet.stream_index == audio_.index) {
    admitAudio(packet);
    return;
  }
  if (packet.stream_index != stream_) return;
  noteOrigin(packet);
  if (!admitVideo(packet)) return;
  VideoPacket v;
  v.arrivalUs = steadyMicros();
  v.packet.reset(av_packet_alloc());
  if (!v.packet) throw std::bad_alloc();
  av_packet_move_ref(v.packet.get(), &packet);
  v.packet->time_base = fmt_->streams[stream_]->time_base;
  v.serial = serial_;
  if (haveOrigin_) v.originTs = originTs_;
  video_->push(std::move(v));
}

// Without a start time in the container, time 0 is the first video timestamp read.
void Demuxer::noteOrigin(const AVPacket& p) {
  if (haveOrigin_) return;
  const int64_t ts = p.pts != AV_NOPTS_VALUE ? p.pts : p.dts;
  if (ts == AV_NOPTS_VALUE) return;
  originTs_ = ts;
  haveOrigin_ = true;
}

// An audio packet to the sink, stamped with the serial and --loop offset it was read under.
void Demuxer::passAudio(const AVPacket& packet) {
  if (!audioSink_ || control_.seekPending()) return;  // read before a seek: stale
  AudioPacket p;
  p.packet.reset(av_packet_clone(&packet));
  if (!p.packet) throw std::bad_alloc();
  p.packet->time_base = fmt_->streams[audio_.index]->time_base;
  // One origin for both streams: the video's first timestamp; plus this pass's loop offset.
  const int64_t originUs = haveOrigin_ ? av_rescale_q(originTs_, fmt_->streams[stream_]->time_base, av::kMicros) : 0;
  p.offsetUs = loopOffsetUs_ - originUs;
  p.serial = serial_;
  audioSink_->audioPacket(std::move(p));
}

}  // namespace vp
