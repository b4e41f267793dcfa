// noisyAudioCopy (clips.h): a copy of a clip with damaged audio packets, made with
// libavformat and FFmpeg's own noise bitstream filter, so no ffmpeg program is needed.
#include "support/clip_mux.h"
#include "support/clips.h"

extern "C" {
#include <libavcodec/bsf.h>
#include <libavutil/opt.h>
}

#include <vector>

namespace vp::test {
namespace {

using mux::check;
using mux::fail;

struct BsfFreer {
  void operator()(AVBSFContext* b) const { av_bsf_free(&b); }
};
using BsfPtr = std::unique_ptr<AVBSFContext, BsfFreer>;

BsfPtr openNoise(const AVStream* st, int amount) {
  const AVBitStreamFilter* noise = av_bsf_get_by_name("noise");
  if (!noise) fail("this libavcodec has no noise bitstream filter");
  AVBSFContext* raw = nullptr;
  check(av_bsf_alloc(noise, &raw), "noise filter");
  BsfPtr bsf(raw);
  check(avcodec_parameters_copy(bsf->par_in, st->codecpar), "noise filter");
  bsf->time_base_in = st->time_base;
  // A string: "amount" is an integer in FFmpeg 5 and an expression from FFmpeg 6 on.
  check(av_opt_set(bsf->priv_data, "amount", std::to_string(amount).c_str(), 0), "noise amount");
  check(av_bsf_init(bsf.get()), "noise filter");
  return bsf;
}

}  // namespace

std::string noisyAudioCopy(const std::string& src, const std::string& dst, int amount) {
  av::initLibav();
  AVFormatContext* rawIn = nullptr;
  check(avformat_open_input(&rawIn, src.c_str(), nullptr, nullptr), "cannot open '" + src + "'");
  const av::InputPtr in(rawIn);
  check(avformat_find_stream_info(in.get(), nullptr), "no stream info in '" + src + "'");
  mux::OutputPtr out = mux::openOutput(dst);
  std::vector<BsfPtr> noise(in->nb_streams);
  for (unsigned i = 0; i < in->nb_streams; ++i) {
    const AVStream* ist = in->streams[i];
    AVStream* ost = avformat_new_stream(out.get(), nullptr);
    if (!ost) fail("new stream");
    check(avcodec_parameters_copy(ost->codecpar, ist->codecpar), "stream parameters");
    ost->codecpar->codec_tag = 0;  // the input container's tag may mean nothing in the output's
    ost->time_base = ist->time_base;
    if (ist->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) noise[i] = openNoise(ist, amount);
  }
  check(avio_open(&out->pb, dst.c_str(), AVIO_FLAG_WRITE), "cannot write '" + dst + "'");
  check(avformat_write_header(out.get(), nullptr), "write header");
  // As ffmpeg does without -copyts: the input's start time becomes 0.
  const int64_t start = in->start_time == AV_NOPTS_VALUE ? 0 : in->start_time;
  const auto write = [&](AVPacket* p) {
    const AVRational itb = in->streams[p->stream_index]->time_base;
    const int64_t shift = av_rescale_q(start, AV_TIME_BASE_Q, itb);
    if (p->pts != AV_NOPTS_VALUE) p->pts -= shift;
    if (p->dts != AV_NOPTS_VALUE) p->dts -= shift;
    av_packet_rescale_ts(p, itb, out->streams[p->stream_index]->time_base);
    check(av_interleaved_write_frame(out.get(), p), "mux");
  };
  av::PacketPtr pkt = av::makePacket();
  while (av_read_frame(in.get(), pkt.get()) >= 0) {
    AVBSFContext* bsf = noise[size_t(pkt->stream_index)].get();
    if (!bsf) {
      write(pkt.get());
      continue;
    }
    const int index = pkt->stream_index;
    check(av_bsf_send_packet(bsf, pkt.get()), "noise filter");
    while (av_bsf_receive_packet(bsf, pkt.get()) >= 0) {
      pkt->stream_index = index;
      write(pkt.get());
    }
  }
  check(av_write_trailer(out.get()), "write trailer");
  return dst;
}

}  // namespace vp::test
