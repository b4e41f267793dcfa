// A one-line progress bar on a terminal (stderr): frames, rate and ETA.
#pragma once

#include <chrono>
#include <cstdint>

namespace vp {

class ProgressBar {
 public:
  // total = expected frames (0 = unknown: no bar, no ETA). Draws only on a TTY.
  ProgressBar(int64_t total, bool enabled);
  ~ProgressBar();
  void update(int64_t done, double fps);  // redraws at most ~10 times a second
  void finish();                          // draws the final state and ends the line

 private:
  using Clock = std::chrono::steady_clock;
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point last_{};
  int64_t done_ = 0;   // frames at the latest update
  double fps_ = 0;     // rate at the latest update
  void draw();
};

}  // namespace vp
