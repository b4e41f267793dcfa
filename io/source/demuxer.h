// FfmpegSource's demuxer (after ffplay's read thread and mpv's demux/): opens the input
// (file, memory, capture device, lavfi graph), picks the video stream and the audio track,
// and on the demux thread reads packets: video into the VideoPacketQueue for the video
// thread (io/source/video_decoder.h), audio to the AudioPacketSink. It carries out seeks
// (the input sought, the video packets flushed, a Seek marker queued; in MPEG-TS, video
// before the keyframe the target needs dropped and a landing past it sought again from
// further back: demuxer_seek.cpp, seek_landing.h) and --loop restarts (the audio offset by
// where the video's pass ended), and handles read errors: a damaged spot in a file is
// skipped, a lost device ends the stream or, with --reconnect, is reopened, as is a live
// network stream that ends, fails or (over a connection) stalls. Live inputs (--latency)
// probe briefly; their packets are stamped with their arrival (demuxer_live.cpp).
//
// The one read loop: apply a pending seek; wait while the packet queues are full
// (io/source/video_packet_queue.h); read and route a packet. At the end of the input:
// queue an End marker, then wait for the video thread's verdict (io/source/source_control.h):
// restart from the start (--loop) or wait for a seek or stop. Every blocking point returns
// on stop: libav's I/O through the interrupt callback, the waits through SourceControl.
#pragma once

#include "io/audio/audio_stream.h"
#include "io/av_util.h"
#include "io/source.h"
#include "io/source/memory_input.h"
#include "io/source/seek_landing.h"
#include "io/source/source_control.h"
#include "io/source/video_packet_queue.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace vp {

class Demuxer {
 public:
  // Opens the input and picks its streams; sets the SourceInfo known from the container.
  // Throws SourceError (one line, naming the input).
  Demuxer(const SourceOptions& options, SourceControl& control);

  // The video stream to decode, as opened.
  std::shared_ptr<const VideoStream> videoStream() const { return videoStream_; }
  const AudioTrackInfo& audioTrack() const { return audio_; }  // empty without one
  bool device() const { return device_; }  // capture device or lavfi: unseekable, software decoded
  bool live() const { return live_; }      // low-latency handling (SourceOptions::latency)
  bool seekable() const { return seekable_; }

  // The demux thread, until stop(): `video` gets the video packets, `audio` (nullptr: none)
  // the audio track's; both outlive it.
  void run(VideoPacketQueue& video, AudioPacketSink* audio);

 private:
  // Opening (demuxer.cpp).
  [[noreturn]] void fail(const std::string& reason) const;      // "'url': reason"
  [[noreturn]] void failOpen(const std::string& reason) const;  // "cannot open 'url': reason"
  void checkPath(bool captureDevice) const;
  void openInput(const std::string& format);
  void selectVideo();
  void selectAudio();
  void publishInfo();

  // The read loop (demuxer.cpp).
  void readLoop();
  bool queuesFull() const;
  void route(AVPacket& packet);
  void noteOrigin(const AVPacket& packet);
  void passAudio(const AVPacket& packet);

  // Live inputs, deadlines, read errors, --reconnect (demuxer_live.cpp).
  static int interrupted(void* self);
  void setDeadline(int64_t fromNowUs);  // 0: none
  void decideLive(bool capture);
  static std::string silenceText(int64_t us);  // "no data for 3 s (...)"
  bool reconnectsAtEnd() const;
  bool readFailed(int err, int& consecutiveErrors);
  bool reconnect(const std::string& why);

  // Seeks, landing, loop restarts (demuxer_seek.cpp).
  void applySeek();
  void seekFormat(int64_t targetUs);
  void startLanding(int64_t targetUs);
  bool admitVideo(const AVPacket& packet);
  void admitAudio(const AVPacket& packet);
  void reseek();

  const SourceOptions options_;
  SourceControl& control_;
  av::AvioPtr memoryIo_;  // options.memory's reader, fmt_->pb; outlives fmt_
  av::InputPtr fmt_;
  int stream_ = -1;      // index of the video stream in fmt_
  bool device_ = false;
  bool live_ = false;
  std::string liveReason_;  // SourceInfo::liveReason
  std::string network_;     // liveStreamKind(url): "udp", ...; "" for files, devices, lavfi
  int64_t openTimeoutUs_ = 0;  // how long an open waits for a network stream's data
  // The interrupt callback's state (it runs on whichever thread blocks in libav).
  std::atomic<int64_t> deadlineUs_{0};  // steadyMicros() past which a blocking call gives up; 0: none
  std::atomic<bool> timedOut_{false};   // the last give-up was the deadline's
  std::atomic<bool> opening_{false};    // in avformat_open_input / find_stream_info: cancel applies
  bool seekable_ = false;
  std::shared_ptr<const VideoStream> videoStream_;
  AudioTrackInfo audio_;  // set by the constructor, then read-only

  // Demux-thread state.
  VideoPacketQueue* video_ = nullptr;
  AudioPacketSink* audioSink_ = nullptr;
  uint32_t serial_ = 0;       // the seek serial packets are read under
  int64_t loopOffsetUs_ = 0;  // this --loop pass's offset, added to the audio's times
  // Stream timestamp of time 0 (video time base): the stream's start time, else the first
  // video timestamp read (noteOrigin). Stamped on the video packets for the decoder.
  int64_t originTs_ = 0;
  bool haveOrigin_ = false;
  SeekLanding landing_;                   // after a seek in MPEG-TS: where it landed
  std::vector<av::PacketPtr> heldAudio_;  // audio read while landing: passed once it is good
};

}  // namespace vp
