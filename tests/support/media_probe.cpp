#include "support/media_probe.h"
#include "support/media_probe_av.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/hash.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
}

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

namespace vp::test::probe {
namespace detail {

struct SwrFreer {
  void operator()(SwrContext* s) const { swr_free(&s); }
};
struct HashFreer {
  void operator()(AVHashContext* h) const { av_hash_freep(&h); }
};
using SwrPtr = std::unique_ptr<SwrContext, SwrFreer>;

void fail(const std::string& path, const std::string& what, int err) {
  char text[AV_ERROR_MAX_STRING_SIZE] = "";
  if (err) av_strerror(err, text, sizeof text);
  throw std::runtime_error("probe " + path + ": " + what + (err ? std::string(" (") + text + ")" : ""));
}

PacketPtr newPacket() {
  PacketPtr p(av_packet_alloc());
  if (!p) throw std::bad_alloc();
  return p;
}
FramePtr newFrame() {
  FramePtr f(av_frame_alloc());
  if (!f) throw std::bad_alloc();
  return f;
}

// Opened and probed as ffprobe does (scan_all_pmts for transport streams, then
// avformat_find_stream_info), so packets and parameters are the ones ffprobe sees.
InputPtr openInput(const std::string& path) {
  AVFormatContext* raw = nullptr;
  AVDictionary* opts = nullptr;
  av_dict_set(&opts, "scan_all_pmts", "1", 0);
  const int r = avformat_open_input(&raw, path.c_str(), nullptr, &opts);
  av_dict_free(&opts);
  if (r < 0) fail(path, "cannot open", r);
  InputPtr in(raw);
  if (const int s = avformat_find_stream_info(in.get(), nullptr); s < 0) fail(path, "no stream info", s);
  return in;
}

std::string typeName(AVMediaType t) {
  const char* n = av_get_media_type_string(t);
  return n ? n : "unknown";
}

double seconds(int64_t ts, AVRational tb) { return ts == AV_NOPTS_VALUE ? NAN : double(ts) * av_q2d(tb); }

CodecPtr openDecoder(const std::string& path, const AVStream* st) {
  const AVCodec* codec = avcodec_find_decoder(st->codecpar->codec_id);
  if (!codec) fail(path, "no decoder for stream " + std::to_string(st->index));
  CodecPtr dec(avcodec_alloc_context3(codec));
  if (!dec) throw std::bad_alloc();
  if (const int r = avcodec_parameters_to_context(dec.get(), st->codecpar); r < 0)
    fail(path, "decoder parameters", r);
  // The packets' time base: libavcodec then moves the timestamps of frames whose priming
  // samples it drops (skip_samples, edit lists), as players and ffprobe see them.
  dec->pkt_timebase = st->time_base;
  dec->thread_count = 0;  // auto, as the movie filter
  if (const int r = avcodec_open2(dec.get(), codec, nullptr); r < 0) fail(path, "cannot open decoder", r);
  return dec;
}

// Decodes `wanted` streams to their ends, handing each frame to onFrame(stream, frame);
// returns how many packets or frames the decoders refused (those are skipped).
int decodeStreams(const std::string& path, AVFormatContext* in, const std::vector<int>& wanted,
                  const std::function<void(const AVStream*, AVFrame*)>& onFrame) {
  std::map<int, CodecPtr> decoders;
  for (int i : wanted) decoders[i] = openDecoder(path, in->streams[i]);
  int errors = 0;
  FramePtr frame = newFrame();
  const auto drain = [&](int index, AVCodecContext* dec) {
    for (;;) {
      const int r = avcodec_receive_frame(dec, frame.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      if (r < 0) {
        ++errors;
        return;
      }
      onFrame(in->streams[index], frame.get());
      av_frame_unref(frame.get());
    }
  };
  PacketPtr pkt = newPacket();
  while (av_read_frame(in, pkt.get()) >= 0) {
    const auto d = decoders.find(pkt->stream_index);
    if (d != decoders.end()) {
      if (avcodec_send_packet(d->second.get(), pkt.get()) < 0) ++errors;
      drain(d->first, d->second.get());
    }
    av_packet_unref(pkt.get());
  }
  for (auto& [index, dec] : decoders) {
    avcodec_send_packet(dec.get(), nullptr);
    drain(index, dec.get());
  }
  return errors;
}

int bestStream(const std::string& path, AVFormatContext* in, AVMediaType type) {
  const int i = av_find_best_stream(in, type, -1, -1, nullptr, 0);
  if (i < 0) fail(path, "no " + typeName(type) + " stream", i);
  return i;
}

// Stream parameters swresample takes: a file without a layout gets the count's default
// one on both sides (no remixing happens, so which one does not matter).
AVChannelLayout layoutOf(const AVFrame* f) {
  AVChannelLayout l{};
  if (f->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
    av_channel_layout_default(&l, f->ch_layout.nb_channels);
  else
    av_channel_layout_copy(&l, &f->ch_layout);
  return l;
}

}  // namespace detail

using namespace detail;

std::vector<Stream> streams(const std::string& path) {
  InputPtr in = openInput(path);
  std::vector<Stream> out;
  for (unsigned i = 0; i < in->nb_streams; ++i) {
    const AVStream* st = in->streams[i];
    const AVCodecParameters* par = st->codecpar;
    Stream s;
    s.index = int(i);
    s.type = typeName(par->codec_type);
    const AVCodecDescriptor* cd = avcodec_descriptor_get(par->codec_id);
    s.codec = cd ? cd->name : "unknown";
    if (par->codec_type == AVMEDIA_TYPE_AUDIO) {
      s.sampleRate = par->sample_rate;
      s.channels = par->ch_layout.nb_channels;
      char name[128] = "unknown";  // ffprobe's word for a layout the file does not store
      if (par->ch_layout.order != AV_CHANNEL_ORDER_UNSPEC)
        av_channel_layout_describe(&par->ch_layout, name, sizeof name);
      s.layout = name;
    }
    s.startTime = seconds(st->start_time, st->time_base);
    s.duration = seconds(st->duration, st->time_base);
    out.push_back(s);
  }
  return out;
}

std::vector<Packet> packets(const std::string& path) {
  InputPtr in = openInput(path);
  std::vector<Packet> out;
  PacketPtr pkt = newPacket();
  AVHashContext* rawHash = nullptr;
  if (av_hash_alloc(&rawHash, "MD5") < 0) throw std::bad_alloc();
  const std::unique_ptr<AVHashContext, HashFreer> hash(rawHash);
  while (av_read_frame(in.get(), pkt.get()) >= 0) {
    const AVStream* st = in->streams[pkt->stream_index];
    Packet p;
    p.stream = pkt->stream_index;
    p.type = typeName(st->codecpar->codec_type);
    p.hasPts = pkt->pts != AV_NOPTS_VALUE;
    if (p.hasPts) p.pts = seconds(pkt->pts, st->time_base);
    p.duration = double(pkt->duration) * av_q2d(st->time_base);
    p.size = pkt->size;
    av_hash_init(hash.get());
    av_hash_update(hash.get(), pkt->data, pkt->size);
    char hex[2 * AV_HASH_MAX_SIZE + 1] = "";
    av_hash_final_hex(hash.get(), reinterpret_cast<uint8_t*>(hex), sizeof hex);
    p.md5 = std::string("MD5:") + hex;
    out.push_back(std::move(p));
    av_packet_unref(pkt.get());
  }
  return out;
}

std::vector<LumaFrame> videoLuma(const std::string& path) {
  InputPtr in = openInput(path);
  std::vector<LumaFrame> out;
  decodeStreams(path, in.get(), {bestStream(path, in.get(), AVMEDIA_TYPE_VIDEO)},
                [&](const AVStream* st, AVFrame* f) {
                  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(AVPixelFormat(f->format));
                  // signalstats' YAVG is in the luma plane's own units: 8-bit YUV or gray only.
                  if (!d || (d->flags & AV_PIX_FMT_FLAG_RGB) || d->comp[0].plane != 0 ||
                      d->comp[0].depth != 8 || d->comp[0].step != 1)
                    fail(path, std::string("no 8-bit luma plane in ") + (d ? d->name : "?"));
                  double sum = 0;
                  for (int y = 0; y < f->height; ++y) {
                    const uint8_t* row = f->data[0] + ptrdiff_t(y) * f->linesize[0];
                    int64_t rowSum = 0;
                    for (int x = 0; x < f->width; ++x) rowSum += row[x];
                    sum += double(rowSum);
                  }
                  LumaFrame l;
                  l.hasPts = f->best_effort_timestamp != AV_NOPTS_VALUE;
                  if (l.hasPts) l.pts = seconds(f->best_effort_timestamp, st->time_base);
                  l.meanLuma = sum / (double(f->width) * f->height);
                  out.push_back(l);
                });
  return out;
}

DecodedAudio decodeAudio(const std::string& path, int rate) {
  InputPtr in = openInput(path);
  DecodedAudio out;
  SwrPtr swr;
  int inFormat = -1, inRate = 0;
  const auto convert = [&](const AVFrame* f, AudioFrame& into) {
    const int room = swr_get_out_samples(swr.get(), f ? f->nb_samples : 0);
    if (room <= 0) return;
    const size_t have = into.samples.size();
    into.samples.resize(have + size_t(room) * size_t(out.channels));
    auto* dst = reinterpret_cast<uint8_t*>(into.samples.data() + have);
    const int n =
        swr_convert(swr.get(), &dst, room, f ? const_cast<const uint8_t**>(f->extended_data) : nullptr,
                    f ? f->nb_samples : 0);
    if (n < 0) fail(path, "resample", n);
    into.samples.resize(have + size_t(n) * size_t(out.channels));
  };
  decodeStreams(
      path, in.get(), {bestStream(path, in.get(), AVMEDIA_TYPE_AUDIO)}, [&](const AVStream* st, AVFrame* f) {
        if (!swr || f->format != inFormat || f->sample_rate != inRate ||
            f->ch_layout.nb_channels != out.channels) {
          if (swr && f->ch_layout.nb_channels != out.channels) fail(path, "channel count changes mid-stream");
          inFormat = f->format;
          inRate = f->sample_rate;
          out.channels = f->ch_layout.nb_channels;
          out.rate = rate > 0 ? rate : inRate;
          AVChannelLayout layout = layoutOf(f);
          SwrContext* s = nullptr;
          const int r = swr_alloc_set_opts2(&s, &layout, AV_SAMPLE_FMT_FLT, out.rate, &layout,
                                            AVSampleFormat(inFormat), inRate, 0, nullptr);
          av_channel_layout_uninit(&layout);
          swr.reset(s);
          if (r < 0 || swr_init(swr.get()) < 0) fail(path, "cannot convert the audio", r);
        }
        AudioFrame a;
        // As aresample: the frame's time in samples of both rates, less what swresample holds.
        if (f->best_effort_timestamp != AV_NOPTS_VALUE) {
          const int64_t both = av_rescale(f->best_effort_timestamp,
                                          st->time_base.num * int64_t(out.rate) * inRate, st->time_base.den);
          a.hasPts = true;
          const int64_t next = swr_next_pts(swr.get(), both);  // rounded as aresample's ROUNDED_DIV
          a.pts = (next >= 0 ? next + inRate / 2 : next - inRate / 2) / inRate;
        }
        convert(f, a);
        out.frames.push_back(std::move(a));
      });
  if (swr && !out.frames.empty()) convert(nullptr, out.frames.back());  // what the resampler still holds
  return out;
}

int decodeErrors(const std::string& path) {
  InputPtr in = openInput(path);
  std::vector<int> wanted;
  for (unsigned i = 0; i < in->nb_streams; ++i) {
    const AVMediaType t = in->streams[i]->codecpar->codec_type;
    if (t == AVMEDIA_TYPE_AUDIO || t == AVMEDIA_TYPE_VIDEO) wanted.push_back(int(i));
  }
  return decodeStreams(path, in.get(), wanted, [](const AVStream*, AVFrame*) {});
}

}  // namespace vp::test::probe
