#include "io/output/video_encoder.h"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

namespace vp {
namespace {

[[noreturn]] void fail(const EncoderOptions& opt, const std::string& reason) {
  throw EncoderError("'" + opt.path + "': " + reason);
}

}  // namespace

VideoEncoder openVideoEncoder(const EncoderOptions& opt, AVFormatContext* oc, const AVCodec* codec) {
  const std::string name = codec->name;
  AVPixelFormat pix;
  if (name == "ffv1")
    pix = AV_PIX_FMT_BGR0;  // lossless RGB: no YUV round trip
  else if (name == "rawvideo")
    pix = AV_PIX_FMT_RGB24;
  else if (codec->pix_fmts)
    pix = avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, AV_PIX_FMT_YUV420P, 0, nullptr);
  else
    pix = AV_PIX_FMT_YUV420P;
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(pix);
  const bool yuv = desc && !(desc->flags & AV_PIX_FMT_FLAG_RGB) && desc->nb_components >= 3;
  int w = opt.width, h = opt.height;
  if (yuv && desc->log2_chroma_w) w = std::max(2, w & ~1);
  if (yuv && desc->log2_chroma_h) h = std::max(2, h & ~1);
  if (w != opt.width || h != opt.height)
    spdlog::info("'{}': encoding {}x{} as {}x{} ({} needs even sizes)", opt.path, opt.width, opt.height, w, h,
                 av_get_pix_fmt_name(pix));

  VideoEncoder v;
  v.enc.reset(avcodec_alloc_context3(codec));
  if (!v.enc) throw std::bad_alloc();
  AVCodecContext* c = v.enc.get();
  c->width = w;
  c->height = h;
  c->pix_fmt = pix;
  c->framerate = av_d2q(opt.fps > 0 ? opt.fps : 30, 100000);
  // Microsecond timestamps where the codec and container take any time base; a
  // fixed frame rate where they count frames (AVI, MPEG-4 part 2).
  const bool fixedRate = std::strcmp(oc->oformat->name, "avi") == 0 || codec->id == AV_CODEC_ID_MPEG4;
  c->time_base = fixedRate ? av_inv_q(c->framerate) : av::kMicros;
  c->gop_size = std::max(1, int(2 * av_q2d(c->framerate)));  // a keyframe every ~2 s
  c->thread_count = opt.threads;
  c->sample_aspect_ratio = {1, 1};
  if (yuv) {  // RGB -> YUV with BT.709, limited range; tagged so players agree
    c->colorspace = AVCOL_SPC_BT709;
    c->color_primaries = AVCOL_PRI_BT709;
    c->color_trc = AVCOL_TRC_BT709;
    c->color_range = AVCOL_RANGE_MPEG;
  }
  if (oc->oformat->flags & AVFMT_GLOBALHEADER) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (name == "libx264") {
    av_opt_set(c->priv_data, "preset", opt.preset.c_str(), 0);
    av_opt_set_double(c->priv_data, "crf", opt.crf, 0);
  } else if (name == "ffv1") {
    // FFV1 version 3: slices (encodes on all cores) with CRCs. FFmpeg 5.1's v3
    // encoder garbles pictures less than 3 pixels wide or high (slices of no
    // pixels): those take version 1, which has no slices.
    c->level = c->width < 3 || c->height < 3 ? 1 : 3;
  } else if (codec->id == AV_CODEC_ID_MPEG4) {
    c->flags |= AV_CODEC_FLAG_QSCALE;
    c->global_quality = FF_QP2LAMBDA * 2;  // near-transparent constant quality
  }
  int r = avcodec_open2(c, codec, nullptr);
  // A hardware encoder (h264_nvenc ...) fails on GPUs without that engine (the H200
  // has NVDEC but no NVENC) with a generic error: say what it means.
  if (r < 0 && (codec->capabilities & AV_CODEC_CAP_HARDWARE))
    fail(opt, std::string("cannot open the ") + codec->name +
         " encoder: no hardware encoder on this machine (the GPU has no NVENC, or its driver library is missing); "
         "use libx264 or ffv1");
  if (r < 0) fail(opt, "cannot open the " + name + " encoder (" + av::errorText(r) + ")");

  AVStream* stream = v.stream = avformat_new_stream(oc, nullptr);
  if (!stream) throw std::bad_alloc();
  if ((r = avcodec_parameters_from_context(stream->codecpar, c)) < 0)
    fail(opt, "bad encoder parameters (" + av::errorText(r) + ")");
  stream->time_base = c->time_base;
  stream->avg_frame_rate = c->framerate;

  v.frame = av::makeFrame();
  v.frame->format = pix;
  v.frame->width = w;
  v.frame->height = h;
  if ((r = av_frame_get_buffer(v.frame.get(), 0)) < 0) fail(opt, "out of memory (" + av::errorText(r) + ")");
  return v;
}


}  // namespace vp
