// Internal to the media_probe*.cpp readers: their owners of libav objects and the opening
// and decoding they share. Tests use media_probe.h and media_probe_video.h.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vp::test::probe::detail {

// Own small owners rather than io/'s: this reader shares no code with the code under test.
struct InputCloser {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecFreer {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct PacketFreer {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct FrameFreer {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
using InputPtr = std::unique_ptr<AVFormatContext, InputCloser>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecFreer>;
using PacketPtr = std::unique_ptr<AVPacket, PacketFreer>;
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;

// Throws std::runtime_error("probe PATH: what (libav's text for err)").
[[noreturn]] void fail(const std::string& path, const std::string& what, int err = 0);
PacketPtr newPacket();
FramePtr newFrame();
// Opened and probed as ffprobe does (scan_all_pmts, avformat_find_stream_info).
InputPtr openInput(const std::string& path);
std::string typeName(AVMediaType t);
// ts * tb in seconds; NaN for AV_NOPTS_VALUE.
double seconds(int64_t ts, AVRational tb);
CodecPtr openDecoder(const std::string& path, const AVStream* st);
// Decodes `wanted` streams to their ends, handing each frame to onFrame(stream, frame);
// returns how many packets or frames the decoders refused (those are skipped).
int decodeStreams(const std::string& path, AVFormatContext* in, const std::vector<int>& wanted,
                  const std::function<void(const AVStream*, AVFrame*)>& onFrame);

}  // namespace vp::test::probe::detail
