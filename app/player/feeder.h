// Feeds decoded frames from the source's queue into the processor, one upload pending
// at a time, never blocking longer than asked. Part of the session (session.h).
#pragma once

#include "app/player/latency.h"
#include "gpu/processor.h"
#include "io/frame_queue.h"
#include "io/source.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace vp {

class Feeder {
 public:
  Feeder(Source& source, FrameQueue& queue, Processor& processor);

  // One step: releases uploaded inputs, submits the next frame if a slot is free.
  // Returns true if it did anything.
  bool feed(const ProcessParams& params);
  // Blocks briefly for progress: the pending upload, the oldest output, or a frame.
  void waitForWork();
  // True when the source has ended and nothing is left in flight.
  bool finished() const;
  // Waits for the pending upload and gives its queue slot back (before a seek,
  // which flushes the queue).
  void settle();
  // Stops submitting (e.g. --frames reached); in-flight frames still come out.
  void stopFeeding() { feeding_ = false; }
  // Frames this says are already too late (against an audio master) are skipped before
  // processing while a newer one waits behind them, so a pipeline slower than real time
  // drops frames instead of holding the demuxer (and the sound) back. Counted in skipped().
  void setLateCheck(std::function<bool(int64_t ptsUs)> late) { late_ = std::move(late); }
  int64_t skipped() const { return skipped_; }
  // Live in the window: when a newer decoded frame waits behind the oldest, the oldest is
  // skipped (counted in skipped()), so a frame never waits behind another for a slot.
  void setNewestOnly(bool on) { newestOnly_ = on; }

  int64_t framesIn() const { return framesIn_; }
  // The ticket of the last frame submitted (0: none yet); frames submitted later carry
  // larger tickets and the parameters in force when they were submitted.
  uint64_t lastTicket() const { return lastTicket_; }
  // The seek serial of the frame submitted as `ticket`; asked in ticket order (outputs
  // come out in order), so older records are let go.
  uint32_t serialOf(uint64_t ticket);
  // The trip so far (arrival, decoded, submitted) of the frame submitted as `ticket`;
  // asked once per output, in ticket order (older records are let go).
  FrameTrip takeTrip(uint64_t ticket);

 private:
  Source& source_;
  FrameQueue& queue_;
  Processor& processor_;
  std::optional<uint64_t> pending_;  // submitted frame still in the queue (upload not done)
  bool eos_ = false;
  bool feeding_ = true;
  int64_t framesIn_ = 0;
  uint64_t lastTicket_ = 0;
  int64_t skipped_ = 0;
  std::function<bool(int64_t)> late_;
  bool newestOnly_ = false;
  std::deque<std::pair<uint64_t, uint32_t>> serials_;  // first ticket of each serial submitted
  std::deque<std::pair<uint64_t, FrameTrip>> trips_;  // per ticket in flight
};

}  // namespace vp
