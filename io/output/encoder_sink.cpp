#include "io/output/encoder_sink.h"

#include "io/audio/audio_track_writer.h"
#include "io/av_util.h"
#include "io/output/video_encoder.h"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace vp {
namespace {

std::string extensionOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string defaultCodec(const std::string& ext) {
  if (ext == "mp4" || ext == "mkv" || ext == "mov" || ext == "m4v") return "libx264";
  if (ext == "avi") return "mpeg4";
  if (ext == "nut") return "ffv1";
  return "";
}

struct OutputDeleter {
  void operator()(AVFormatContext* c) const {
    if (c->pb && !(c->oformat->flags & AVFMT_NOFILE)) avio_closep(&c->pb);
    avformat_free_context(c);
  }
};

}  // namespace

// One queued frame: RGB24 rows copied by write(), consumed by the encoder thread.
// Rows are padded and one spare row follows: swscale reads a little past the
// right edge (odd widths, SIMD), which must stay inside the buffer.
struct Slot {
  std::vector<uint8_t> rgb;  // `stride` bytes per row, height + 1 rows
  size_t stride = 0;          // bytes between rows
  int width = 0;
  int height = 0;
  int64_t ptsUs = 0;   // session time
  uint32_t serial = 0;  // the source's seek serial

  void shape(int w, int h) {
    stride = (size_t(w) * 3 + 63) / 64 * 64;
    const size_t bytes = stride * size_t(h + 1);
    if (rgb.size() < bytes) rgb.resize(bytes);  // only when a larger size arrives
    width = w;
    height = h;
  }
};

struct EncoderSink::Impl {
  EncoderOptions opt;
  std::string tmpPath;
  std::unique_ptr<AVFormatContext, OutputDeleter> oc;
  av::CodecPtr enc;
  AVStream* stream = nullptr;
  av::FramePtr frame;  // the encoder's input, in its pixel format and size
  av::PacketPtr packet;
  av::SwsPtr sws;
  int swsWidth = 0, swsHeight = 0;  // source size sws was made for
  int64_t lastPts = AV_NOPTS_VALUE;  // encoder time base
  std::unique_ptr<AudioTrackWriter> audio;  // the audio stream, if any (encoder thread once opened)
  // Encoder thread: the latest two frames' output times (session time + shiftUs); the
  // seek serial of the segment being written and its shift (EncoderSink::write).
  int64_t lastVideoUs = INT64_MIN, prevVideoUs = INT64_MIN;
  bool haveSegment = false;
  uint32_t segment = 0;
  int64_t shiftUs = 0;

  std::vector<Slot> slots;
  std::thread thread;
  std::atomic<int64_t> frames{0};
  bool finished = false;  // finish() ran (caller's thread only)

  std::mutex mutex;  // guards read, size, finishing, error
  std::condition_variable cond;
  int read = 0;  // oldest queued slot
  int size = 0;  // queued slots
  bool finishing = false;
  bool cutAudio = false;  // finish the audio with the last video frame
  std::string error;  // first encoding error; the thread then drops frames

  [[noreturn]] void fail(const std::string& reason) const { throw EncoderError("'" + opt.path + "': " + reason); }
  void openOutput();
  void run();
  void follow(const Slot& slot);
  void encode(const Slot& slot);
  void drain(const AVFrame* f);
  // End of the last frame written: its pts plus the last frame interval (else 1/fps).
  int64_t videoEndUs() const {
    if (lastVideoUs == INT64_MIN) return INT64_MIN;
    const int64_t step = prevVideoUs != INT64_MIN && lastVideoUs > prevVideoUs ? lastVideoUs - prevVideoUs
                                                                              : int64_t(1e6 / (opt.fps > 0 ? opt.fps : 30));
    return lastVideoUs + step;
  }
  void setError(const std::string& e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (error.empty()) error = e;
    cond.notify_all();
  }
};

void EncoderSink::Impl::openOutput() {
  const std::string& path = opt.path;
  if (path.empty()) throw EncoderError("no output file given");
  if (opt.width <= 0 || opt.height <= 0) fail("no frame size given");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail("is a directory");
    if (!opt.overwrite) throw EncoderError("'" + path + "' exists (use -y to overwrite)");
  }
  AVFormatContext* ctx = nullptr;
  avformat_alloc_output_context2(&ctx, nullptr, nullptr, path.c_str());  // container from the final name
  if (!ctx) fail("unknown container '." + extensionOf(path) + "' (use .mp4, .mkv, .mov, .avi or .nut)");
  oc.reset(ctx);
  // The same frames and options give the same file on every run: no random segment UID or
  // date in Matroska, no per-build version strings (ffmpeg's -fflags +bitexact).
  ctx->flags |= AVFMT_FLAG_BITEXACT;
  const std::string ext = extensionOf(path);
  std::string name = opt.codec.empty() ? defaultCodec(ext) : opt.codec;
  const AVCodec* codec = name.empty() ? avcodec_find_encoder(av_guess_codec(ctx->oformat, nullptr, path.c_str(),
                                                                              nullptr, AVMEDIA_TYPE_VIDEO))
                                      : avcodec_find_encoder_by_name(name.c_str());
  if (!codec && name == "libx264") codec = avcodec_find_encoder(AV_CODEC_ID_H264);
  if (!codec || codec->type != AVMEDIA_TYPE_VIDEO)
    fail("video encoder '" + (name.empty() ? std::string("default") : name) + "' not available");
  if (avformat_query_codec(ctx->oformat, codec->id, FF_COMPLIANCE_NORMAL) == 0)
    fail(std::string("the ") + ctx->oformat->name + " container cannot hold " + codec->name);
  VideoEncoder v = openVideoEncoder(opt, ctx, codec);
  enc = std::move(v.enc);
  stream = v.stream;
  frame = std::move(v.frame);
  packet = av::makePacket();
  if (opt.audio.packets) try {
      audio = std::make_unique<AudioTrackWriter>(ctx, opt.audio);
    } catch (const std::runtime_error& e) {
      fail(e.what());
    }

  tmpPath = path + ".part";
  if (!(ctx->oformat->flags & AVFMT_NOFILE)) {
    const int r = avio_open2(&ctx->pb, tmpPath.c_str(), AVIO_FLAG_WRITE, nullptr, nullptr);
    if (r < 0) throw EncoderError("cannot write '" + path + "': " + av::errorText(r));
  }
  AVDictionary* muxOpts = nullptr;
  if (opt.faststart && (ext == "mp4" || ext == "mov" || ext == "m4v"))
    av_dict_set(&muxOpts, "movflags", "+faststart", 0);
  const int r = avformat_write_header(ctx, &muxOpts);
  av_dict_free(&muxOpts);
  if (r < 0) {
    oc.reset();
    std::remove(tmpPath.c_str());
    fail("cannot write the header (" + av::errorText(r) + ")");
  }
}

// The encoder thread: encodes queued slots in order; after an error it keeps
// consuming (dropping) them so write() never blocks forever. At finish: flush
// the encoder and write the trailer.
void EncoderSink::Impl::run() {
  for (;;) {
    int index;
    bool failed;
    {
      std::unique_lock<std::mutex> lock(mutex);
      cond.wait(lock, [&] { return size > 0 || finishing; });
      if (size == 0) break;  // finishing and nothing left
      index = read;
      failed = !error.empty();
    }
    if (!failed) try {
        follow(slots[size_t(index)]);
        encode(slots[size_t(index)]);
        if (audio) audio->writeUntil(lastVideoUs);  // audio follows the video into the muxer
      } catch (const std::exception& e) {
        setError(e.what());
      }
    {
      std::lock_guard<std::mutex> lock(mutex);
      read = (read + 1) % int(slots.size());
      --size;
    }
    cond.notify_all();
  }
  bool cut;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error.empty()) return;
    cut = cutAudio;
  }
  try {
    drain(nullptr);  // flush the encoder
    if (audio) audio->finish(cut ? videoEndUs() : INT64_MAX);
    const int r = av_write_trailer(oc.get());
    if (r < 0) fail("cannot write the trailer (" + av::errorText(r) + ")");
  } catch (const std::exception& e) {
    setError(e.what());
  }
}

// A frame of another seek serial starts a segment that continues the file where it is.
void EncoderSink::Impl::follow(const Slot& s) {
  if (haveSegment && s.serial == segment) return;
  const int64_t endUs = videoEndUs();
  shiftUs = endUs == INT64_MIN ? 0 : endUs - s.ptsUs;
  if (audio && (haveSegment || s.serial != 0)) audio->startSegment(s.serial, shiftUs, endUs);
  haveSegment = true;
  segment = s.serial;
}

void EncoderSink::Impl::encode(const Slot& s) {
  AVCodecContext* c = enc.get();
  if (!sws || s.width != swsWidth || s.height != swsHeight) {
    sws.reset(sws_getContext(s.width, s.height, AV_PIX_FMT_RGB24, c->width, c->height, c->pix_fmt,
                             SWS_BICUBIC | SWS_ACCURATE_RND, nullptr, nullptr, nullptr));
    if (!sws) fail("cannot convert RGB frames for the encoder");
    const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(sws.get(), bt709, 1, bt709, c->color_range == AVCOL_RANGE_JPEG ? 1 : 0, 0, 1 << 16,
                             1 << 16);
    swsWidth = s.width;
    swsHeight = s.height;
  }
  int r = av_frame_make_writable(frame.get());  // the encoder may still hold the previous one
  if (r < 0) fail("out of memory (" + av::errorText(r) + ")");
  const uint8_t* src[4] = {s.rgb.data()};
  const int srcStride[4] = {int(s.stride)};
  sws_scale(sws.get(), src, srcStride, 0, s.height, frame->data, frame->linesize);

  // Strictly increasing in the encoder's time base and in the stream's, which
  // may be coarser (Matroska counts milliseconds).
  const int64_t outUs = s.ptsUs + shiftUs;
  int64_t pts = av_rescale_q(outUs, av::kMicros, c->time_base);
  if (lastPts != AV_NOPTS_VALUE) {
    if (pts <= lastPts) pts = lastPts + 1;
    const int64_t lastInStream = av_rescale_q(lastPts, c->time_base, stream->time_base);
    if (av_rescale_q(pts, c->time_base, stream->time_base) <= lastInStream)
      pts = av_rescale_q_rnd(lastInStream + 1, stream->time_base, c->time_base, AV_ROUND_UP);
  }
  lastPts = pts;
  frame->pts = pts;
  prevVideoUs = lastVideoUs;
  lastVideoUs = outUs;
  if (c->flags & AV_CODEC_FLAG_QSCALE) frame->quality = c->global_quality;
  drain(frame.get());
  ++frames;
}

// Sends `f` (nullptr: flush) and muxes every packet that comes out.
void EncoderSink::Impl::drain(const AVFrame* f) {
  int r = avcodec_send_frame(enc.get(), f);
  if (r < 0 && r != AVERROR_EOF) fail("encoding failed (" + av::errorText(r) + ")");
  for (;;) {
    r = avcodec_receive_packet(enc.get(), packet.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
    if (r < 0) fail("encoding failed (" + av::errorText(r) + ")");
    av_packet_rescale_ts(packet.get(), enc->time_base, stream->time_base);
    packet->stream_index = stream->index;
    r = av_interleaved_write_frame(oc.get(), packet.get());  // takes the packet's reference
    if (r < 0) fail("cannot write (" + av::errorText(r) + ")");
  }
}

std::unique_ptr<EncoderSink> EncoderSink::open(const EncoderOptions& options) {
  av::initLibav();
  auto impl = std::make_unique<Impl>();
  impl->opt = options;
  impl->openOutput();
  const int n = std::max(1, options.queueFrames);
  impl->slots.resize(size_t(n));
  for (Slot& s : impl->slots) s.shape(options.width, options.height);
  Impl* p = impl.get();
  impl->thread = std::thread([p] { p->run(); });
  return std::unique_ptr<EncoderSink>(new EncoderSink(std::move(impl)));
}

EncoderSink::EncoderSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EncoderSink::~EncoderSink() {
  try {
    finish();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
  }
}

void EncoderSink::write(const uint8_t* rgb, size_t pitch, int width, int height, int64_t ptsUs, uint32_t serial) {
  Impl& m = *impl_;
  if (m.finished) throw EncoderError("'" + m.opt.path + "': write after finish");
  if (!rgb || width <= 0 || height <= 0 || pitch < size_t(width) * 3)
    throw std::invalid_argument("EncoderSink::write: bad frame");
  int index;
  {
    std::unique_lock<std::mutex> lock(m.mutex);
    m.cond.wait(lock, [&] { return m.size < int(m.slots.size()) || !m.error.empty(); });
    if (!m.error.empty()) throw EncoderError(m.error);
    index = (m.read + m.size) % int(m.slots.size());
  }
  Slot& s = m.slots[size_t(index)];  // ours until queued: the thread reads only queued slots
  s.shape(width, height);
  for (int y = 0; y < height; ++y)
    std::memcpy(s.rgb.data() + s.stride * size_t(y), rgb + pitch * size_t(y), size_t(width) * 3);
  s.ptsUs = ptsUs;
  s.serial = serial;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    ++m.size;
  }
  m.cond.notify_all();
}

void EncoderSink::finish() {
  Impl& m = *impl_;
  if (m.finished) return;
  m.finished = true;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    m.finishing = true;
  }
  m.cond.notify_all();
  if (m.thread.joinable()) m.thread.join();
  m.oc.reset();  // closes the file
  std::string error;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    error = m.error;
  }
  if (!error.empty()) {
    std::remove(m.tmpPath.c_str());
    throw EncoderError(error);
  }
  if (std::rename(m.tmpPath.c_str(), m.opt.path.c_str()) != 0)
    throw EncoderError("cannot write '" + m.opt.path + "': " + std::strerror(errno));
  spdlog::debug("wrote '{}': {} frames", m.opt.path, m.frames.load());
}

void EncoderSink::endAudioWithVideo() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->cutAudio = true;
}

int64_t EncoderSink::framesWritten() const { return impl_->frames.load(); }
const std::string& EncoderSink::path() const { return impl_->opt.path; }

}  // namespace vp
