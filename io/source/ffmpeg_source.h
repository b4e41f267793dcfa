// The libavformat/libavcodec Source: files, capture devices and lavfi graphs.
//
// Threads: the caller's thread opens (constructor) and controls (start, stop,
// seek, info, stats). Without sound, one decode thread (run) reads packets, decodes
// and writes each frame straight into the consumer's FrameQueue; seeks are requests it
// carries out between packets. With an audio sink, two threads (demux_thread.cpp): the
// demux thread reads packets, hands the audio to the sink and queues the video
// (io/source/video_packet_queue.h, the two bounded together), carries out seeks and loop
// restarts; the video thread decodes and fills the FrameQueue. Full FrameQueue: only
// the video thread waits.
#pragma once

#include "io/av_util.h"
#include "io/video/color_report.h"
#include "io/video/hw_decode.h"
#include "io/source/memory_input.h"
#include "io/video/pixel_format_map.h"
#include "io/source/seek_landing.h"
#include "io/source.h"
#include "io/source/video_packet_queue.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vp {

class FfmpegSource final : public Source {
 public:
  // Opens the input and its decoder; throws SourceError (one line, naming the input).
  explicit FfmpegSource(const SourceOptions& options);
  ~FfmpegSource() override;

  SourceInfo info() const override;
  void start(FrameQueue& queue) override;  // once per source
  void stop() override;
  bool seek(int64_t targetUs) override;
  SourceStats stats() const override;
  std::string fatalError() const override;
  uint32_t serial() const override;
  AudioTrackInfo audioTrack() const override { return audio_; }
  void setAudioSink(AudioPacketSink* sink) override { audioSink_ = sink; }

 private:
  // Opening (ffmpeg_source.cpp).
  [[noreturn]] void fail(const std::string& reason) const;      // "'url': reason"
  [[noreturn]] void failOpen(const std::string& reason) const;  // "cannot open 'url': reason"
  void checkPath(bool captureDevice) const;
  void openInput(const std::string& format);
  void openDecoder();
  void setUpHardware();
  void openCodec(bool hardware);
  void checkSize(int width, int height) const;
  static int interrupted(void* self);
  // Audio beside the video (ffmpeg_source_audio.cpp).
  void openAudio();
  void passAudio(const AVPacket& packet, uint32_t serial, int64_t loopOffsetUs);

  // With sound: the demux thread and the video thread (demux_thread.cpp).
  void demuxRun();
  void demuxLoop();
  void applyDemuxSeek();
  bool waitAfterEnd();
  void noteOrigin(const AVPacket& packet);
  void videoRun();
  void startSerial(uint32_t serial, int64_t targetUs);
  void endOfPass();
  void passEnded(bool restart);

  // The decode thread (decode_thread.cpp).
  void run();
  void decodeLoop();
  bool readFailed(int err, int& consecutiveErrors);
  bool reconnect(const std::string& why);
  void decodePacket(const AVPacket* packet);
  void checkHardware(const AVPacket* packet);
  void receiveFrames();
  void emitFrame(const AVFrame& frame);
  void describeSurface(HostFrame& out, const AVFrame& f, PixelFormat format);
  void pushEndOfStream();
  bool waitForSeekOrStop();
  void applyPendingSeek();
  void restartLoop();
  void seekFile(int64_t targetUs);
  void seekFormat(int64_t targetUs);
  // Packets read while a seek may still be landing (seek_landing.h): video judged, audio held.
  bool admitVideo(const AVPacket& packet, uint32_t serial, int64_t loopOffsetUs);
  void admitAudio(const AVPacket& packet, uint32_t serial, int64_t loopOffsetUs);
  void reseek();
  void startLanding(int64_t targetUs);
  void countFrame();
  void setFatal(const std::string& reason);

  const SourceOptions options_;
  av::LogTap tap_;       // counts libav's error messages from fmt_ and dec_; outlives both
  av::AvioPtr memoryIo_;  // options.memory's reader, fmt_->pb; outlives fmt_
  av::InputPtr fmt_;
  // --hwdec: FFmpeg's nvdec on our CUDA context. Declared before dec_, which refers to
  // it (get_format), so the decoder is freed first.
  std::unique_ptr<av::HwDecode> hw_;
  av::CodecPtr dec_;
  const AVCodec* codec_ = nullptr;
  int stream_ = -1;      // index of the video stream in fmt_
  bool device_ = false;  // capture device or lavfi: unseekable, read errors are fatal
  bool live_ = false;    // options.live or a capture device: low-latency decoding
  int rotation_ = 0;     // clockwise degrees every frame is turned (autorotate)
  AudioTrackInfo audio_;                 // set by the constructor, then read-only
  AudioPacketSink* audioSink_ = nullptr; // set before start(); called by the decode / demux thread

  std::thread thread_;       // the decode thread, or with sound the demux thread
  std::thread videoThread_;  // with sound: the video decode thread
  bool split_ = false;       // with sound (set by start()): two threads
  VideoPacketQueue videoPackets_;  // with sound: demux -> video thread
  FrameQueue* queue_ = nullptr;  // set by start(), read by the decode thread
  std::atomic<bool> abort_{false};
  std::atomic<bool> seekPending_{false};  // also read without the lock, to drop stale frames
  std::atomic<uint32_t> requestedSerial_{0};  // serial_, readable without the lock (stale frames)
  std::atomic<int64_t> framesDecoded_{0};
  std::atomic<int64_t> decodeErrors_{0};  // failed packets/frames, corrupt frames, read errors

  mutable std::mutex mutex_;     // guards the fields below
  std::condition_variable cond_; // wakes the decode / demux thread waiting (end of stream, full queues)
  SourceInfo info_;
  std::string fatal_;
  int64_t seekTarget_ = 0;       // microseconds, for the pending seek
  uint32_t serial_ = 0;          // serial of the latest seek request
  // With sound: the video thread has drained a pass of serial passSerial_ (passEnded_),
  // with restart_ when a --loop pass follows from restartOffsetUs_; videoDone_ once the
  // video thread is gone.
  bool passEnded_ = false, restart_ = false, videoDone_ = false;
  uint32_t passSerial_ = 0;
  int64_t restartOffsetUs_ = 0;
  std::chrono::steady_clock::time_point windowStart_;  // decodeFps window
  int64_t windowFrames_ = 0;
  double decodeFps_ = 0;

  // Demux-thread state with sound: the serial and loop offset packets are read under.
  uint32_t demuxSerial_ = 0;
  int64_t demuxLoopOffsetUs_ = 0;

  // Decode-thread state (only the decode thread touches these once started; with sound
  // the video thread).
  av::FrameWriter writer_;
  av::ColorReport colorReport_{options_.url};
  std::vector<uint8_t> unrotated_;  // a frame before rotation; grows on size changes only
  av::FramePtr frame_;
  uint32_t frameSerial_ = 0;        // serial stamped on frames
  // Stream timestamp of time 0 (stream time base). With sound the demux thread sets it
  // (noteOrigin) before queuing the packet it came from; the video thread only reads it.
  int64_t originTs_ = 0;
  bool haveOrigin_ = false;
  int64_t loopOffsetUs_ = 0;        // added to pts after each loop restart
  int64_t endUs_ = 0;               // end of the latest frame (pts + duration), microseconds
  int64_t nextPtsUs_ = 0;           // predicted pts for frames without a timestamp
  int64_t skipBeforeUs_ = -1;       // after a seek: frames ending before it are skipped (-1: none)
  SeekLanding landing_;              // after a seek in MPEG-TS: where it landed (seek_landing.h)
  std::vector<av::PacketPtr> heldAudio_;  // audio read while landing: passed once it is good
  int64_t index_ = 0;               // decode order index
  int64_t framesThisPass_ = 0;      // frames since the last (re)start, to stop empty loops
  bool decodedAny_ = false;         // the decoder has produced a frame (shown or skipped)
  std::string lastFormatName_;      // pixel format last reported in info_
  bool lastOnDevice_ = false;       // the last frame was an nvdec surface (info_.decodePath)
  bool hwFellBack_ = false;         // the hardware decoder's fallback was handled (one notice)
  int64_t framesFromCodec_ = 0;     // frames the current codec context has produced
};

}  // namespace vp
