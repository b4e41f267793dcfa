#include "app/input/signals.h"

#include <csignal>
#include <cstdlib>
#include <ctime>

namespace vp {

SignalWatcher::SignalWatcher() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this, set] {
    const timespec tick{0, 50'000'000};  // wake every 50 ms to notice quit_
    while (!quit_.load()) {
      int sig = sigtimedwait(&set, nullptr, &tick);
      if (sig > 0 && signal_.load() == 0) signal_.store(sig);
      else if (sig > 0) std::_Exit(128 + sig);  // a second Ctrl-C: the user means it
    }
  });
}

SignalWatcher::~SignalWatcher() {
  quit_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace vp
