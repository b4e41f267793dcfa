// FfmpegSource's video decoder (after ffplay's Decoder): on the video thread it pops the
// demuxer's packets (io/source/video_packet_queue.h), decodes them and writes each frame
// into the consumer's FrameQueue, blocking while it is full (which paces decoding to the
// consumer and holds back nothing but the video). It owns the codec context: software
// (frame + slice threads; slices only for live inputs) or FFmpeg's nvdec (--hwdec,
// io/video/hw_decode.h, with its fallback to software), autorotation (io/video/rotate.h),
// the colour report (io/video/color_report.h) and the frame side of SourceInfo.
//
// Markers: Seek starts a serial (decoder flushed, frames shown from the target on, timed
// from the file start again); packets of an older serial than the latest request are
// skipped and their frames dropped. End drains the decoder, then either starts the next
// --loop pass (timed on from where this one ended) or pushes the endOfStream frame; an
// input that ended without a single decodable frame is an error naming the decode errors.
// Either way the demuxer hears the verdict (io/source/source_control.h). Drain and Stream
// carry a --reconnect: frames out, then a decoder for the returned device.
#pragma once

#include "io/av_util.h"
#include "io/frame_queue.h"
#include "io/source.h"
#include "io/source/source_control.h"
#include "io/source/video_packet_queue.h"
#include "io/video/color_report.h"
#include "io/video/hw_decode.h"
#include "io/video/pixel_format_map.h"

#include <memory>
#include <string>
#include <vector>

namespace vp {

class VideoDecoder {
 public:
  // Opens a decoder for `stream`; `device`: a capture device or lavfi graph (software, and
  // no verdict on a stream without frames); `live`: low latency; `seekable`: --loop can
  // restart. Throws SourceError (one line, naming the input).
  VideoDecoder(const SourceOptions& options, SourceControl& control, const VideoStream& stream, bool device,
               bool live, bool seekable);

  // The video thread, until stop() or an error: `packets` decoded into `frames` (both
  // outlive it). An error ends the stream (fatal, then the endOfStream frame).
  void run(VideoPacketQueue& packets, FrameQueue& frames);

 private:
  void open(const VideoStream& stream);
  void setUpHardware();
  void openCodec(bool hardware);
  void startSerial(uint32_t serial, int64_t targetUs);
  void endOfPass();
  void decodePacket(const AVPacket* packet);
  void checkHardware(const AVPacket* packet);
  void receiveFrames();
  void emitFrame(const AVFrame& frame);
  void describeSurface(HostFrame& out, const AVFrame& f, PixelFormat format);
  void reportFormat(const AVFrame& f, const FrameLayout& shown, bool onDevice);
  void pushEndOfStream();
  bool stale() const;

  const SourceOptions options_;
  SourceControl& control_;
  const bool device_, live_, loops_;
  // --hwdec: FFmpeg's nvdec on our CUDA context. Declared before dec_, which refers to
  // it (get_format), so the decoder is freed first.
  std::unique_ptr<av::HwDecode> hw_;
  av::CodecPtr dec_;
  std::shared_ptr<const AVCodecParameters> params_;  // the stream's (VideoStream)
  const AVCodec* codec_ = nullptr;
  AVRational timeBase_{0, 1};
  double fps_ = 0;
  int rotation_ = 0;

  // Video-thread state.
  FrameQueue* frames_ = nullptr;
  av::FrameWriter writer_;
  av::ColorReport colorReport_{options_.url};
  std::vector<uint8_t> unrotated_;  // a frame before rotation; grows on size changes only
  av::FramePtr frame_;
  uint32_t frameSerial_ = 0;        // serial stamped on frames
  int64_t originTs_ = AV_NOPTS_VALUE;  // time 0 (stream time base), from the demuxer's packets
  int64_t loopOffsetUs_ = 0;        // added to pts after each loop restart
  int64_t endUs_ = 0;               // end of the latest frame (pts + duration), microseconds
  int64_t nextPtsUs_ = 0;           // predicted pts for frames without a timestamp
  int64_t skipBeforeUs_ = -1;       // after a seek: frames ending before it are skipped (-1: none)
  int64_t index_ = 0;               // decode order index
  int64_t framesThisPass_ = 0;      // frames since the last (re)start, to stop empty loops
  bool decodedAny_ = false;         // the decoder has produced a frame (shown or skipped)
  // What SourceInfo says of the frames, to update it on changes only.
  bool reported_ = false;
  std::string lastFormatName_;
  int lastWidth_ = 0, lastHeight_ = 0;
  bool lastOnDevice_ = false;       // the last frame was an nvdec surface (info decodePath)
  bool hwFellBack_ = false;         // the hardware decoder's fallback was handled (one notice)
  int64_t framesFromCodec_ = 0;     // frames the current codec context has produced
};

}  // namespace vp
