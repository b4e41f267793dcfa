// The video packets between FfmpegSource's demux thread (io/source/demuxer.h) and its video
// decode thread (io/source/video_decoder.h), with markers for what happens between packets
// (seeks, the end of a pass, a reconnected device). The video thread waits on the GPU
// pipeline (the frame queue) on its own, so the demuxer keeps reading and the audio never
// starves behind the video. Internal to io/.
//
// The demuxer bounds this queue and the audio packet queue together (ffplay's rule,
// packetQueuesFull): it reads on while the two hold less than a byte limit (15 MB by
// default) and one of them lacks "enough" (more than 25 packets and, where durations are
// known, more than a second); without sound only the video's counts. Back-pressure on the
// video therefore lets audio run up to a second and more ahead of it, up to the byte limit
// while the audio consumer keeps taking. Live inputs hold at most kLivePackets.
#pragma once

#include "io/audio/audio_stream.h"
#include "io/av_util.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

namespace vp {

// The video stream as the demuxer found it: what the decoder opens. Copied out of the
// format context, which the decoder never touches (the demuxer reads on meanwhile, and
// --reconnect replaces it).
struct VideoStream {
  const AVCodec* codec = nullptr;
  std::shared_ptr<const AVCodecParameters> params;  // a copy
  AVRational timeBase{0, 1};
  double fps = 0;     // average frame rate, 0 if unknown: the duration of frames without one
  int rotation = 0;   // clockwise degrees every frame is turned (autorotate)
};

// A video packet or a marker, with the seek serial the demuxer read it under.
struct VideoPacket {
  enum class Kind : uint8_t {
    Data,    // `packet` to decode
    Seek,    // a seek to targetUs: the decoder starts afresh, frames carry `serial`
    End,     // the end of the input (of this --loop pass): drain the decoder
    Drain,   // the device went away (--reconnect): frames still in the decoder go out
    Stream,  // the device is back (--reconnect): a decoder for `stream` replaces the old one
  };
  Kind kind = Kind::Data;
  av::PacketPtr packet;  // Data only
  uint32_t serial = 0;
  int64_t targetUs = 0;  // Seek only
  // Data: the stream timestamp of time 0 when it was read (AV_NOPTS_VALUE: not known yet).
  // The demuxer sets it (the audio needs it before any frame is decoded); frames are
  // timed from it.
  int64_t originTs = AV_NOPTS_VALUE;
  int64_t arrivalUs = 0;  // Data: when av_read_frame returned it (steadyMicros), for latency
  std::shared_ptr<const VideoStream> stream;  // Stream only

  static VideoPacket marker(Kind kind, uint32_t serial, int64_t targetUs = 0) {
    VideoPacket p;
    p.kind = kind;
    p.serial = serial;
    p.targetUs = targetUs;
    return p;
  }
};

// A thread-safe FIFO of VideoPackets: one producer (demux), one consumer (video decode).
class VideoPacketQueue {
 public:
  void push(VideoPacket&& packet);
  // The oldest entry, waiting for one; false once aborted.
  bool pop(VideoPacket& out);
  void flush();  // drops everything queued (a seek)
  void abort();  // wakes pop() for good
  PacketQueueLevel level() const;

 private:
  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable cond_;
  std::deque<VideoPacket> queue_;
  PacketQueueLevel level_;
  bool aborted_ = false;
};

// The packets a queue must hold before it has "enough" (ffplay's MIN_FRAMES), and the
// duration that must be queued too when the packets carry durations.
constexpr int kEnoughPackets = 25;
constexpr int64_t kEnoughUs = 1'000'000;
// ffplay's MAX_QUEUE_SIZE: the bytes both queues may hold together.
constexpr int64_t kMaxQueuedBytes = 15 * 1024 * 1024;
// The video thread wakes a demuxer waiting for room once its queue is down to this many
// packets: sooner than ffplay (at empty), so fast decoding never runs dry while the
// demuxer reads; later than at every packet, so the two threads do not take turns.
constexpr int kRefillPackets = kEnoughPackets / 2;
// A live input's video packets read ahead: one waiting while another decodes. More would
// only add latency when decoding falls behind (the device drops frames instead).
constexpr int kLivePackets = 2;

// True when the demuxer must wait: the queues hold more than maxBytes together, or both
// have enough. `audio` nullptr: no audio stream, which has enough (ffplay's rule for a
// stream it does not play), so the video's own count bounds it.
bool packetQueuesFull(const PacketQueueLevel& video, const PacketQueueLevel* audio, int64_t maxBytes);

}  // namespace vp
