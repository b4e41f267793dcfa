// Playback clocks, after ffplay's Clock, and the presentation decision made against one.
//
// A Clock reads "media time now": set(pts, serial, now) anchors it, at(now) extrapolates
// pts + (now - then) while running, and holds still while paused. Its serial is the
// session's seek generation: after a seek the clock reads nothing until a frame of the
// new serial anchors it again. The session owns the master clock; today that is the
// video clock below (frame timestamps against the system clock). An audio clock becomes
// the master without the players changing (FramePacer::setMaster; the window with sound
// does); while it reads nothing (no sample played yet, an underrun, the sound ended) or
// an older seek generation, the video clock, which follows every frame shown, times the
// frames instead.
//
// FramePacer decides, per processed frame, whether to show it now, wait, or drop it:
// a frame more than `lateToleranceUs` behind the master is dropped when a newer one is
// ready to take its place, else shown; with the video clock as master the clock then
// slips to it (a pipeline slower than real time plays every frame it makes, as fast as
// it can). Live sources and --no-sync present immediately.
#pragma once

#include <cstdint>
#include <optional>

namespace vp {

// The wall time every clock here is read against: steady_clock, in microseconds.
int64_t steadyNowUs();

class Clock {
 public:
  // Media time at wall time nowUs; nullopt before the first set() or after invalidate().
  std::optional<int64_t> at(int64_t nowUs) const;
  void set(int64_t ptsUs, int serial, int64_t nowUs);
  // Paused, the clock holds the time it read at the pause; resumed, it runs on from there.
  void setPaused(bool paused, int64_t nowUs);
  void invalidate() { valid_ = false; }
  bool paused() const { return paused_; }
  int serial() const { return serial_; }

 private:
  bool valid_ = false;
  bool paused_ = false;
  int serial_ = -1;
  int64_t ptsUs_ = 0;      // media time at lastSetUs_
  int64_t lastSetUs_ = 0;  // wall time of the last set / pause change
};

enum class PaceDecision { Wait, Present, Drop };

class FramePacer {
 public:
  // A frame later than this is dropped when a newer one waits (tests judge against it).
  static constexpr int64_t kLateToleranceUs = 50'000;
  explicit FramePacer(bool sync, int64_t lateToleranceUs = kLateToleranceUs)
      : sync_(sync), lateToleranceUs_(lateToleranceUs) {}

  // What to do with a frame of timestamp ptsUs and seek generation `serial` at wall time
  // nowUs. `isLast`: nothing newer is available, so a late frame is still shown. A late
  // frame is dropped at most kMaxDropsInARow times in a row: a pipeline slower than real
  // time always has a newer frame waiting, and would otherwise show nothing at all.
  PaceDecision decide(int64_t ptsUs, int serial, int64_t nowUs, bool isLast);
  // The next frame presented starts the video clock again (after a pause).
  void reanchor() { video_.invalidate(); }
  // Microseconds until ptsUs is due (<= 0: due now); 0 when the master reads nothing.
  int64_t untilDueUs(int64_t ptsUs, int64_t nowUs) const;

  // The clock frames are timed against: the video clock unless another is set (audio).
  void setMaster(const Clock* master) { master_ = master ? master : &video_; }
  const Clock& master() const { return *master_; }
  const Clock& videoClock() const { return video_; }

 private:
  static constexpr int kMaxDropsInARow = 4;
  bool sync_;
  int64_t lateToleranceUs_;
  int dropsInARow_ = 0;  // late frames dropped since the last one presented
  Clock video_;
  const Clock* master_ = &video_;
};

}  // namespace vp
