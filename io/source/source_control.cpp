#include "io/source/source_control.h"

#include <spdlog/spdlog.h>

namespace vp {

void SourceControl::abort() {
  raise(abort_);
}

bool SourceControl::requestSeek(int64_t targetUs, FrameQueue* frames) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!info_.seekable || abort_) return false;
    seekTarget_ = targetUs < 0 ? 0 : targetUs;
    ++serial_;
    requestedSerial_ = serial_;
    seekPending_ = true;
    // Frames queued before the seek are stale: drop them now, which also frees a
    // producer waiting for room so it reaches the seek request. Under the lock: the
    // demuxer takes it to carry the seek out (takeSeek) before the video thread writes
    // anything of the new serial, so nothing of it can be flushed here (a short file's
    // fresh end-of-stream marker was, and the consumer waited forever).
    if (frames) frames->flush();
  }
  cond_.notify_all();
  return true;
}

uint32_t SourceControl::serial() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return serial_;
}

bool SourceControl::takeSeek(int64_t& targetUs, uint32_t& serial) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!seekPending_) return false;
  targetUs = seekTarget_;
  serial = serial_;
  seekPending_ = false;
  passEnded_ = restart_ = false;  // a pass end reported before the seek is moot
  return true;
}

void SourceControl::passEnded(uint32_t serial, bool restart, int64_t nextOffsetUs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    passEnded_ = true;
    passSerial_ = serial;
    restart_ = restart;
    restartOffsetUs_ = nextOffsetUs;
  }
  cond_.notify_all();
}

SourceControl::AfterEnd SourceControl::waitAfterEnd(uint32_t serial, int64_t& restartOffsetUs) {
  std::unique_lock<std::mutex> lock(mutex_);
  // Only the verdict on this serial's pass: one from before a seek is moot.
  cond_.wait(lock, [&] { return abort_ || seekPending_ || videoDone_ || (passEnded_ && passSerial_ == serial); });
  if (abort_ || videoDone_) return AfterEnd::Stop;
  if (seekPending_) return AfterEnd::Seek;
  passEnded_ = false;
  if (restart_) {
    restart_ = false;
    restartOffsetUs = restartOffsetUs_;
    return AfterEnd::Restart;
  }
  // The input has ended: wait for a seek (or stop).
  cond_.wait(lock, [this] { return abort_ || seekPending_ || videoDone_; });
  return abort_ || videoDone_ ? AfterEnd::Stop : AfterEnd::Seek;
}

void SourceControl::videoDone() { raise(videoDone_); }

bool SourceControl::waitForRoom(std::chrono::milliseconds most) {
  std::unique_lock<std::mutex> lock(mutex_);
  roomMade_ = false;
  waitingForRoom_ = true;
  cond_.wait_for(lock, most, [this] { return abort_ || seekPending_ || videoDone_ || roomMade_; });
  waitingForRoom_ = false;
  return !videoDone_;
}

void SourceControl::roomMade() { raise(roomMade_); }

bool SourceControl::sleepFor(std::chrono::milliseconds d) {
  std::unique_lock<std::mutex> lock(mutex_);
  return !cond_.wait_for(lock, d, [this] { return abort_.load(); });
}

void SourceControl::setFatal(const std::string& reason) {
  const std::string message = "'" + url_ + "': " + reason;
  spdlog::debug("{}", message);  // the caller reports fatalError()
  std::lock_guard<std::mutex> lock(mutex_);
  if (fatal_.empty()) fatal_ = message;
}

std::string SourceControl::fatal() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fatal_;
}

void SourceControl::startClock() {
  std::lock_guard<std::mutex> lock(mutex_);
  windowStart_ = std::chrono::steady_clock::now();
}

void SourceControl::countFrame() {
  ++framesDecoded_;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  ++windowFrames_;
  const double elapsed = std::chrono::duration<double>(now - windowStart_).count();
  if (elapsed >= 1.0) {
    decodeFps_ = windowFrames_ / elapsed;
    windowFrames_ = 0;
    windowStart_ = now;
  }
}

SourceStats SourceControl::stats() const {
  SourceStats s;
  s.framesDecoded = framesDecoded_.load();
  s.decodeErrors = errors();
  std::lock_guard<std::mutex> lock(mutex_);
  s.decodeFps = decodeFps_;
  const double open = std::chrono::duration<double>(std::chrono::steady_clock::now() - windowStart_).count();
  // The open window speaks when it is long (decoding slowed or stopped) or the
  // first one (nothing else to go by yet).
  if (open >= 1.0 || (decodeFps_ == 0 && open > 0.05)) s.decodeFps = windowFrames_ / open;
  return s;
}

SourceInfo SourceControl::info() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return info_;
}

}  // namespace vp
