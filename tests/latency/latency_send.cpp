// vp_latency_send: the "camera" of a glass-to-glass latency run (scripts/latency.sh).
// Frame N is due at t0 + N/fps on the steady clock; at that moment its wall time is
// stamped (av_gettime: the clock x11grab stamps grabs with) and logged, and only then is
// the frame encoded (libx264, ultrafast, zerolatency, no B-frames) and sent as MPEG-TS,
// each packet flushed at once: the measured latency includes encoding, as a camera's does.
//   vp_latency_send --url udp://127.0.0.1:23000 [--size 640x360] [--fps 30] [--seconds 60]
//                   --log send.log [--pause-at S --pause-for S] [--end-aud on|off]
// The log has one line per frame sent, "N send_wall_us". --pause-at/--pause-for stop
// sending for a while (a player's reconnection); frame numbers go on by wall time, and the
// first frame after the pause is a keyframe. SIGINT / SIGTERM end the run cleanly.
// --end-aud (default on) ends every frame with an access unit delimiter: FFmpeg's H.264
// parser, which every player here runs on MPEG-TS, ends a frame only where the next one
// starts, so without it each frame waits for the next (one frame period more latency).
#include "barcode.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libavutil/time.h>
}

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string url;
  std::string log;
  int width = 640, height = 360;
  int fps = 30;
  double seconds = 60;
  double pauseAt = -1, pauseFor = 0;
  bool endAud = true;
};

int fail(const std::string& why) {
  std::fprintf(stderr, "vp_latency_send: %s\n", why.c_str());
  return 1;
}

int usage(const std::string& why) {
  std::fprintf(stderr,
               "vp_latency_send: %s\n"
               "usage: vp_latency_send --url URL --log FILE [--size WxH] [--fps N] [--seconds S]"
               " [--pause-at S --pause-for S] [--end-aud on|off]\n",
               why.c_str());
  return 2;
}

// A number within [low, high]; a week of seconds at most keeps frame numbers far from overflow.
bool parseNumber(const char* text, double low, double high, double& out) {
  char* end = nullptr;
  out = std::strtod(text, &end);
  return end != text && *end == '\0' && out >= low && out <= high;
}

// Empty when the options make sense, else what is wrong.
std::string check(const Options& o) {
  if (o.url.empty()) return "--url is required";
  if (o.log.empty()) return "--log is required";
  // Even sizes for 4:2:0; 160 columns at least for the barcode's cells.
  if (o.width < 160 || o.height < 90 || o.width > 7680 || o.height > 4320 || o.width % 2 || o.height % 2)
    return "--size wants even sizes from 160x90 to 7680x4320";
  if (o.pauseFor > 0 && o.pauseAt < 0) return "--pause-for needs --pause-at";
  return {};
}

// Empty on success, else what is wrong with the command line.
std::string parse(int argc, char** argv, Options& o) {
  constexpr double kWeek = 7 * 86400;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return "missing value for " + a;
    const char* v = argv[i + 1];
    double d = 0;
    char tail = 0;
    if (a == "--url") {
      o.url = v;
    } else if (a == "--log") {
      o.log = v;
    } else if (a == "--size") {
      if (std::sscanf(v, "%dx%d%c", &o.width, &o.height, &tail) != 2) return "--size wants WxH, e.g. 640x360";
    } else if (a == "--fps") {
      if (!parseNumber(v, 1, 240, d) || d != std::floor(d)) return "--fps wants a whole number, 1..240";
      o.fps = static_cast<int>(d);
    } else if (a == "--seconds") {
      if (!parseNumber(v, 0.001, kWeek, o.seconds)) return "--seconds wants a number > 0 (a week at most)";
    } else if (a == "--pause-at") {
      if (!parseNumber(v, 0, kWeek, o.pauseAt)) return "--pause-at wants seconds >= 0";
    } else if (a == "--pause-for") {
      if (!parseNumber(v, 0, kWeek, o.pauseFor)) return "--pause-for wants seconds >= 0";
    } else if (a == "--end-aud" && (!std::strcmp(v, "on") || !std::strcmp(v, "off"))) {
      o.endAud = !std::strcmp(v, "on");
    } else {
      return "bad option or value: " + a + " " + v;
    }
  }
  return check(o);
}

std::string avError(int err) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(err, text, sizeof text);
  return text;
}

struct CodecFree {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFree {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct OutputFree {
  void operator()(AVFormatContext* oc) const {
    if (oc->pb) avio_closep(&oc->pb);
    avformat_free_context(oc);
  }
};

// The picture of frame n: plain grey, a coloured square moving across the upper half
// (so the encoder sees motion, as from a camera), and the barcode of n below.
void drawFrame(AVFrame* f, int64_t n) {
  const int w = f->width, h = f->height;
  for (int y = 0; y < h; ++y) std::memset(f->data[0] + y * f->linesize[0], 96, w);
  for (int p = 1; p < 3; ++p)
    for (int y = 0; y < h / 2; ++y) std::memset(f->data[p] + y * f->linesize[p], 128, w / 2);
  const int side = (h / 8) & ~1, travel = w - side;
  const int x0 = static_cast<int>((n * 8) % (2 * travel)), x = (x0 < travel ? x0 : 2 * travel - x0) & ~1;
  const int y = (h / 4) & ~1;
  for (int r = 0; r < side; ++r) std::memset(f->data[0] + (y + r) * f->linesize[0] + x, 200, side);
  for (int r = 0; r < side / 2; ++r) {
    std::memset(f->data[1] + (y / 2 + r) * f->linesize[1] + x / 2, 60, side / 2);
    std::memset(f->data[2] + (y / 2 + r) * f->linesize[2] + x / 2, 200, side / 2);
  }
  vp::latency::drawBarcode(f->data[0], w, h, f->linesize[0], static_cast<uint32_t>(n));
}

// The encoder and the muxer of one run.
class Sender {
 public:
  // Empty on success, else why not.
  std::string open(const Options& o) {
    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) return "FFmpeg has no libx264 encoder";
    enc_.reset(avcodec_alloc_context3(codec));
    enc_->width = o.width;
    enc_->height = o.height;
    enc_->pix_fmt = AV_PIX_FMT_YUV420P;
    enc_->time_base = {1, o.fps};
    enc_->framerate = {o.fps, 1};
    enc_->gop_size = o.fps;  // a keyframe every second: a player that joins late starts soon
    enc_->max_b_frames = 0;
    enc_->thread_count = 1;  // the machine is shared with the player and the probe
    av_opt_set(enc_->priv_data, "preset", "ultrafast", 0);
    av_opt_set(enc_->priv_data, "tune", "zerolatency", 0);
    // No global header: SPS/PPS go with every keyframe, as a live stream needs.
    int err = avcodec_open2(enc_.get(), codec, nullptr);
    if (err < 0) return "cannot open libx264: " + avError(err);

    AVFormatContext* oc = nullptr;
    err = avformat_alloc_output_context2(&oc, nullptr, "mpegts", o.url.c_str());
    if (err < 0) return "cannot make an MPEG-TS muxer: " + avError(err);
    out_.reset(oc);
    AVStream* st = avformat_new_stream(oc, nullptr);
    if (!st) return "out of memory";
    avcodec_parameters_from_context(st->codecpar, enc_.get());
    st->time_base = enc_->time_base;
    oc->max_delay = 0;  // no muxing delay: PCR and timestamps start together
    AVDictionary* io = nullptr;
    av_dict_set(&io, "pkt_size", "1316", 0);  // 7 TS packets per datagram
    err = avio_open2(&oc->pb, o.url.c_str(), AVIO_FLAG_WRITE, nullptr, &io);
    av_dict_free(&io);
    if (err < 0) return "cannot open " + o.url + ": " + avError(err);
    AVDictionary* mux = nullptr;
    // A PES length lets a demuxer hand a frame on without waiting for the next PES.
    av_dict_set(&mux, "omit_video_pes_length", "0", 0);
    av_dict_set(&mux, "flush_packets", "1", 0);
    err = avformat_write_header(oc, &mux);
    av_dict_free(&mux);
    if (err < 0) return "cannot start the stream: " + avError(err);
    stream_ = st;
    endAud_ = o.endAud;
    return {};
  }

  // Encodes and sends `frame` (nullptr: drains the encoder). Empty on success.
  std::string send(AVFrame* frame) {
    int err = avcodec_send_frame(enc_.get(), frame);
    if (err < 0) return "encoding failed: " + avError(err);
    std::unique_ptr<AVPacket, PacketFree> pkt(av_packet_alloc());
    while ((err = avcodec_receive_packet(enc_.get(), pkt.get())) >= 0) {
      av_packet_rescale_ts(pkt.get(), enc_->time_base, stream_->time_base);
      pkt->stream_index = stream_->index;
      if (endAud_) {
        static constexpr uint8_t kAud[] = {0, 0, 0, 1, 9, 0xf0};  // start code, AUD, any slice types
        const int size = pkt->size;
        if ((err = av_grow_packet(pkt.get(), sizeof kAud)) < 0) return "out of memory";
        std::memcpy(pkt->data + size, kAud, sizeof kAud);
      }
      err = av_write_frame(out_.get(), pkt.get());
      av_packet_unref(pkt.get());
      if (err < 0) return "sending failed: " + avError(err);
      avio_flush(out_->pb);
    }
    return err == AVERROR(EAGAIN) || err == AVERROR_EOF ? std::string() : "encoding failed: " + avError(err);
  }

  std::string finish() {
    std::string why = send(nullptr);
    const int err = av_write_trailer(out_.get());
    if (why.empty() && err < 0) why = "closing the stream failed: " + avError(err);
    return why;
  }

 private:
  std::unique_ptr<AVCodecContext, CodecFree> enc_;
  std::unique_ptr<AVFormatContext, OutputFree> out_;
  AVStream* stream_ = nullptr;
  bool endAud_ = true;
};

// Sleeps until `due`; true when SIGINT or SIGTERM came instead (they are blocked and
// taken here, so no handler or shared flag is needed).
bool signalledBefore(Clock::time_point due, const sigset_t& stops) {
  for (;;) {
    const auto left = due - Clock::now();
    if (left <= Clock::duration::zero()) {
      const timespec poll{};
      return sigtimedwait(&stops, nullptr, &poll) > 0;
    }
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    const timespec wait{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    if (sigtimedwait(&stops, nullptr, &wait) > 0) return true;  // else timed out (or EINTR): look again
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const std::string bad = parse(argc, argv, o); !bad.empty()) return usage(bad);

  // Before any thread starts, so that every thread inherits the mask.
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);

  std::unique_ptr<FILE, int (*)(FILE*)> log(std::fopen(o.log.c_str(), "w"), &std::fclose);
  if (!log) return fail("cannot write " + o.log + ": " + std::strerror(errno));
  av_log_set_level(AV_LOG_ERROR);
  Sender sender;
  if (const std::string why = sender.open(o); !why.empty()) return fail(why);

  std::unique_ptr<AVFrame, FrameFree> frame(av_frame_alloc());
  frame->format = AV_PIX_FMT_YUV420P;
  frame->width = o.width;
  frame->height = o.height;
  if (av_frame_get_buffer(frame.get(), 0) < 0) return fail("out of memory");
  std::fprintf(log.get(), "# vp_latency_send %dx%d %d fps url %s end-aud %s\n", o.width, o.height, o.fps,
               o.url.c_str(), o.endAud ? "on" : "off");

  // Frame n is due at t0 + n * 1e9 / fps ns: whole nanoseconds from t0, no drift.
  const auto t0 = Clock::now() + std::chrono::milliseconds(50);
  const auto due = [&](int64_t n) { return t0 + std::chrono::nanoseconds(n * 1000000000LL / o.fps); };
  const auto frameAt = [&](double s) { return static_cast<int64_t>(std::ceil(s * o.fps - 1e-9)); };
  const int64_t end = frameAt(o.seconds);
  const int64_t pauseFrom = o.pauseFor > 0 ? frameAt(o.pauseAt) : end;
  const int64_t pauseTo = o.pauseFor > 0 ? frameAt(o.pauseAt + o.pauseFor) : end;
  int64_t sent = 0, late = 0;
  bool keyframe = false;
  std::string why;
  for (int64_t n = 0; n < end;) {
    if (n >= pauseFrom && n < pauseTo) {
      std::fprintf(log.get(), "# pause %lld..%lld\n", static_cast<long long>(n),
                   static_cast<long long>(pauseTo));
      n = pauseTo;
      keyframe = true;
      continue;
    }
    if (av_frame_make_writable(frame.get()) < 0) return fail("out of memory");
    drawFrame(frame.get(), n);  // before its time: drawing is not part of the latency
    if (signalledBefore(due(n), stops)) break;
    // A frame more than a period late is dropped for the one now due, as a camera would,
    // so that every stamp is its frame's capture time.
    const int64_t now = (Clock::now() - t0) / std::chrono::nanoseconds(1) * o.fps / 1000000000LL;
    if (now > n) {
      late += now - n;
      n = now;
      continue;
    }
    const int64_t wall = av_gettime();
    std::fprintf(log.get(), "%lld %lld\n", static_cast<long long>(n), static_cast<long long>(wall));
    frame->pts = n;
    frame->pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
    keyframe = false;
    if (!(why = sender.send(frame.get())).empty()) break;
    ++sent;
    if (n % o.fps == 0) std::fflush(log.get());
    ++n;
  }
  if (why.empty()) why = sender.finish();
  std::fprintf(stderr, "vp_latency_send: sent %lld frames, %lld dropped late\n", static_cast<long long>(sent),
               static_cast<long long>(late));
  return why.empty() ? 0 : fail(why);
}
