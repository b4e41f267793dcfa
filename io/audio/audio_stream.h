// Audio beside the video: the track picked from an input, its demuxed packets in session
// time, and the hook through which a Source hands them out (AudioPacketSink).
//
// Session time: the video's clock. A packet's times, rescaled to microseconds, plus its
// offsetUs are on the same axis as the video frames' ptsUs (one common origin: the video
// stream's first timestamp; plus the loop offset of the pass it was read in). Audio that
// starts before the video therefore has negative times; nothing is trimmed here.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

struct AVPacket;
struct AVCodecParameters;
struct AVFormatContext;

namespace vp {

struct AvPacketFree {
  void operator()(AVPacket* p) const;
};
struct AvCodecParametersFree {
  void operator()(AVCodecParameters* p) const;
};

// The audio stream chosen from an input (index < 0: none).
struct AudioTrackInfo {
  int index = -1;             // stream index in the input
  int number = 0;             // among the input's audio streams, from 0 (--audio-track)
  std::string codec;          // "aac"
  int sampleRate = 0;
  int channels = 0;
  std::string layout;         // "stereo", "5.1"
  int timeBaseNum = 1, timeBaseDen = 1;  // the stream's time base
  std::shared_ptr<const AVCodecParameters> params;  // a copy owned here (never null when index >= 0)

  explicit operator bool() const { return index >= 0; }
  std::string describe() const;  // "aac 44100 Hz stereo"
};

// One demuxed audio packet, as read (payload and timestamps untouched).
struct AudioPacket {
  std::unique_ptr<AVPacket, AvPacketFree> packet;  // times in the track's time base
  int64_t offsetUs = 0;  // added to the packet's times in microseconds gives session time
  uint32_t serial = 0;   // the source's seek serial when it was read
};

// How much a packet queue holds: the demuxer bounds the audio and video packet queues
// together by these (ffplay's rule, io/source/video_packet_queue.h).
struct PacketQueueLevel {
  int packets = 0;
  int64_t bytes = 0;       // payload bytes
  int64_t durationUs = 0;  // sum of the packets' durations
};

// Receives the audio packets of the selected track from the demux thread. Must not block
// for long: the demuxer also feeds the video.
class AudioPacketSink {
 public:
  virtual ~AudioPacketSink() = default;
  virtual void audioPacket(AudioPacket&& packet) = 0;
  // What the sink holds that its consumer has not taken yet (nothing: a sink that queues
  // nothing, whose packets never hold the demuxer back).
  virtual PacketQueueLevel level() const { return {}; }
};

// A thread-safe FIFO of audio packets between the demux thread and one consumer (the
// muxer of an output file, or the audio decode thread). Not bounded here: the demuxer
// reads on only while this queue and its video packet queue are below their common
// limit (level()); the consumer decides what to take and when.
class AudioPacketQueue final : public AudioPacketSink {
 public:
  void audioPacket(AudioPacket&& packet) override;
  // The oldest packet if `take` accepts it; false when empty or when it does not.
  bool popIf(const std::function<bool(const AudioPacket&)>& take, AudioPacket& out);
  // The oldest packet, waiting up to `waitUs` (0: no wait); false if none or aborted.
  bool pop(AudioPacket& out, int64_t waitUs = 0);
  void flush();   // drops everything queued
  // Drops the packets of serials older than `serial` (a seek's): those of `serial` itself,
  // which the source may have queued before the consumer heard of the seek, stay.
  void dropBefore(uint32_t serial);
  void abort();   // wakes a waiting pop for good
  size_t size() const;
  int64_t durationUs() const;  // sum of the queued packets' durations
  PacketQueueLevel level() const override;

 private:
  void took(const AudioPacket& p);  // accounts for a packet leaving (mutex_ held)

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable cond_;
  std::deque<AudioPacket> packets_;
  int64_t durationUs_ = 0;
  int64_t bytes_ = 0;
  bool aborted_ = false;
};

// Whether seek serial `a` is older than `b` (serials count up and may wrap).
inline bool serialBefore(uint32_t a, uint32_t b) { return int32_t(a - b) < 0; }

// Session time (microseconds) of a packet's pts (dts when it has none; INT64_MIN when it
// has neither). The source sets AVPacket::time_base to the track's.
int64_t audioPacketTimeUs(const AudioPacket& packet);
int64_t audioPacketDurationUs(const AudioPacket& packet);

// Picks the audio stream of an input: `track` < 0 the best one related to `videoStream`
// (av_find_best_stream), else the track-th audio stream (from 0). Returns an empty info
// when the input has none or no decoder for it is built in (logged); throws
// std::invalid_argument naming the tracks when `track` does not exist.
AudioTrackInfo selectAudioTrack(AVFormatContext* fmt, int videoStream, int track, const std::string& url);

}  // namespace vp
