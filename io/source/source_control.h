// What FfmpegSource's three threads share: the caller's thread (seek, stop, info, stats),
// the demux thread (io/source/demuxer.h) and the video thread (io/source/video_decoder.h).
// Neither worker holds a pointer to the other: they meet here and in the packet queue.
//
// Seeks are requests: the caller's thread records one (bumping the serial and flushing the
// frame queue); the demuxer takes it between packets. The end of a pass (the input's end,
// or a --loop pass) is a handshake: the demuxer queues an End marker and waits here until
// the video thread has drained the decoder and said whether a --loop pass follows (its
// frames end where the next pass's audio must start), or until a seek, stop, or the video
// thread's end. Every wait here returns on abort().
#pragma once

#include "io/av_util.h"
#include "io/frame_queue.h"
#include "io/source.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace vp {

class SourceControl {
 public:
  explicit SourceControl(std::string url) : url_(std::move(url)) {}

  const std::string& url() const { return url_; }

  // stop(): the waits below return (the owner aborts the queues).
  void abort();
  bool aborted() const { return abort_.load(); }

  // Seeks. Caller's thread: records a request to `targetUs` unless the input is not
  // seekable or the source stopped; frames already in `frames` (if any) are stale and go.
  bool requestSeek(int64_t targetUs, FrameQueue* frames);
  // Read without the lock by both workers to drop stale packets and frames.
  bool seekPending() const { return seekPending_.load(); }
  uint32_t requestedSerial() const { return requestedSerial_.load(); }
  uint32_t serial() const;
  // Demux thread: the pending request, now being carried out (false: none). A verdict on
  // a pass from before it is dropped.
  bool takeSeek(int64_t& targetUs, uint32_t& serial);

  // The end of a pass. Video thread: the pass of `serial` is drained; `restart`: a --loop
  // pass follows, its times from `nextOffsetUs`.
  void passEnded(uint32_t serial, bool restart, int64_t nextOffsetUs);
  enum class AfterEnd { Restart, Seek, Stop };
  // Demux thread, after queuing the End of `serial`: Restart (reading goes on from the
  // start, `restartOffsetUs` set), Seek (one is pending), or Stop (stopped, or the video
  // thread ended). Without a --loop pass it waits on for a seek.
  AfterEnd waitAfterEnd(uint32_t serial, int64_t& restartOffsetUs);
  // Video thread, as it ends: the demuxer stops too (nobody takes its packets).
  void videoDone();
  // Demux thread, its queues full: waits until the video thread has taken most of its
  // packets (roomMade), a seek or stop, or at most `most` (the audio consumer takes packets
  // without telling). False when the video thread has ended.
  bool waitForRoom(std::chrono::milliseconds most);
  // Video thread, its packet queue running low: wakes the demuxer if it waits for room.
  bool demuxerWaiting() const { return waitingForRoom_.load(std::memory_order_relaxed); }
  void roomMade();
  // Sleeps up to `d`; false when stopped meanwhile (--reconnect's retries).
  bool sleepFor(std::chrono::milliseconds d);

  // Errors: the first fatal one wins ("'url': reason").
  void setFatal(const std::string& reason);
  std::string fatal() const;
  void countError() { ++errors_; }  // a failed read, packet or frame
  // Every error so far: counted, and logged by libav for the input or the decoder. One
  // tap each, as HwDecode rewinds its decoder's count after a failed hardware init.
  int64_t errors() const { return errors_.load() + inputTap.errors.load() + decoderTap.errors.load(); }
  av::LogTap inputTap;    // the demuxer's AVFormatContext::opaque
  av::LogTap decoderTap;  // the video decoder's AVCodecContext::opaque

  // Statistics: frames written (video thread), the decode rate over ~1 s windows.
  void startClock();
  void countFrame();
  SourceStats stats() const;

  // SourceInfo: the demuxer's part at open (and when --reconnect reopens), the decoder's
  // as frames change (size, formats, decode path, colour).
  SourceInfo info() const;
  template <class Update>
  void updateInfo(Update&& update) {
    std::lock_guard<std::mutex> lock(mutex_);
    update(info_);
  }

 private:
  // Sets a flag a waiter checks under the lock (so no wake-up is lost) and wakes them all.
  template <class Flag>
  void raise(Flag& flag) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      flag = true;
    }
    cond_.notify_all();
  }

  const std::string url_;
  std::atomic<bool> abort_{false};
  std::atomic<bool> seekPending_{false};      // also read without the lock
  std::atomic<uint32_t> requestedSerial_{0};  // serial_, readable without the lock
  std::atomic<int64_t> framesDecoded_{0};
  std::atomic<int64_t> errors_{0};
  std::atomic<bool> waitingForRoom_{false};  // the demuxer is in waitForRoom

  mutable std::mutex mutex_;      // guards the fields below
  std::condition_variable cond_;  // wakes the demuxer (seek, stop, pass verdict, video end)
  SourceInfo info_;
  std::string fatal_;
  int64_t seekTarget_ = 0;  // microseconds, for the pending seek
  uint32_t serial_ = 0;     // serial of the latest seek request
  // The video thread has drained the pass of passSerial_, restart_ when a --loop pass
  // follows from restartOffsetUs_; videoDone_ once the video thread is gone.
  bool passEnded_ = false, restart_ = false, videoDone_ = false;
  bool roomMade_ = false;
  uint32_t passSerial_ = 0;
  int64_t restartOffsetUs_ = 0;
  std::chrono::steady_clock::time_point windowStart_;  // decodeFps window
  int64_t windowFrames_ = 0;
  double decodeFps_ = 0;
};

}  // namespace vp
