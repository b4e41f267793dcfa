#include "io/av_util.h"

extern "C" {
#include <libavutil/log.h>
}

#include <spdlog/spdlog.h>

#include <cstring>
#include <mutex>
#include <new>

namespace vp::av {
namespace {

LogTap* tapOf(void* avcl) {
  if (!avcl) return nullptr;
  const AVClass* cls = *static_cast<const AVClass**>(avcl);
  void* opaque = nullptr;
  if (cls == avcodec_get_class())
    opaque = static_cast<AVCodecContext*>(avcl)->opaque;
  else if (cls == avformat_get_class())
    opaque = static_cast<AVFormatContext*>(avcl)->opaque;
  auto* tap = static_cast<LogTap*>(opaque);
  return tap && tap->magic == LogTap::kMagic ? tap : nullptr;
}

void logCallback(void* avcl, int level, const char* fmt, va_list args) {
  if (level > AV_LOG_WARNING) return;  // info/verbose/debug chatter: dropped unformatted
  if (level <= AV_LOG_ERROR)
    if (LogTap* tap = tapOf(avcl)) tap->errors.fetch_add(1, std::memory_order_relaxed);
  if (!spdlog::should_log(spdlog::level::debug)) return;
  char line[1024];
  int prefix = 1;
  va_list copy;
  va_copy(copy, args);
  av_log_format_line2(avcl, level, fmt, copy, line, sizeof line, &prefix);
  va_end(copy);
  size_t n = std::strlen(line);
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
  if (n > 0) spdlog::debug("[libav] {}", line);
}

}  // namespace

void initLibav() {
  static std::once_flag once;
  std::call_once(once, [] {
    av_log_set_level(AV_LOG_WARNING);  // lets libav skip building verbose messages
    av_log_set_callback(logCallback);
  });
}

std::string errorText(int err) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(err, buf, sizeof buf);
  return buf;
}

FramePtr makeFrame() {
  FramePtr f(av_frame_alloc());
  if (!f) throw std::bad_alloc();
  return f;
}

PacketPtr makePacket() {
  PacketPtr p(av_packet_alloc());
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace vp::av
