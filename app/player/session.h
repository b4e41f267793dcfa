// The session: one run of the player, whatever shows its output. It owns, in shutdown
// order, the source (decode thread), the frame queue, the processor, the master clock
// and the sinks (the -o file, screenshots), plus the control channel; and it does what
// every player does: feeding frames, polling results, commands (parameters, pause,
// step, seek with serials, screenshot, quit) and the run's statistics.
//
// A player is a loop around it that differs only in its output and in how it waits:
//   session.start();
//   while (!session.finished() && !session.stopRequested()) {
//     session.takeControlCommands();           (+ the window's keys: session.apply)
//     session.feed();
//     if (const OutputFrame* f = session.poll())
//       switch (session.pace(*f, now)) { Present: show or write it, session.consume(*f),
//                                         session.release(); Drop: release; Wait: keep }
//     wait (headless: session.waitForWork(); window: the display's refresh)
//   }
//   return session.finish(exitCode);
//
// Role::Headless writes every processed frame (-o) and takes a screenshot from the next
// frame; Role::Window paces frames against the master clock, drops those from before a
// seek, and takes a screenshot from the frame shown.
#pragma once

#include "app/input/chain_editor.h"
#include "app/player/audio_output.h"
#include "app/player/clock.h"
#include "app/input/commands.h"
#include "app/player/feeder.h"
#include "app/player/file_output.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vp {

struct Options;
struct RunStats;
class ControlChannel;
class SignalWatcher;
class AudioPlayback;

class Session {
 public:
  enum class Role : uint8_t { Headless, Window };
  enum class Origin : uint8_t { Key, Control };  // where a command came from (log prefix)

  // Opens the control channel, the processor, the queue and the source; throws what they
  // throw (SourceError, std::runtime_error) with nothing left running.
  Session(const Options& options, const SignalWatcher& signals, RunStats& stats, Role role);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Window: plays the input's audio track on a device from `open`, and makes its clock
  // the master. Without a track nothing happens; when the device or decoder cannot open,
  // the video plays and one notice says why there is no sound. Before start().
  void enableAudio(const AudioOutputFactory& open);
  void start();  // starts the decode thread (and the audio)

  // ---- commands, applied between frames
  void takeControlCommands();
  void apply(const Command& command, Origin origin);
  // Who carries out fullscreen / hud / help (the window); without one they are ignored
  // with a warning. Returns false when it did not take the command.
  void setWindowCommands(std::function<bool(const Command&)> handler) { windowCommands_ = std::move(handler); }

  bool quitRequested() const { return quit_; }
  // A screenshot asked for before quit still waits for its frame, and frames are flowing
  // (not paused): headless finishes it before it quits.
  bool screenshotDue() const { return !pendingShots_.empty() && !paused_; }
  bool interrupted() const;  // SIGINT / SIGTERM
  bool stopRequested() const { return quit_ || interrupted(); }

  // ---- frames
  // Submits the next decoded frame when playing (or stepping) and a slot is free.
  bool feed();
  // The oldest finished frame (frames from before a seek are dropped here in the window).
  const OutputFrame* poll();
  // Present (show / write it now), Wait (keep it: paused, or early) or Drop (late).
  PaceDecision pace(const OutputFrame& frame, int64_t nowUs);
  // The frame has been used: written to the file, kept for screenshots, counted.
  void consume(const OutputFrame& frame);
  void release();  // ends the use of the frame poll() returned
  // Window: the frame consumed last is on screen now (after the buffer swap): its latency
  // is counted. Returns it in ms, or a negative value when there was none to count.
  double frameShown(int64_t nowUs);
  // True when the input has ended (or --frames is reached) and nothing is in flight.
  bool finished() const;
  // Headless: blocks briefly for progress (a command when paused, else the pipeline).
  void waitForWork();
  // Window: sleeps at most `most`, waking as soon as the decoder queues a frame after the
  // last feed().
  void waitForFrame(std::chrono::microseconds most) { queue_->waitPush(pushesSeen_, most); }
  // Stops decoding, finalises the file, fills the run statistics; returns the exit code
  // (kExitError when the source failed, unless the run was interrupted).
  int finish(int exitCode);

  // ---- state, for the display
  const ProcessParams& params() const { return params_; }
  bool paused() const { return paused_; }
  bool live() const { return info_.live; }  // low-latency handling: show each frame at once
  int64_t positionUs() const { return positionUs_; }
  const SourceInfo& sourceInfo() const { return info_; }
  const Source& source() const { return *source_; }
  const FrameQueue& queue() const { return *queue_; }
  const Processor& processor() const { return *processor_; }
  const ChainEditor& chainEditor() const { return editor_; }
  // The latest status message ("screenshot saved: a.png"); the serial changes with each.
  const std::string& status() const { return status_; }
  uint32_t statusSerial() const { return statusSerial_; }
  RunStats& stats() { return stats_; }
  // Window playback's sound, null without one (HUD).
  const AudioPlayback* audio() const { return audio_.get(); }
  int64_t avDiffUs() const { return avDiffUs_; }  // latest frame shown minus the audio clock

 private:
  void notify(const std::string& text, Origin origin, bool warning = false);
  void setPaused(bool paused, Origin origin);
  void seekTo(int64_t targetUs, const Command& command, Origin origin);
  void screenshot(const std::string& path, Origin origin);
  void savePendingScreenshots(const OutputFrame& frame);
  // What -o and screenshots save of `frame`: the processed frame, or with --output-view
  // shown the view (the comparison when compare is on).
  RgbPicture savedPicture(const OutputFrame& frame) const;
  // Whether frames must carry the processed frame beside a compare view.
  bool needProcessed() const;
  void applyAudio(const Command& command, Origin origin);
  void measureAvDiff(const OutputFrame& frame, int64_t nowUs);

  const Options& options_;
  const SignalWatcher& signals_;
  RunStats& stats_;
  const Role role_;
  std::function<bool(const Command&)> windowCommands_;

  // Owned, destroyed in reverse: the source first (its thread writes into the queue),
  // then the queue, the processor (whose allocator the queue's frames use), the clock
  // and the sinks; the control channel last.
  std::unique_ptr<ControlChannel> control_;
  std::unique_ptr<FileOutput> file_;       // -o (headless)
  FramePacer pacer_;                        // the master clock and presentation timing
  std::unique_ptr<Processor> processor_;
  std::unique_ptr<FrameQueue> queue_;
  std::unique_ptr<AudioPlayback> audio_;  // window sound; outlives the source, which feeds it
  std::unique_ptr<Source> source_;
  SourceInfo info_;
  std::unique_ptr<Feeder> feeder_;

  ProcessParams params_;
  ChainEditor editor_;      // carries out the chain and compare commands on params_
  bool paused_ = false;
  bool quit_ = false;
  int steps_ = 0;            // frames still to step while paused
  int serial_ = 0;           // seek generation: bumped by each seek
  int discard_ = 0;          // window: outputs still in flight from before a seek
  int64_t positionUs_ = 0;   // timestamp of the last frame consumed (or the seek target)
  int64_t screenshots_ = 0;  // screenshot names made so far
  // Screenshots asked for while no picture was kept: each is written from the first frame
  // submitted after the request (ticket > after), so it shows the parameters set before it,
  // not a frame already in flight.
  struct PendingShot {
    std::string path;
    uint64_t after = 0;
  };
  std::vector<PendingShot> pendingShots_;
  std::vector<uint8_t> shown_;             // window: the frame shown (packed RGB24)
  int shownWidth_ = 0, shownHeight_ = 0;
  std::string status_;
  uint32_t statusSerial_ = 0;
  int64_t avDiffUs_ = 0;
  // Latency: the trip of the output poll() returned (ticket tripTicket_), and in the window
  // that of the frame consumed last, counted once it is shown.
  FrameTrip trip_;
  uint64_t tripTicket_ = 0;
  FrameTrip shownTrip_;
  uint64_t pushesSeen_ = 0;  // the frame queue's push count when feed() last looked
  bool shownPending_ = false;
  std::chrono::steady_clock::time_point started_;  // start(): the run's wall time counts from here
  double cpuStarted_ = 0;  // processCpuSeconds() at start(): the run's CPU time counts from here
};

}  // namespace vp
