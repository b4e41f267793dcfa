// The video encoder of an output file: the codec context EncoderSink's frames go through
// and its stream in the container. Internal to io/ (EncoderSink uses it).
#pragma once

#include "io/av_util.h"
#include "io/output/encoder_sink.h"

namespace vp {

struct VideoEncoder {
  av::CodecPtr enc;
  AVStream* stream = nullptr;  // owned by the format context
  av::FramePtr frame;          // the encoder's input, in its pixel format and (even) size
};

// Opens `codec` for opt's size, rate, threads and quality (pixel format: the codec's
// best for RGB input; BT.709 limited range for YUV) and adds its stream to `oc` before
// the header is written. Throws EncoderError naming opt.path.
VideoEncoder openVideoEncoder(const EncoderOptions& opt, AVFormatContext* oc, const AVCodec* codec);

}  // namespace vp
