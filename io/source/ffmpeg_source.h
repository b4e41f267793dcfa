// The libavformat/libavcodec Source: files, capture devices and lavfi graphs.
//
// Threads (ffplay's read thread and video decoder, one model with or without sound): the
// caller's thread opens (constructor) and controls (start, stop, seek, info, stats); the
// demux thread (io/source/demuxer.h) reads packets, carries out seeks and --loop
// restarts, queues the video (io/source/video_packet_queue.h) and hands the audio to the
// sink; the video thread (io/source/video_decoder.h) decodes and fills the FrameQueue.
// They share io/source/source_control.h. A full FrameQueue holds back only the video
// thread; full packet queues hold back the demuxer. stop() wakes every wait: the queues'
// abort(), SourceControl's condition, libav's interrupt callback.
#pragma once

#include "io/source.h"
#include "io/source/demuxer.h"
#include "io/source/source_control.h"
#include "io/source/video_decoder.h"
#include "io/source/video_packet_queue.h"

#include <thread>

namespace vp {

class FfmpegSource final : public Source {
 public:
  // Opens the input and its decoder; throws SourceError (one line, naming the input).
  explicit FfmpegSource(const SourceOptions& options);
  ~FfmpegSource() override;

  SourceInfo info() const override { return control_.info(); }
  void start(FrameQueue& queue) override;  // once per source
  void stop() override;
  bool seek(int64_t targetUs) override { return control_.requestSeek(targetUs, queue_); }
  SourceStats stats() const override { return control_.stats(); }
  std::string fatalError() const override { return control_.fatal(); }
  uint32_t serial() const override { return control_.serial(); }
  AudioTrackInfo audioTrack() const override { return demuxer_.audioTrack(); }
  void setAudioSink(AudioPacketSink* sink) override { audioSink_ = sink; }

 private:
  // In this order: the decoder goes before the demuxer, both before what they share.
  SourceControl control_;
  Demuxer demuxer_;
  VideoDecoder decoder_;
  VideoPacketQueue packets_;            // demux thread -> video thread
  FrameQueue* queue_ = nullptr;         // set by start()
  AudioPacketSink* audioSink_ = nullptr;  // set before start()
  std::thread demuxThread_, videoThread_;
};

}  // namespace vp
