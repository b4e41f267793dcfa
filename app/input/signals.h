// SIGINT/SIGTERM handled like 'q': a watcher thread waits for the signals (blocked
// in every other thread) and raises a flag the main loop polls. No signal-handler
// globals; the flag lives in the watcher object.
#pragma once

#include <atomic>
#include <thread>

namespace vp {

class SignalWatcher {
 public:
  // Blocks SIGINT and SIGTERM in the calling thread (and threads it starts later),
  // then waits for them on a thread of its own. Construct before other threads.
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  bool stopRequested() const { return signal_.load() != 0; }
  int signal() const { return signal_.load(); }  // the signal received, 0 if none

 private:
  std::atomic<int> signal_{0};
  std::atomic<bool> quit_{false};  // tells the watcher thread to end
  std::thread thread_;
};

}  // namespace vp
