#include "io/source/video_packet_queue.h"

namespace vp {
namespace {

int64_t durationUs(const VideoPacket& p) {
  if (p.kind != VideoPacket::Kind::Data || p.packet->duration <= 0) return 0;
  return av_rescale_q(p.packet->duration, p.packet->time_base, av::kMicros);
}

int64_t bytes(const VideoPacket& p) { return p.kind == VideoPacket::Kind::Data ? p.packet->size : 0; }

bool enough(const PacketQueueLevel& l) {
  return l.packets > kEnoughPackets && (l.durationUs == 0 || l.durationUs > kEnoughUs);
}

}  // namespace

void VideoPacketQueue::push(VideoPacket&& p) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (aborted_) return;
    ++level_.packets;
    level_.bytes += bytes(p);
    level_.durationUs += durationUs(p);
    queue_.push_back(std::move(p));
  }
  cond_.notify_all();
}

bool VideoPacketQueue::pop(VideoPacket& out) {
  std::unique_lock<std::mutex> lock(mutex_);
  cond_.wait(lock, [&] { return aborted_ || !queue_.empty(); });
  if (aborted_) return false;
  out = std::move(queue_.front());
  queue_.pop_front();
  --level_.packets;
  level_.bytes -= bytes(out);
  level_.durationUs -= durationUs(out);
  return true;
}

void VideoPacketQueue::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.clear();
  level_ = {};
}

void VideoPacketQueue::abort() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    aborted_ = true;
  }
  cond_.notify_all();
}

PacketQueueLevel VideoPacketQueue::level() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return level_;
}

bool packetQueuesFull(const PacketQueueLevel& video, const PacketQueueLevel* audio, int64_t maxBytes) {
  if (!audio) return video.bytes > maxBytes || enough(video);
  return video.bytes + audio->bytes > maxBytes || (enough(video) && enough(*audio));
}

}  // namespace vp
