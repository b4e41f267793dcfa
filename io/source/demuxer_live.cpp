// The Demuxer's live side (io/source/demuxer.h): whether an input gets low-latency
// handling (--latency), the interrupt callback with its deadlines (a network stream that
// sends nothing while opening, --reconnect's stall), read errors, and --reconnect itself.
#include "io/source/demuxer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace vp {
namespace {

constexpr int kMaxConsecutiveReadErrors = 32;  // a file demuxer that keeps failing has ended

}  // namespace

// libav's blocking calls poll this: stop, the caller's cancel (a signal before start), or a
// live network stream silent past its deadline (open timeout, --reconnect's stall).
int Demuxer::interrupted(void* self) {
  Demuxer& d = *static_cast<Demuxer*>(self);
  if (d.control_.aborted()) return 1;
  if (d.opening_.load(std::memory_order_relaxed) && d.options_.cancel && d.options_.cancel()) return 1;
  const int64_t deadline = d.deadlineUs_.load(std::memory_order_relaxed);
  if (deadline == 0 || steadyMicros() < deadline) return 0;
  d.timedOut_.store(true, std::memory_order_relaxed);
  return 1;
}

// A new deadline clears timedOut_; clearing the deadline (0) keeps it for the caller to read.
void Demuxer::setDeadline(int64_t fromNowUs) {
  if (fromNowUs > 0) timedOut_.store(false, std::memory_order_relaxed);
  deadlineUs_.store(fromNowUs > 0 ? steadyMicros() + fromNowUs : 0, std::memory_order_relaxed);
}

// --latency: whether this input gets live handling, and why (SourceInfo::liveReason).
void Demuxer::decideLive(bool capture) {
  liveReason_.clear();
  if (options_.latency == LatencyMode::Low) liveReason_ = "--latency low";
  else if (options_.latency == LatencyMode::Normal) liveReason_.clear();
  else if (capture) liveReason_ = "capture device";
  else if (!network_.empty()) liveReason_ = network_ + " stream";
  live_ = !liveReason_.empty();
}

std::string Demuxer::silenceText(int64_t us) {
  char text[64];
  std::snprintf(text, sizeof text, "no data for %.3g s (is the stream being sent?)", double(us) * 1e-6);
  return text;
}

// A read error other than EOF. Returns true when the stream has ended: a live
// input (fatal, e.g. unplugged) or a file demuxer that keeps failing; a file's
// isolated damaged spot is counted and skipped.
bool Demuxer::readFailed(int err, int& consecutiveErrors) {
  control_.countError();
  if (device_ || reconnectsAtEnd()) {
    const std::string why = [&] {
      if (!device_)
        return timedOut_.load() ? silenceText(options_.stallTimeoutUs) : "stream failed (" + av::errorText(err) + ")";
      const bool gone = err == AVERROR(ENODEV) || err == AVERROR(EIO) || err == AVERROR(ENXIO);
      return std::string(gone ? "device unplugged" : "device read failed") + " (" + av::errorText(err) + ")";
    }();
    if (options_.reconnect) {
      if (reconnect(why)) return false;
      if (control_.aborted()) return true;
    }
    control_.setFatal(why);
    return true;
  }
  spdlog::debug("'{}': read error: {}", options_.url, av::errorText(err));
  const bool stuck = fmt_->pb && (fmt_->pb->eof_reached || fmt_->pb->error < 0);
  return stuck || ++consecutiveErrors >= kMaxConsecutiveReadErrors;
}

// A live network stream's end is a dropped connection: --reconnect reopens it.
bool Demuxer::reconnectsAtEnd() const { return options_.reconnect && live_ && !network_.empty(); }

// --reconnect: the decoder drains what it holds, the lost input is closed and reopened
// (a device once a second; a network stream at once, each try waiting up to the stall
// timeout for data) until it opens (true; a decoder for the new stream follows) or the
// source is stopped (false).
bool Demuxer::reconnect(const std::string& why) {
  const bool network = !device_ && !network_.empty();
  spdlog::warn("'{}': {}; waiting for it to return (--reconnect)", options_.url, why);
  video_->push(VideoPacket::marker(VideoPacket::Kind::Drain, serial_));
  fmt_.reset();
  // Each network try waits for data itself (the deadline); a failing one (refused at
  // once) waits a little before the next.
  openTimeoutUs_ = options_.stallTimeoutUs;
  const auto pause = network ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
  while (control_.sleepFor(pause)) {
    try {
      openInput(options_.format);
      selectVideo();
    } catch (const std::exception& e) {
      spdlog::debug("'{}': not back yet: {}", options_.url, e.what());
      fmt_.reset();
      continue;
    }
    spdlog::info("'{}': {} is back", options_.url, network ? "stream" : "device");
    VideoPacket p = VideoPacket::marker(VideoPacket::Kind::Stream, serial_);
    p.stream = videoStream_;
    video_->push(std::move(p));
    return true;
  }
  return false;
}

}  // namespace vp
