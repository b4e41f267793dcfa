#include "support/clip_mux.h"

#include <stdexcept>

namespace vp::test::mux {

void fail(const std::string& what, int err) {
  throw std::runtime_error("clips: " + what + (err ? " (" + av::errorText(err) + ")" : ""));
}

void check(int r, const std::string& what) {
  if (r < 0) fail(what, r);
}

void OutputCloser::operator()(AVFormatContext* c) const {
  if (c->pb) avio_closep(&c->pb);
  avformat_free_context(c);
}

OutputPtr openOutput(const std::string& path) {
  AVFormatContext* oc = nullptr;
  check(avformat_alloc_output_context2(&oc, nullptr, nullptr, path.c_str()), "no container for '" + path + "'");
  return OutputPtr(oc);
}

void writePackets(AVCodecContext* enc, const AVFrame* frame, AVFormatContext* oc, AVStream* st, int64_t offsetUs) {
  check(avcodec_send_frame(enc, frame), "encode");
  const int64_t offset = av_rescale_q(offsetUs, av::kMicros, st->time_base);
  av::PacketPtr pkt = av::makePacket();
  for (;;) {
    const int r = avcodec_receive_packet(enc, pkt.get());
    if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
    check(r, "encode");
    av_packet_rescale_ts(pkt.get(), enc->time_base, st->time_base);
    if (pkt->pts != AV_NOPTS_VALUE) pkt->pts += offset;
    if (pkt->dts != AV_NOPTS_VALUE) pkt->dts += offset;
    pkt->stream_index = st->index;
    check(av_interleaved_write_frame(oc, pkt.get()), "mux");
  }
}

}  // namespace vp::test::mux
