#include "support/clips.h"

#include "io/av_util.h"
#include "support/clip_mux.h"
#include "support/clips_audio.h"
#include "support/images.h"

extern "C" {
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <thread>

namespace vp::test {
namespace {

using mux::check;
using mux::fail;
using mux::OutputPtr;
using mux::openOutput;
using mux::writePackets;

// mjpeg takes full-range yuvj* formats: the yuv*p names map onto them.
AVPixelFormat encoderPixFmt(const ClipSpec& spec, const std::string& name) {
  AVPixelFormat f = av_get_pix_fmt(name.c_str());
  if (f == AV_PIX_FMT_NONE) fail("unknown pixel format '" + name + "'");
  if (spec.codec == "mjpeg") {
    if (f == AV_PIX_FMT_YUV420P) return AV_PIX_FMT_YUVJ420P;
    if (f == AV_PIX_FMT_YUV422P) return AV_PIX_FMT_YUVJ422P;
    if (f == AV_PIX_FMT_YUV444P) return AV_PIX_FMT_YUVJ444P;
  }
  return f;
}

// Frame i converted from RGBA with swscale's defaults (BT.601; range by format).
// swscale reads past the right and bottom edges of odd sizes, so the picture is
// converted at the next even size (edges replicated) and cropped: deterministic.
av::FramePtr convertedFrame(const ClipSpec& spec, int i, AVPixelFormat fmt) {
  if (spec.rawFrames) {
    int w, h;
    clipFrameSize(spec, i, w, h);
    const std::vector<uint8_t> raw = spec.rawFrames(i);
    if (int(raw.size()) != av_image_get_buffer_size(fmt, w, h, 1)) fail("rawFrames: wrong frame size");
    av::FramePtr f = av::makeFrame();
    f->format = fmt;
    f->width = w;
    f->height = h;
    check(av_frame_get_buffer(f.get(), 0), "frame buffer");
    uint8_t* src[4] = {};
    int stride[4] = {};
    check(av_image_fill_arrays(src, stride, raw.data(), fmt, w, h, 1), "raw planes");
    av_image_copy(f->data, f->linesize, const_cast<const uint8_t**>(src), stride, fmt, w, h);
    return f;
  }
  const HostImage rgba = clipFrameRgba(spec, i);
  const int w = rgba.width(), h = rgba.height(), ew = w + (w & 1), eh = h + (h & 1);
  std::vector<uchar4> padded(size_t(ew) * eh);
  for (int y = 0; y < eh; ++y)
    for (int x = 0; x < ew; ++x) padded[size_t(y) * ew + x] = rgba.at(std::min(x, w - 1), std::min(y, h - 1));
  av::FramePtr even = av::makeFrame();
  even->format = fmt;
  even->width = ew;
  even->height = eh;
  check(av_frame_get_buffer(even.get(), 0), "frame buffer");
  av::SwsPtr sws(sws_getContext(ew, eh, AV_PIX_FMT_RGBA, ew, eh, fmt, SWS_BICUBIC | SWS_ACCURATE_RND, nullptr,
                                nullptr, nullptr));
  if (!sws) fail(std::string("cannot convert to ") + av_get_pix_fmt_name(fmt));
  const uint8_t* src[4] = {reinterpret_cast<const uint8_t*>(padded.data())};
  const int stride[4] = {ew * 4};
  sws_scale(sws.get(), src, stride, 0, eh, even->data, even->linesize);
  av::FramePtr f = av::makeFrame();
  f->format = fmt;
  f->width = w;
  f->height = h;
  check(av_frame_get_buffer(f.get(), 0), "frame buffer");
  av_image_copy(f->data, f->linesize, const_cast<const uint8_t**>(even->data), even->linesize, fmt, w, h);
  return f;
}

av::CodecPtr openVideoEncoder(const ClipSpec& spec, AVPixelFormat fmt, int w, int h, bool globalHeader) {
  const AVCodec* codec = avcodec_find_encoder_by_name(spec.codec.c_str());
  if (!codec) fail("no encoder '" + spec.codec + "'");
  av::CodecPtr c(avcodec_alloc_context3(codec));
  c->width = w;
  c->height = h;
  c->pix_fmt = fmt;
  c->time_base = spec.times.empty() ? AVRational{1, spec.fps} : AVRational{1, 1000};
  c->framerate = {spec.fps, 1};
  c->thread_count = 1;  // deterministic and light on the test machine
  if (spec.gop > 0) c->gop_size = spec.gop;
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(fmt);
  if (!(d->flags & AV_PIX_FMT_FLAG_RGB)) {
    const bool full = d->nb_components <= 2 || std::string(d->name).rfind("yuvj", 0) == 0;  // gray, yuvj
    c->color_range = spec.colorRange >= 0 ? AVColorRange(spec.colorRange) : full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    c->colorspace = spec.colorspace >= 0 ? AVColorSpace(spec.colorspace) : AVCOL_SPC_SMPTE170M;
  }
  if (spec.colorTrc >= 0) c->color_trc = AVColorTransferCharacteristic(spec.colorTrc);
  if (spec.colorPrimaries >= 0) c->color_primaries = AVColorPrimaries(spec.colorPrimaries);
  if (globalHeader) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (spec.interlaced) {
    c->flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME;
    c->field_order = AV_FIELD_TT;
  }
  if (spec.codec == "ffv1") {
    c->level = 3;  // FFV1 version 3: slice CRCs, so damage is detected
  } else if (spec.codec == "libx264") {
    av_opt_set(c->priv_data, "preset", spec.preset.c_str(), 0);
    av_opt_set_double(c->priv_data, "crf", spec.crf, 0);
  } else if (spec.codec == "libx265") {
    // log-level: x265 prints to stderr itself. cutree=0: this libx265 (3.5) writes past
    // its buffers in Lookahead::cuTree on tiny frames (valgrind, the 66x38 -> 34x22 clip
    // of Source.LoopAcrossASizeChange), which corrupted the heap of the test process on a
    // 16-core machine. The clips need no cutree.
    av_opt_set(c->priv_data, "x265-params", "log-level=none:cutree=0", 0);
    av_opt_set(c->priv_data, "preset", spec.preset.c_str(), 0);
    av_opt_set_double(c->priv_data, "crf", spec.crf, 0);
  } else if (spec.codec == "mjpeg" || spec.codec == "mpeg4") {
    c->flags |= AV_CODEC_FLAG_QSCALE;
    c->global_quality = FF_QP2LAMBDA * 2;
  }
  check(avcodec_open2(c.get(), codec, nullptr), "open encoder " + spec.codec);
  return c;
}

}  // namespace

Watchdog::Watchdog(double seconds, std::string what) {
  thread_ = std::thread([this, seconds, what = std::move(what)] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cond_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done_; })) {
      std::fprintf(stderr, "watchdog: '%s' still running after %.1f s (deadlock?)\n", what.c_str(), seconds);
      std::fflush(stderr);
      std::_Exit(3);
    }
  });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cond_.notify_all();
  thread_.join();
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/vp-test-XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void clipFrameSize(const ClipSpec& spec, int i, int& width, int& height) {
  const bool changed = spec.changeAt >= 0 && i >= spec.changeAt;
  width = changed ? spec.changedWidth : spec.width;
  height = changed ? spec.changedHeight : spec.height;
}

HostImage clipFrameRgba(const ClipSpec& spec, int i) {
  int w, h;
  clipFrameSize(spec, i, w, h);
  if (spec.picture == Picture::Black || spec.picture == Picture::Flashes) {
    const int first = spec.fps * 2 / 5, inSecond = i % spec.fps;  // 0.4 s: frame 10 of 25
    const bool white = spec.picture == Picture::Flashes && inSecond >= first && inSecond < first + 2;
    HostImage img(w, h);
    const uint8_t v = white ? 255 : 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) img.at(x, y) = make_uchar4(v, v, v, 255);
    return img;
  }
  uint64_t seed = spec.seed;
  bool noise = spec.picture == Picture::Noise, calm = false;
  if (spec.sceneEvery > 0) {  // a scene cut every sceneEvery frames: a new picture, calm or noisy
    const int scene = i / spec.sceneEvery;
    seed += uint64_t(scene) * 7919;
    noise = noise || scene % 2 == 1;
    calm = scene % 2 == 0;
  }
  HostImage img = makeNatural(w, h, seed, 0.15f * float(i));
  if (calm)  // a quarter of the contrast around mid grey
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uchar4& p = img.at(x, y);
        p = make_uchar4(uint8_t(96 + p.x / 4), uint8_t(96 + p.y / 4), uint8_t(96 + p.z / 4), 255);
      }
  if (noise) {  // +-60 levels, as FFmpeg's noise=alls=60:allf=t
    SplitMix64 rng(seed * 1000003 + uint64_t(i));
    const auto noisy = [&](unsigned char c) { return uint8_t(std::clamp(int(c) + int(rng.next() % 121) - 60, 0, 255)); };
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uchar4& p = img.at(x, y);
        p = make_uchar4(noisy(p.x), noisy(p.y), noisy(p.z), 255);
      }
  }
  return img;
}

std::vector<uint8_t> clipFrameRaw(const ClipSpec& spec, int i, const std::string& pixFmt) {
  const AVPixelFormat fmt = encoderPixFmt(spec, pixFmt.empty() ? spec.pixFmt : pixFmt);
  av::FramePtr f = convertedFrame(spec, i, fmt);
  const int bytes = av_image_get_buffer_size(fmt, f->width, f->height, 1);
  std::vector<uint8_t> out(size_t(bytes > 0 ? bytes : 0));
  check(av_image_copy_to_buffer(out.data(), bytes, f->data, f->linesize, fmt, f->width, f->height, 1), "copy");
  return out;
}

ClipSpec high444Spec() {
  ClipSpec spec;
  spec.codec = "libx264";
  spec.pixFmt = "yuv444p";
  spec.width = 96;
  spec.height = 64;
  spec.frames = 6;
  return spec;
}

std::string makeClip(const std::string& path, const ClipSpec& spec) {
  av::initLibav();
  OutputPtr oc = openOutput(path);
  const AVPixelFormat fmt = encoderPixFmt(spec, spec.pixFmt);
  const bool globalHeader = oc->oformat->flags & AVFMT_GLOBALHEADER;
  int w, h;
  clipFrameSize(spec, 0, w, h);
  av::CodecPtr enc = openVideoEncoder(spec, fmt, w, h, globalHeader);
  AVStream* st = avformat_new_stream(oc.get(), nullptr);
  check(avcodec_parameters_from_context(st->codecpar, enc.get()), "codec parameters");
  st->time_base = enc->time_base;
  st->avg_frame_rate = enc->framerate;
  if (spec.rotation) {
    auto* m = reinterpret_cast<int32_t*>(
        av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t)));
    if (!m) fail("display matrix");
    av_display_rotation_set(m, spec.rotation);  // as ffmpeg reads it back from mp4/mov: a clockwise turn
  }
  std::optional<ClipAudioTrack> audio;
  int64_t videoStartUs = 0;
  if (!spec.audio.codec.empty()) {
    audio.emplace(oc.get(), spec.audio, double(spec.frames) / spec.fps);
    videoStartUs = std::llround(spec.audio.leadS * 1e6);
    // The ffmpeg program's mux delay (-muxdelay 0.7), which the tests' clips were first
    // made with: MPEG-TS timestamps then start at 1.4 s, as a camera's do not start at 0.
    oc->max_delay = 700000;
  }
  check(avio_open(&oc->pb, path.c_str(), AVIO_FLAG_WRITE), "cannot write '" + path + "'");
  check(avformat_write_header(oc.get(), nullptr), "header");
  for (int i = 0; i < spec.frames; ++i) {
    // The sound up to the end of this frame first, so the muxer has little to hold back.
    if (audio) audio->writeUntil(spec.audio.leadS + double(i + 1) / spec.fps);
    int fw, fh;
    clipFrameSize(spec, i, fw, fh);
    if (fw != enc->width || fh != enc->height) {  // a new encoder for the new size, same stream
      writePackets(enc.get(), nullptr, oc.get(), st, videoStartUs);
      enc = openVideoEncoder(spec, fmt, fw, fh, false);
    }
    av::FramePtr f = convertedFrame(spec, i, fmt);
    f->pts = spec.times.empty() ? i : std::llround(spec.times[size_t(i)] * 1000);
    if (spec.interlaced) f->interlaced_frame = 1, f->top_field_first = 1;
    if (spec.codec == "mjpeg" || spec.codec == "mpeg4") f->quality = enc->global_quality;
    writePackets(enc.get(), f.get(), oc.get(), st, videoStartUs);
  }
  writePackets(enc.get(), nullptr, oc.get(), st, videoStartUs);
  if (audio) audio->finish();
  check(av_write_trailer(oc.get()), "trailer");
  return path;
}

namespace {

// Writes a Matroska file with one video stream of `codec` claiming width x height
// and five packets of random bytes.
void writeJunkStream(const std::string& path, AVCodecID codec, int width, int height) {
  OutputPtr oc = openOutput(path);
  AVStream* st = avformat_new_stream(oc.get(), nullptr);
  st->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
  st->codecpar->codec_id = codec;
  st->codecpar->width = width;
  st->codecpar->height = height;
  st->time_base = {1, 25};
  check(avio_open(&oc->pb, path.c_str(), AVIO_FLAG_WRITE), "cannot write '" + path + "'");
  check(avformat_write_header(oc.get(), nullptr), "header");
  av::PacketPtr pkt = av::makePacket();
  for (int i = 0; i < 5; ++i) {
    const std::vector<uint8_t> bytes = randomBytes(500, uint64_t(i));
    check(av_new_packet(pkt.get(), int(bytes.size())), "packet");
    std::copy(bytes.begin(), bytes.end(), pkt->data);
    pkt->pts = pkt->dts = av_rescale_q(i, {1, 25}, st->time_base);
    pkt->flags = AV_PKT_FLAG_KEY;
    pkt->stream_index = st->index;
    check(av_interleaved_write_frame(oc.get(), pkt.get()), "mux");
  }
  check(av_write_trailer(oc.get()), "trailer");
}

}  // namespace

std::string makeUndecodable(const std::string& path) {
  av::initLibav();
  OutputPtr probe = openOutput(path);
  const AVCodecDescriptor* d = nullptr;
  while ((d = avcodec_descriptor_next(d)))
    if (d->type == AVMEDIA_TYPE_VIDEO && !avcodec_find_decoder(d->id) &&
        avformat_query_codec(probe->oformat, d->id, FF_COMPLIANCE_NORMAL) == 1)
      break;
  if (!d) return "";
  writeJunkStream(path, d->id, 64, 48);
  return d->name;
}

std::string makeClaimedSize(const std::string& path, int width, int height) {
  av::initLibav();
  writeJunkStream(path, AV_CODEC_ID_MJPEG, width, height);
  return path;
}

std::vector<uint8_t> packedRows(const DecodedFrame& frame, int bytesPerPixel) {
  const FrameLayout& l = frame.info.layout;
  const size_t row = size_t(l.width) * size_t(bytesPerPixel);
  std::vector<uint8_t> out(row * size_t(l.height));
  for (int y = 0; y < l.height; ++y)
    std::memcpy(&out[row * size_t(y)], frame.data.data() + l.plane[0].offset + l.plane[0].pitch * size_t(y), row);
  return out;
}

DecodedClip decodeAll(const SourceOptions& options, bool keepPixels, int maxFrames, double timeoutS) {
  DecodedClip out;
  FrameQueue queue(4, HostAllocator::plain());  // outlives the source's decode thread
  std::unique_ptr<Source> src = openSource(options);
  out.info = src->info();
  src->start(queue);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutS);
  while (int(out.frames.size()) < maxFrames && std::chrono::steady_clock::now() < deadline) {
    HostFrame* f = queue.tryPeekReadable();
    if (!f) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    if (f->info.endOfStream) {
      out.endOfStream = true;
      queue.pop();
      break;
    }
    DecodedFrame d;
    d.info = f->info;
    if (keepPixels) d.data.assign(f->data(), f->data() + f->info.layout.bytes);
    out.frames.push_back(std::move(d));
    queue.pop();
  }
  out.stats = src->stats();
  out.fatalError = src->fatalError();
  out.info = src->info();
  src->stop();
  return out;
}

DecodedClip decodeAll(const std::string& path, bool keepPixels, int maxFrames, double timeoutS) {
  SourceOptions o;
  o.url = path;
  return decodeAll(o, keepPixels, maxFrames, timeoutS);
}

}  // namespace vp::test
