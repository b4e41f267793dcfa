// Internal helpers shared by io/'s libav code: error text, logging, owners.
// Not part of io/'s public interface (only io/*.cpp include it).
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

namespace vp::av {

// Installs (once per process) the log callback that routes libav's messages to
// spdlog at debug level and counts errors reported by tapped contexts.
void initLibav();

// "Invalid data found when processing input" for an AVERROR code.
std::string errorText(int err);

// Attach to AVCodecContext::opaque or AVFormatContext::opaque: every message of
// level AV_LOG_ERROR or worse logged by that context is counted in `errors`.
// (Frame-threaded decoders copy `opaque` into their per-thread contexts.)
struct LogTap {
  static constexpr uint32_t kMagic = 0x76704c54;  // "vpLT": recognises our opaque pointers
  uint32_t magic = kMagic;
  std::atomic<int64_t> errors{0};
  void* hw = nullptr;  // the HwDecode whose get_format serves this decoder (io/video/hw_decode.h)
};

struct FormatInputDeleter {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using InputPtr = std::unique_ptr<AVFormatContext, FormatInputDeleter>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;

FramePtr makeFrame();    // throws std::bad_alloc
PacketPtr makePacket();  // throws std::bad_alloc

constexpr AVRational kMicros = {1, 1000000};

// An enum field libav filled from the stream, as an int. Decoders copy fields
// such as the colour matrix from the bitstream unchecked (a damaged H.264 VUI gave
// AVColorSpace 126), and loading an enum outside its range is undefined in C++.
template <class Enum>
int enumValue(const Enum& field) {
  static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int));
  int v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

}  // namespace vp::av
