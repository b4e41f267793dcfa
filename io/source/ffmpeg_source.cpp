#include "io/source/ffmpeg_source.h"

#include "io/capture/input_devices.h"

extern "C" {
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace vp {
namespace {

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

std::unique_ptr<Source> openSource(const SourceOptions& options) {
  return std::make_unique<FfmpegSource>(options);
}

SourceOptions defaultSourceOptions() {
  // Soft radial colour gradients that drift, with a moving test card on top:
  // smooth regions plus hard edges and saturated bars, so K-means segments it
  // visibly and blur shows. 20 s, so a headless run ends by itself. The
  // gradients are drawn at half size and scaled up (smooth, so it looks the
  // same): ~2x cheaper, ~190 fps on 2 cores.
  SourceOptions o;
  o.format = "lavfi";
  o.url =
      "gradients=s=640x360:r=30:d=20:speed=0.02:type=radial:n=6:"
      "c0=0x1e3a8a:c1=0x06b6d4:c2=0xfacc15:c3=0xef4444:c4=0xa855f7:c5=0x22c55e,"
      "scale=1280x720:flags=bilinear[bg];"
      "testsrc2=s=400x224:r=30:d=20[fg];"
      "[bg][fg]overlay=x='(W-w)/2+360*sin(0.5*t)':y='(H-h)/2+200*cos(0.7*t)':shortest=1,format=yuv420p[out0]";
  return o;
}

FfmpegSource::FfmpegSource(const SourceOptions& options) : options_(options) {
  av::initLibav();
  const bool haveDevices = registerInputDevices();
  std::string format = options_.format;
  if (options_.memory) {
    if (options_.memory->empty()) fail("input is empty");
    openInput(format);
    openDecoder();
    openAudio();
    return;
  }
  if (format.empty() && options_.url.rfind("/dev/video", 0) == 0) format = "v4l2";
  if (format.empty() && options_.url.empty()) throw SourceError("no input given");
  if (!format.empty() && isDeviceFormatName(format) && !haveDevices)
    failOpen("built without capture-device/lavfi support (-f " + format + ")");
  const bool capture = format == "v4l2" || format == "video4linux2";
  if (format.empty() || capture) checkPath(capture);
  openInput(format);
  openDecoder();
  openAudio();
}

FfmpegSource::~FfmpegSource() { stop(); }

void FfmpegSource::fail(const std::string& reason) const { throw SourceError("'" + options_.url + "': " + reason); }

void FfmpegSource::failOpen(const std::string& reason) const {
  throw SourceError("cannot open '" + options_.url + "': " + reason);
}

// The obvious failures, checked before FFmpeg so the message is exact.
void FfmpegSource::checkPath(bool captureDevice) const {
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

int FfmpegSource::interrupted(void* self) { return static_cast<FfmpegSource*>(self)->abort_.load() ? 1 : 0; }

void FfmpegSource::openInput(const std::string& format) {
  const AVInputFormat* forced = nullptr;
  if (!format.empty() && !(forced = av_find_input_format(format.c_str())))
    fail("unknown input format '" + format + "'");
  device_ = forced && forced->priv_class && AV_IS_INPUT_DEVICE(forced->priv_class->category);
  const bool capture = isCaptureFormat(forced);
  live_ = options_.live || capture;

  AVFormatContext* ctx = avformat_alloc_context();
  if (!ctx) throw std::bad_alloc();
  ctx->interrupt_callback = {&FfmpegSource::interrupted, this};
  ctx->opaque = &tap_;
  if (options_.memory) {
    memoryIo_ = av::openMemoryInput(options_.memory);
    ctx->pb = memoryIo_.get();
    ctx->flags |= AVFMT_FLAG_CUSTOM_IO;  // avformat_close_input leaves pb to memoryIo_
    ctx->io_open = refuseNestedOpen;
  }
  AVDictionary* opts = nullptr;
  for (const auto& [key, value] : options_.deviceOptions) av_dict_set(&opts, key.c_str(), value.c_str(), 0);
  const int r = avformat_open_input(&ctx, options_.url.c_str(), forced, &opts);  // frees ctx on failure
  for (const AVDictionaryEntry* e = nullptr; (e = av_dict_get(opts, "", e, AV_DICT_IGNORE_SUFFIX));)
    spdlog::warn("'{}': option '{}' was not used", options_.url, e->key);
  av_dict_free(&opts);
  if (r < 0) {
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
  if (s < 0) fail("cannot read stream information (" + av::errorText(s) + ")");
}

void FfmpegSource::openDecoder() {
  // The best video stream that is not a cover picture.
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
  AVStream* st = fmt_->streams[stream_];
  for (unsigned i = 0; i < fmt_->nb_streams; ++i)
    if (int(i) != stream_) fmt_->streams[i]->discard = AVDISCARD_ALL;  // skip audio etc. in the demuxer

  checkSize(st->codecpar->width, st->codecpar->height);
  codec_ = codec;
  rotation_ = options_.autorotate ? displayRotation(*st, options_.url) : 0;
  setUpHardware();
  openCodec(hw_ != nullptr);

  const std::string iname = fmt_->iformat->name;
  info_.url = options_.url;
  info_.codec = avcodec_get_name(st->codecpar->codec_id);
  const char* pf = av_get_pix_fmt_name(AVPixelFormat(st->codecpar->format));
  info_.pixelFormat = pf ? pf : "unknown";
  const bool quarter = rotation_ == 90 || rotation_ == 270;
  info_.rotation = rotation_;
  info_.width = quarter ? st->codecpar->height : st->codecpar->width;
  info_.height = quarter ? st->codecpar->width : st->codecpar->height;
  AVRational rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
  info_.fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
  if (!device_) {
    if (st->duration > 0)
      info_.durationUs = av_rescale_q(st->duration, st->time_base, av::kMicros);
    else if (fmt_->duration > 0)
      info_.durationUs = av_rescale_q(fmt_->duration, AV_TIME_BASE_Q, av::kMicros);
  }
  info_.seekable = !live_ && !device_ &&
                   ((fmt_->pb && (fmt_->pb->seekable & AVIO_SEEKABLE_NORMAL)) || iname == "image2");
  if (st->start_time != AV_NOPTS_VALUE) {
    originTs_ = st->start_time;
    haveOrigin_ = true;
  }
  spdlog::debug("opened '{}': {} {} {}x{} {:.3f} fps, {} s, {}", options_.url, iname, info_.codec, info_.width,
                info_.height, info_.fps, info_.durationUs / 1e6, info_.seekable ? "seekable" : "not seekable");
}

// --hwdec: makes hw_ when nvdec can be tried; otherwise says why once (auto) or
// fails (nvdec).
void FfmpegSource::setUpHardware() {
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
  if (options_.hwdec == HwDecodeMode::Nvdec) fail("--hwdec nvdec: " + why);
  // Capture devices and lavfi graphs are never hardware-decoded: no notice for them.
  if (device_)
    spdlog::debug("'{}': decoding in software: {}", options_.url, why);
  else
    spdlog::info("'{}': decoding in software: {}", options_.url, why);
}

// A decoder context for codec_ on the selected stream: hardware (hw_ attached, one
// thread) or software (frame + slice threads, or slices only for live inputs).
void FfmpegSource::openCodec(bool hardware) {
  const AVStream* st = fmt_->streams[stream_];
  dec_.reset(avcodec_alloc_context3(codec_));
  if (!dec_) throw std::bad_alloc();
  int r = avcodec_parameters_to_context(dec_.get(), st->codecpar);
  if (r < 0) fail("bad codec parameters (" + av::errorText(r) + ")");
  // Decoders refuse larger pictures before allocating them (a damaged header or a
  // size change mid-stream); such frames are counted as decode errors.
  dec_->max_pixels = options_.maxPixels;
  dec_->pkt_timebase = st->time_base;
  dec_->opaque = &tap_;
  tap_.hw = nullptr;
  if (hardware) {
    hw_->attach(dec_.get(), tap_, options_.hwHeldFrames);
  } else {
    dec_->thread_count = options_.decoderThreads;
    // Frame threading adds one frame of latency per thread: live inputs use slices only.
    dec_->thread_type = live_ ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
  }
  if ((r = avcodec_open2(dec_.get(), codec_, nullptr)) < 0)
    fail(std::string("cannot open the ") + codec_->name + " decoder (" + av::errorText(r) + ")");
  framesFromCodec_ = 0;
}

void FfmpegSource::checkSize(int width, int height) const {
  if (width < 0 || height < 0 || int64_t(width) * height > options_.maxPixels)
    fail("frame too large: " + std::to_string(width) + "x" + std::to_string(height) + " (at most " +
         std::to_string(options_.maxPixels) + " pixels)");
}

SourceInfo FfmpegSource::info() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return info_;
}

void FfmpegSource::start(FrameQueue& queue) {
  if (thread_.joinable() || queue_) throw std::logic_error("Source::start: already started");
  queue_ = &queue;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    windowStart_ = std::chrono::steady_clock::now();
  }
  split_ = audio_ && audioSink_;
  if (split_) {
    videoThread_ = std::thread([this] { videoRun(); });
    thread_ = std::thread([this] { demuxRun(); });
  } else {
    thread_ = std::thread([this] { run(); });
  }
}

void FfmpegSource::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abort_ = true;
  }
  cond_.notify_all();
  if (queue_) queue_->abort();
  videoPackets_.abort();
  if (thread_.joinable()) thread_.join();
  if (videoThread_.joinable()) videoThread_.join();
}

bool FfmpegSource::seek(int64_t targetUs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!info_.seekable || abort_) return false;
    seekTarget_ = targetUs < 0 ? 0 : targetUs;
    ++serial_;
    requestedSerial_ = serial_;
    seekPending_ = true;
    // Frames queued before the seek are stale: drop them now, which also frees a
    // producer waiting for room so it reaches the seek request. Under the lock:
    // the decode thread takes it to carry the seek out (applyPendingSeek), so
    // nothing it writes for the new serial can be flushed here (a short file's
    // fresh end-of-stream marker was, and the consumer waited forever).
    if (queue_) queue_->flush();
  }
  cond_.notify_all();
  return true;
}

SourceStats FfmpegSource::stats() const {
  SourceStats s;
  s.framesDecoded = framesDecoded_.load();
  s.decodeErrors = decodeErrors_.load() + tap_.errors.load();
  std::lock_guard<std::mutex> lock(mutex_);
  s.decodeFps = decodeFps_;
  const double open = std::chrono::duration<double>(std::chrono::steady_clock::now() - windowStart_).count();
  // The open window speaks when it is long (decoding slowed or stopped) or the
  // first one (nothing else to go by yet).
  if (open >= 1.0 || (decodeFps_ == 0 && open > 0.05)) s.decodeFps = windowFrames_ / open;
  return s;
}

std::string FfmpegSource::fatalError() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fatal_;
}

uint32_t FfmpegSource::serial() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return serial_;
}

}  // namespace vp
