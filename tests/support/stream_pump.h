// A live network sender for tests: plays a file's bytes (an MPEG-TS clip) to a local
// UDP port or TCP listener at its own rate, as a camera or encoder would stream it, with
// a pause in the middle and repeats, on a thread of its own.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace vp::test {

// A UDP/TCP port on 127.0.0.1 that was free a moment ago.
int freeLocalPort(bool tcp);

struct PumpSpec {
  std::string path;         // the bytes to send
  double seconds = 1;       // how long one pass lasts (the clip's duration): the byte rate
  int passes = 1;           // times the file is sent
  double pauseS = 0;        // silence between passes
  bool tcp = false;         // connect to a listener (a new connection each pass) instead of UDP
  int port = 0;
};

class StreamPump {
 public:
  explicit StreamPump(PumpSpec spec);
  ~StreamPump();  // stops and joins
  StreamPump(const StreamPump&) = delete;
  StreamPump& operator=(const StreamPump&) = delete;

  int passesDone() const { return passes_.load(); }
  bool failed() const { return failed_.load(); }  // could not read the file or send

 private:
  void run();
  bool sendPass(const std::string& bytes);
  PumpSpec spec_;
  std::atomic<bool> stop_{false};
  std::atomic<int> passes_{0};
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace vp::test
