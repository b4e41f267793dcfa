// The control channel (--control FILE): a reader thread turns lines of FILE into
// Commands in a bounded, thread-safe queue the player drains at frame
// boundaries. A bad line logs one warning naming it and is dropped.
//
// What FILE may be, and what its end means:
//   FIFO         opened read-write, so the channel itself holds a writer: writers may
//                come and go (echo cmd > fifo, again and again) and EOF never comes.
//   regular file tailed like `tail -f`: at its end the reader polls every 100 ms for
//                appended lines (a truncated file is read again from the start).
//   "-"          standard input; its end closes the channel, processing goes on.
// Nothing blocks the player: the reader waits in poll() on FILE and a wake-up pipe,
// so the destructor ends it at once.
#pragma once

#include "app/input/commands.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace vp {

// Owns one file descriptor (closed on destruction); -1 = none.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

class ControlChannel {
 public:
  static constexpr size_t kMaxQueued = 256;  // commands; more are dropped with a warning
  static constexpr size_t kMaxLine = 4096;   // bytes; a longer line is dropped with a warning

  // Opens `path` and starts the reader; throws std::runtime_error naming the path
  // when it cannot be opened. Construct after the SignalWatcher (signals stay blocked).
  explicit ControlChannel(const std::string& path);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  // The commands received since the last call, oldest first; never blocks.
  std::vector<Command> take();
  // Blocks until a command is queued or `timeout` has passed (for a paused player).
  void waitFor(std::chrono::milliseconds timeout);

  int64_t accepted() const;  // commands queued so far
  int64_t rejected() const;  // bad lines and overflow so far

 private:
  void readLoop();
  void onLine(std::string_view line);

  UniqueFd file_;      // FILE; empty for stdin
  int fd_ = -1;        // what the reader reads: file_ or standard input
  bool tail_ = false;  // regular file: poll for appended data at its end
  UniqueFd wakeRead_;  // pipe: the destructor writes wakeWrite_, the reader's poll() wakes
  UniqueFd wakeWrite_;

  mutable std::mutex mutex_;  // guards queue_, accepted_, rejected_
  std::condition_variable ready_;
  std::deque<Command> queue_;
  int64_t accepted_ = 0;
  int64_t rejected_ = 0;
  std::thread thread_;  // last: started once everything above exists
};

// The channel for --control PATH; nullptr when PATH is empty.
std::unique_ptr<ControlChannel> openControlChannel(const std::string& path);

}  // namespace vp
