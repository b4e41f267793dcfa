// The video packets between FfmpegSource's demux thread and its video decode thread, used
// when the input's sound is demuxed too: video decoding then waits on the GPU pipeline
// (the frame queue) on its own thread, and the demuxer keeps reading so the audio never
// starves behind it. Internal to io/.
//
// The demuxer bounds this queue and the audio packet queue together (ffplay's rule,
// packetQueuesFull): it reads on while the two hold less than a byte limit (15 MB by
// default) and one of them lacks "enough" (more than 25 packets and, where durations are
// known, more than a second). Back-pressure on the video therefore lets audio run up to a
// second and more ahead of it, up to the byte limit while the audio consumer keeps taking.
#pragma once

#include "io/audio/audio_stream.h"
#include "io/av_util.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace vp {

// A video packet or a marker, with the seek serial the demuxer read it under.
struct VideoPacket {
  enum class Kind : uint8_t {
    Data,  // `packet` to decode
    Seek,  // a seek to targetUs: the decoder starts afresh, frames carry `serial`
    End,   // the end of the input (of this --loop pass): drain the decoder
  };
  Kind kind = Kind::Data;
  av::PacketPtr packet;  // Data only
  uint32_t serial = 0;
  int64_t targetUs = 0;  // Seek only
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

// True when the demuxer must wait: the queues hold more than maxBytes together, or both
// have enough.
bool packetQueuesFull(const PacketQueueLevel& video, const PacketQueueLevel& audio, int64_t maxBytes);

}  // namespace vp
