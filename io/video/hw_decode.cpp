#include "io/video/hw_decode.h"

#include "io/source.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace vp {
namespace {

// The comma-separated entries of `list`, blanks around each dropped.
std::vector<std::string_view> entries(std::string_view list) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t comma = list.find(',');
    std::string_view e = list.substr(0, comma);
    while (!e.empty() && e.front() == ' ') e.remove_prefix(1);
    while (!e.empty() && e.back() == ' ') e.remove_suffix(1);
    out.push_back(e);
    if (comma == std::string_view::npos) return out;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

std::string hwdecCodecsError(std::string_view list) {
  if (list == "all") return "";
  for (std::string_view e : entries(list)) {
    if (e.empty()) return "an empty entry in '" + std::string(list) + "' (codec names separated by commas, or all)";
    const AVCodecDescriptor* d = avcodec_descriptor_get_by_name(std::string(e).c_str());
    if (!d || d->type != AVMEDIA_TYPE_VIDEO)
      return "'" + std::string(e) + "' is not a video codec FFmpeg knows (e.g. h264, hevc, vp9, av1, mpeg2video, mpeg4)";
  }
  return "";
}

bool hwdecCodecListed(std::string_view codec, std::string_view list) {
  if (list == "all") return true;
  for (std::string_view e : entries(list))
    if (e == codec) return true;
  return false;
}

namespace av {

HwDecode::HwDecode(int gpu) : device_(gpu) {
  AVBufferRef* ref = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
  if (!ref) throw std::runtime_error("this FFmpeg has no CUDA support");
  auto* hw = reinterpret_cast<AVHWDeviceContext*>(ref->data);
  auto* cuda = static_cast<AVCUDADeviceContext*>(hw->hwctx);
  cuda->cuda_ctx = static_cast<CUcontext>(device_.context());
  cuda->stream = reinterpret_cast<CUstream>(device_.stream());
  const int r = av_hwdevice_ctx_init(ref);  // loads libcuda through FFmpeg's loader; keeps our context
  if (r < 0) {
    av_buffer_unref(&ref);
    throw std::runtime_error("FFmpeg's CUDA device context failed (" + errorText(r) + ")");
  }
  deviceRef_ = ref;
}

HwDecode::~HwDecode() { av_buffer_unref(&deviceRef_); }

std::string HwDecode::unsupportedReason(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* c = avcodec_get_hw_config(codec, i);
    if (!c) break;
    if (c->device_type == AV_HWDEVICE_TYPE_CUDA && (c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
      return "";
  }
  return std::string("NVDEC does not decode ") + codec->name;
}

void HwDecode::attach(AVCodecContext* dec, LogTap& tap) {
  tap.hw = this;
  dec->hw_device_ctx = av_buffer_ref(deviceRef_);
  if (!dec->hw_device_ctx) throw std::bad_alloc();
  dec->get_format = &HwDecode::getFormat;
  dec->extra_hw_frames = kExtraFrames;
  int threads = kFrameThreads;
  if (const char* env = std::getenv("VP_NVDEC_THREADS")) threads = std::clamp(std::atoi(env), 1, 8);
  dec->thread_count = threads;
  dec->thread_type = threads > 1 ? FF_THREAD_FRAME : FF_THREAD_SLICE;
}

AVPixelFormat HwDecode::getFormat(AVCodecContext* c, const AVPixelFormat* formats) {
  auto* tap = static_cast<LogTap*>(c->opaque);
  auto* self = static_cast<HwDecode*>(tap->hw);
  bool offered = false;
  for (const AVPixelFormat* p = formats; *p != AV_PIX_FMT_NONE; ++p) offered |= *p == AV_PIX_FMT_CUDA;
  const AVPixFmtDescriptor* sw = av_pix_fmt_desc_get(c->sw_pix_fmt);
  const char* swName = av_get_pix_fmt_name(c->sw_pix_fmt);
  const char* profile = avcodec_profile_name(c->codec_id, c->profile);
  const std::string what = std::string(c->codec ? c->codec->name : "?") + (profile ? std::string(" ") + profile : "") +
                           " " + (swName ? swName : "?") + " " + std::to_string(c->coded_width) + "x" +
                           std::to_string(c->coded_height);
  if (offered && sw && sw->comp[0].depth <= 10) {
    self->state_ = State::Hardware;
    self->errorsAtChoice_ = tap->errors.load();
    self->framesAtChoice_ = c->frame_number;
    return AV_PIX_FMT_CUDA;
  }
  if (!offered && self->errorsAtChoice_ >= 0 && c->frame_number == self->framesAtChoice_)
    tap->errors = self->errorsAtChoice_;  // logged by the failed hwaccel init, not by the stream
  self->errorsAtChoice_ = -1;
  if (self->state_.load() != State::Software)
    self->reason_ = offered ? "NVDEC output deeper than 10 bits is not used (" + what + ")"
                            : "NVDEC cannot decode this stream (" + what + ")";
  self->state_ = State::Software;
  for (const AVPixelFormat* p = formats; *p != AV_PIX_FMT_NONE; ++p) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(*p);
    if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
  }
  return AV_PIX_FMT_NONE;
}

bool HwDecode::surfaceFormat(const AVFrame& f, PixelFormat& out) {
  if (f.format != AV_PIX_FMT_CUDA || !f.hw_frames_ctx) return false;
  switch (reinterpret_cast<const AVHWFramesContext*>(f.hw_frames_ctx->data)->sw_format) {
    case AV_PIX_FMT_NV12: out = PixelFormat::Nv12; return true;
    case AV_PIX_FMT_P010LE: out = PixelFormat::P010; return true;
    case AV_PIX_FMT_YUV444P: out = PixelFormat::Yuv444p; return true;
    case AV_PIX_FMT_YUV444P16LE: out = PixelFormat::Yuv444p16; return true;
    default: return false;
  }
}

}  // namespace av
}  // namespace vp
