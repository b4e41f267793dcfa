#include "support/media_probe_video.h"

#include "support/media_probe_av.h"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace vp::test::probe {

using namespace detail;

namespace {

struct SwsFreer {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using SwsPtr = std::unique_ptr<SwsContext, SwsFreer>;

int firstVideo(const std::string& path, const AVFormatContext* in) {
  for (unsigned i = 0; i < in->nb_streams; ++i)
    if (in->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) return int(i);
  fail(path, "no video stream");
}

// ffprobe's -of json value for a time: "%f" of ts * tb.
std::string timeString(int64_t ts, AVRational tb) {
  char s[64];
  std::snprintf(s, sizeof s, "%f", double(ts) * av_q2d(tb));
  return s;
}

// The matrix coefficients vf_scale (FFmpeg 5.1) takes for in_color_matrix=auto.
const int* coefficients(AVColorSpace cs) {
  if (cs < 1 || cs > 10 || cs == 8) cs = AVCOL_SPC_BT470BG;
  return sws_getCoefficients(cs);
}

// `f` as packed `fmt` bytes: copied when the formats match, else converted at the same
// size as vf_scale converts it (flags bicubic, the ffmpeg program's default sws_flags;
// the frame's matrix for both sides, its range when it states one).
std::vector<uint8_t> rawFrame(const std::string& path, const AVFrame* f, AVPixelFormat fmt, SwsPtr& sws) {
  const int bytes = av_image_get_buffer_size(fmt, f->width, f->height, 1);
  if (bytes < 0) fail(path, "raw frame size", bytes);
  std::vector<uint8_t> out(size_t(bytes), 0);
  if (f->format == fmt) {
    const int r = av_image_copy_to_buffer(out.data(), bytes, f->data, f->linesize, fmt, f->width, f->height, 1);
    if (r < 0) fail(path, "copy frame", r);
    return out;
  }
  sws.reset(sws_getContext(f->width, f->height, AVPixelFormat(f->format), f->width, f->height, fmt, SWS_BICUBIC,
                           nullptr, nullptr, nullptr));
  if (!sws) fail(path, std::string("cannot convert to ") + av_get_pix_fmt_name(fmt));
  int *invTable = nullptr, *table = nullptr, inFull = 0, outFull = 0, brightness = 0, contrast = 0, saturation = 0;
  sws_getColorspaceDetails(sws.get(), &invTable, &inFull, &table, &outFull, &brightness, &contrast, &saturation);
  const int* matrix = coefficients(f->colorspace);
  if (f->color_range != AVCOL_RANGE_UNSPECIFIED) inFull = f->color_range == AVCOL_RANGE_JPEG;
  sws_setColorspaceDetails(sws.get(), matrix, inFull, matrix, outFull, brightness, contrast, saturation);
  // Into a padded frame as vf_scale's (swscale may write past a row's end), then packed.
  FramePtr to = newFrame();
  to->format = fmt;
  to->width = f->width;
  to->height = f->height;
  if (const int r = av_frame_get_buffer(to.get(), 0); r < 0) fail(path, "frame buffer", r);
  sws_scale(sws.get(), f->data, f->linesize, 0, f->height, to->data, to->linesize);
  if (const int r = av_image_copy_to_buffer(out.data(), bytes, to->data, to->linesize, fmt, f->width, f->height, 1);
      r < 0)
    fail(path, "copy frame", r);
  return out;
}

}  // namespace

nlohmann::json videoStream(const std::string& path) {
  InputPtr in = openInput(path);
  const AVStream* st = in->streams[firstVideo(path, in.get())];
  const AVCodecParameters* par = st->codecpar;
  nlohmann::json j;
  j["index"] = st->index;
  const AVCodecDescriptor* cd = avcodec_descriptor_get(par->codec_id);
  j["codec_name"] = cd ? cd->name : "unknown";
  j["codec_type"] = "video";
  j["width"] = par->width;
  j["height"] = par->height;
  const char* pix = av_get_pix_fmt_name(AVPixelFormat(par->format));
  j["pix_fmt"] = pix ? pix : "unknown";
  // ffprobe (json) leaves out an unspecified tag, and a field order it cannot name.
  const auto tag = [&](const char* key, const char* name, bool unspecified) {
    if (name && !unspecified) j[key] = name;
  };
  tag("color_range", av_color_range_name(par->color_range), par->color_range == AVCOL_RANGE_UNSPECIFIED);
  tag("color_space", av_color_space_name(par->color_space), par->color_space == AVCOL_SPC_UNSPECIFIED);
  tag("color_transfer", av_color_transfer_name(par->color_trc), par->color_trc == AVCOL_TRC_UNSPECIFIED);
  tag("color_primaries", av_color_primaries_name(par->color_primaries),
      par->color_primaries == AVCOL_PRI_UNSPECIFIED);
  static const char* const orders[] = {"unknown", "progressive", "tt", "bb", "tb", "bt"};
  if (par->field_order > AV_FIELD_UNKNOWN && par->field_order <= AV_FIELD_BT) j["field_order"] = orders[par->field_order];
  return j;
}

std::vector<nlohmann::json> videoFrames(const std::string& path) {
  InputPtr in = openInput(path);
  std::vector<nlohmann::json> out;
  decodeStreams(path, in.get(), {firstVideo(path, in.get())}, [&](const AVStream* st, AVFrame* f) {
    nlohmann::json j;
    j["media_type"] = "video";
    j["stream_index"] = st->index;
    j["key_frame"] = f->key_frame;
    if (f->pts != AV_NOPTS_VALUE) j["pts"] = f->pts, j["pts_time"] = timeString(f->pts, st->time_base);
    if (f->best_effort_timestamp != AV_NOPTS_VALUE) {
      j["best_effort_timestamp"] = f->best_effort_timestamp;
      j["best_effort_timestamp_time"] = timeString(f->best_effort_timestamp, st->time_base);
    }
    j["width"] = f->width;
    j["height"] = f->height;
    const char* pix = av_get_pix_fmt_name(AVPixelFormat(f->format));
    j["pix_fmt"] = pix ? pix : "unknown";
    j["pict_type"] = std::string(1, av_get_picture_type_char(f->pict_type));
    out.push_back(std::move(j));
  });
  return out;
}

DecodedVideo decodeVideo(const std::string& path, const std::string& pixFmt) {
  const AVPixelFormat fmt = av_get_pix_fmt(pixFmt.c_str());
  if (fmt == AV_PIX_FMT_NONE) throw std::invalid_argument("decodeVideo: unknown pixel format " + pixFmt);
  InputPtr in = openInput(path);
  DecodedVideo v;
  SwsPtr sws;
  decodeStreams(path, in.get(), {firstVideo(path, in.get())}, [&](const AVStream*, AVFrame* f) {
    if (v.frames.empty()) v.width = f->width, v.height = f->height;
    v.frames.push_back(rawFrame(path, f, fmt, sws));
    v.sizes.emplace_back(f->width, f->height);
  });
  return v;
}

}  // namespace vp::test::probe
