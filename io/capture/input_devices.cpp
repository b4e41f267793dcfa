// vp_io_devices: capture devices and lavfi through libavdevice (+ libavfilter).
#include "io/capture/input_devices.h"

extern "C" {
#include <libavdevice/avdevice.h>
}

#include "io/av_util.h"

#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace vp {

bool registerInputDevices() {
  static std::once_flag once;
  std::call_once(once, [] { avdevice_register_all(); });
  return true;
}

namespace {

// Text logged by one format context, found through its opaque pointer.
struct FormatCapture {
  static constexpr uint32_t kMagic = 0x76704c46;  // "vpLF"
  uint32_t magic = kMagic;
  std::string text;
};

void captureLog(void* avcl, int level, const char* fmt, va_list args) {
  if (!avcl || level > AV_LOG_INFO || *static_cast<const AVClass**>(avcl) != avformat_get_class()) return;
  auto* capture = static_cast<FormatCapture*>(static_cast<AVFormatContext*>(avcl)->opaque);
  if (!capture || capture->magic != FormatCapture::kMagic) return;
  char line[512];
  std::vsnprintf(line, sizeof line, fmt, args);
  capture->text += std::string("    ") + line;
}

// The formats the driver lists for `device` (v4l2's list_formats option).
std::string formatsOf(const AVInputFormat* v4l2, const char* device) {
  FormatCapture capture;
  AVFormatContext* ctx = avformat_alloc_context();
  if (!ctx) return "";
  ctx->opaque = &capture;
  AVDictionary* opts = nullptr;
  av_dict_set(&opts, "list_formats", "all", 0);
  av_log_set_callback(captureLog);
  if (avformat_open_input(&ctx, device, v4l2, &opts) >= 0) avformat_close_input(&ctx);  // frees ctx on failure
  av_log_set_callback(av_log_default_callback);
  av_dict_free(&opts);
  return capture.text.empty() ? "    (no formats reported)\n" : capture.text;
}

}  // namespace

std::string listCaptureDevices() {
  registerInputDevices();
  const AVInputFormat* v4l2 = av_find_input_format("video4linux2");
  if (!v4l2) return "no capture-device support: this libavdevice has no v4l2\n";
  AVDeviceInfoList* list = nullptr;
  const int n = avdevice_list_input_sources(v4l2, nullptr, nullptr, &list);
  std::string out;
  if (n <= 0 || !list) {
    out = "no capture devices found";
    if (n < 0) out += " (" + av::errorText(n) + ")";
    out += "\n";
  } else {
    for (int i = 0; i < list->nb_devices; ++i) {
      const AVDeviceInfo* d = list->devices[i];
      out += std::string(d->device_name) + "  " + (d->device_description ? d->device_description : "") + "\n";
      out += formatsOf(v4l2, d->device_name);
    }
  }
  avdevice_free_list_devices(&list);
  return out;
}

}  // namespace vp
