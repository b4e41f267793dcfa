#include "app/player/session.h"

#include "app/player/audio_playback.h"
#include "app/input/control_channel.h"
#include "app/input/signals.h"
#include "app/options.h"
#include "app/player/source_setup.h"
#include "app/player/stats.h"
#include "io/output/png_writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>

namespace vp {
namespace {

// While paused with nothing in flight a headless run sleeps on the control channel;
// this bounds how late it notices a signal.
constexpr std::chrono::milliseconds kPausedWait{50};

// With the audio clock as master, a decoded frame this far behind it is skipped before
// processing while a newer one waits (ffplay's early frame drop): it could only be
// dropped after it. 0, not a tolerance: the pipeline's own latency comes on top. Measured
// under Xvfb, K-means on 2 loaded cores: 100 ms gave a mean |A-V| of 101 ms, 0 gives 12 ms.
constexpr int64_t kSkipLateUs = 0;

std::string seconds(int64_t us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", double(us) * 1e-6);
  return text;
}

}  // namespace

Session::Session(const Options& o, const SignalWatcher& signals, RunStats& stats, Role role)
    : options_(o), signals_(signals), stats_(stats), role_(role), pacer_(o.sync && role == Role::Window),
      editor_([&o](const FilterInfo& f) { return defaultElement(o, f); }, o.presets) {
  control_ = openControlChannel(o.control);
  processor_ = makeProcessor(o.backend, o.streams);
  SourceOptions sourceOptions = sourceOptionsFrom(o);
  const bool fileAudio = !o.output.empty() && role == Role::Headless && !o.noAudio && o.audioCodec != "none";
  sourceOptions.audio = fileAudio || (role == Role::Window && !o.noAudio && o.sync);
  sourceOptions.audioTrack = o.audioTrack;
  sourceOptions.cancel = [&signals] { return signals.stopRequested(); };  // Ctrl-C while a stream is silent
  source_ = openSource(sourceOptions);
  info_ = source_->info();
  // Live (the source decides: --latency): a drop-oldest queue, shallow in the window, where
  // the newest frame is shown at once, unpaced; headless writes every frame it can.
  const bool shallow = info_.live && role == Role::Window;
  if (shallow) pacer_ = FramePacer(false);
  queue_ = std::make_unique<FrameQueue>(shallow ? 2 : o.streams + 3, frameAllocator(*processor_), info_.live);
  feeder_ = std::make_unique<Feeder>(*source_, *queue_, *processor_);
  feeder_->setNewestOnly(shallow);
  if (info_.live)
    spdlog::info("live input ({}): low latency: short probe, {}; --latency normal buffers it", info_.liveReason,
                 shallow ? "the newest frame shown at once, older ones dropped and counted"
                         : "frames dropped and counted only when the queue is full");
  params_ = o.process;
  editor_.start(params_.chain);

  stats_.input = inputDisplayName(o);
  stats_.backend = processor_->backendName();
  stats_.device = processor_->deviceName();
  stats_.queueCapacity = queue_->capacity();
  stats_.live = info_.live;
  spdlog::info("{}: {}x{} {} {} {:.3g} fps; {} on {}", stats_.input, info_.width, info_.height, info_.codec,
               info_.pixelFormat, info_.fps, stats_.backend, stats_.device);
  if (!o.output.empty()) {
    if (role == Role::Headless) {
      EncoderOptions eo;
      eo.path = o.output;
      eo.codec = o.codec;
      eo.overwrite = o.overwrite;
      eo.audio.track = source_->audioTrack();
      eo.audio.codec = o.audioCodec;
      eo.audio.delayUs = int64_t(o.audioDelay * 1e6);
      if (!eo.audio.track)
        spdlog::info("audio: none{}", o.noAudio || o.audioCodec == "none" ? " (--no-audio / --audio-codec none)"
                                                                         : " in the input");
      file_ = std::make_unique<FileOutput>(eo, info_.fps);
      if (file_->audioSink()) source_->setAudioSink(file_->audioSink());
    } else {
      spdlog::warn("-o {}: files are written only with --headless; not in the window", o.output);
    }
  }
}

Session::~Session() {
  if (source_) source_->stop();
}

void Session::enableAudio(const AudioOutputFactory& open) {
  const AudioTrackInfo track = source_->audioTrack();
  if (role_ != Role::Window || !track || !open) return;  // no factory: a test or benchmark display
  try {
    audio_ = std::make_unique<AudioPlayback>(track, open, options_.volume, int64_t(options_.audioDelay * 1e6));
  } catch (const std::exception& e) {
    spdlog::warn("no sound: {}; the video plays on", e.what());
    stats_.audio = "none (" + std::string(e.what()) + ")";
    return;
  }
  source_->setAudioSink(&audio_->sink());
  const int64_t now = steadyNowUs();
  pacer_.setMaster(&audio_->clock(now));  // the audio clock times the video from now on
  feeder_->setLateCheck([this](int64_t ptsUs) {
    const int64_t nowUs = steadyNowUs();
    const Clock& clock = audio_->clock(nowUs);
    const std::optional<int64_t> t = clock.at(nowUs);
    return !paused_ && t && clock.serial() == serial_ && ptsUs < *t - kSkipLateUs;
  });
  stats_.audio = audio_->description();
  spdlog::info("audio: {}", stats_.audio);
}

void Session::start() {
  started_ = std::chrono::steady_clock::now();
  cpuStarted_ = processCpuSeconds();
  source_->start(*queue_);
  if (audio_) audio_->start();
}

bool Session::interrupted() const { return signals_.stopRequested(); }

void Session::notify(const std::string& text, Origin origin, bool warning) {
  const char* prefix = origin == Origin::Control ? "control: " : "";
  if (warning) spdlog::warn("{}{}", prefix, text);
  else spdlog::info("{}{}", prefix, text);
  status_ = text;
  ++statusSerial_;
}

void Session::takeControlCommands() {
  if (!control_) return;
  for (const Command& c : control_->take()) apply(c, Origin::Control);
}

void Session::apply(const Command& c, Origin origin) {
  if (isParamCommand(c)) {
    try {
      if (std::optional<std::string> what = editor_.apply(c, params_)) notify(*what, origin);
    } catch (const std::invalid_argument& bad) {
      notify("'" + c.text + "': " + bad.what(), origin, true);
    }
    return;
  }
  if (isWindowCommand(c)) {
    if (!windowCommands_ || !windowCommands_(c)) notify("'" + c.text + "' needs a window; ignored", origin, true);
    return;
  }
  switch (c.verb) {
    case Verb::Pause:
      if (!(c.change == Change::Set && c.value)) steps_ = 0;  // resuming drops pending steps
      setPaused(c.change == Change::Toggle ? !paused_ : c.value != 0, origin);
      break;
    case Verb::Step:  // like mpv's frame-step: pause first if playing
      if (!paused_) setPaused(true, origin);
      ++steps_;
      break;
    case Verb::Seek: seekTo(c.change == Change::Add ? positionUs_ + c.seekUs : c.seekUs, c, origin); break;
    case Verb::Screenshot: screenshot(c.path, origin); break;
    case Verb::Volume:
    case Verb::Mute:
    case Verb::AudioDelay: applyAudio(c, origin); break;
    case Verb::Quit:
      spdlog::debug("quit ({})", c.text);
      quit_ = true;
      break;
    default: break;
  }
}

void Session::applyAudio(const Command& c, Origin origin) {
  if (!audio_) {
    notify("'" + c.text + "': no sound is playing; ignored", origin, true);
    return;
  }
  char text[64];
  if (c.verb == Verb::Volume) {
    audio_->setVolume(std::clamp(c.change == Change::Add ? audio_->volume() + c.value : c.value, 0, kMaxVolume));
    std::snprintf(text, sizeof text, "volume %d %%%s", audio_->volume(), audio_->muted() ? " (muted)" : "");
  } else if (c.verb == Verb::Mute) {
    audio_->setMuted(c.change == Change::Toggle ? !audio_->muted() : c.value != 0);
    std::snprintf(text, sizeof text, "%s", audio_->muted() ? "muted" : "sound on");
  } else {
    audio_->setDelayUs(c.change == Change::Add ? audio_->delayUs() + c.seekUs : c.seekUs);
    std::snprintf(text, sizeof text, "audio delay %.3f s", double(audio_->delayUs()) * 1e-6);
  }
  notify(text, origin);
}

void Session::setPaused(bool paused, Origin origin) {
  if (role_ == Role::Window && paused == paused_) return;
  paused_ = paused;
  if (audio_)
    audio_->setPaused(paused, steadyNowUs());
  pacer_.reanchor();  // resumed: the next frame shown restarts the clock
  notify(paused ? "paused" : "playing", origin);
}

void Session::seekTo(int64_t targetUs, const Command& c, Origin origin) {
  const int64_t target = std::max<int64_t>(0, targetUs);
  feeder_->settle();  // no upload may be reading a queue slot the seek flushes
  if (!source_->seek(target)) {
    notify("'" + c.text + "': this input cannot seek (live source)", origin, true);
    return;
  }
  ++serial_;
  if (audio_) audio_->seek(source_->serial(), target);
  if (role_ == Role::Window) discard_ = processor_->inFlight();
  positionUs_ = target;
  notify("seek to " + seconds(target), origin);
}

void Session::screenshot(const std::string& wanted, Origin origin) {
  const auto path = [&] { return wanted.empty() ? screenshotPath(options_.screenshotDir, ++screenshots_) : wanted; };
  // Headless keeps no per-frame copy; a window showing a comparison has no processed frame
  // alone to save: both take the first frame submitted after this request.
  if (role_ == Role::Headless || (params_.compare != CompareMode::Off && options_.outputView != "shown")) {
    pendingShots_.push_back({path(), feeder_->lastTicket()});
    if (role_ == Role::Window)
      notify("screenshot: the processed frame is saved from the next frame (the window shows a comparison)",
             origin);
    return;
  }
  if (shownWidth_ == 0) {
    notify("no frame to save yet", origin);
    return;
  }
  const std::string file = path();
  try {
    writePng(file, shown_.data(), size_t(shownWidth_) * 3, shownWidth_, shownHeight_);
    notify("screenshot saved: " + file, origin);
  } catch (const std::exception& e) {
    notify(std::string("screenshot failed: ") + e.what(), origin, true);
  }
}

RgbPicture Session::savedPicture(const OutputFrame& out) const {
  return options_.outputView == "shown" ? out.shown() : out.processedPicture();
}

bool Session::needProcessed() const {
  return options_.outputView != "shown" && (file_ || !pendingShots_.empty());
}

void Session::savePendingScreenshots(const OutputFrame& out) {
  const RgbPicture picture = savedPicture(out);
  if (!picture.rgb) return;  // submitted before the screenshot asked for it: the next frame
  auto due = [&](const PendingShot& shot) { return out.ticket > shot.after; };
  for (const PendingShot& shot : pendingShots_) {
    if (!due(shot)) continue;
    try {
      writePng(shot.path, picture.rgb, picture.pitch, picture.width, picture.height);
      notify("screenshot saved: " + shot.path, Origin::Key);
    } catch (const std::exception& e) {
      notify(std::string("screenshot failed: ") + e.what(), Origin::Key, true);
    }
  }
  pendingShots_.erase(std::remove_if(pendingShots_.begin(), pendingShots_.end(), due), pendingShots_.end());
}

bool Session::feed() {
  pushesSeen_ = queue_->pushes();
  bool progressed = false;
  const bool stepping = paused_ && steps_ > 0;
  if (!paused_ || stepping) {
    const int64_t before = feeder_->framesIn();
    params_.keepProcessed = params_.compare != CompareMode::Off && needProcessed();
    progressed = feeder_->feed(params_);
    // Headless counts steps as frames submitted; the window as frames shown (pace()).
    if (stepping && role_ == Role::Headless && feeder_->framesIn() > before) --steps_;
  } else {
    feeder_->settle();  // paused: hand the pending upload's queue slot back, submit nothing new
  }
  if (options_.frames > 0 && feeder_->framesIn() >= options_.frames) feeder_->stopFeeding();
  return progressed;
}

const OutputFrame* Session::poll() {
  for (;;) {
    const OutputFrame* out = processor_->poll(false);
    if (out && out->ticket != tripTicket_) {  // a new output: its trip so far
      trip_ = feeder_->takeTrip(out->ticket);
      trip_.processedUs = steadyNowUs();
      tripTicket_ = out->ticket;
    }
    if (!out || discard_ == 0) return out;
    --discard_;  // processed before the seek: not shown
    processor_->release();
  }
}

PaceDecision Session::pace(const OutputFrame& out, int64_t nowUs) {
  trip_.presentedUs = nowUs;  // overwritten until the frame is presented
  if (role_ == Role::Headless) return PaceDecision::Present;
  if (paused_ && steps_ == 0) return PaceDecision::Wait;
  // Dropping a late frame only helps when a newer one is already there to show.
  const bool isLast = processor_->finished() < 2;
  if (audio_) audio_->clock(nowUs);  // the master reads the latest callback
  const PaceDecision d = pacer_.decide(out.ptsUs, serial_, nowUs, isLast);
  if (d == PaceDecision::Drop) ++stats_.droppedLate;
  if (d == PaceDecision::Present && audio_) {
    audio_->videoStarted();
    measureAvDiff(out, nowUs);
  }
  return d;
}

// A-V difference of a frame shown: its timestamp minus the audio clock (positive: the
// picture is ahead of the sound), while the clock reads this seek generation.
void Session::measureAvDiff(const OutputFrame& out, int64_t nowUs) {
  const Clock& clock = audio_->clock(nowUs);
  const std::optional<int64_t> t = clock.at(nowUs);
  if (!t || clock.serial() != serial_ || paused_) return;
  avDiffUs_ = out.ptsUs - *t;
  stats_.avDiffMs.add(double(std::llabs(avDiffUs_)) * 1e-3);
  spdlog::trace("a-v {:+.1f} ms at {:.3f} s", double(avDiffUs_) * 1e-3, double(out.ptsUs) * 1e-6);
}

void Session::consume(const OutputFrame& out) {
  if (role_ == Role::Headless && trip_.presentedUs == 0) trip_.presentedUs = steadyNowUs();  // consumed unpaced
  if (file_) {
    const RgbPicture picture = savedPicture(out);
    if (picture.rgb) stats_.stages[size_t(Stage::Encode)].add(file_->write(picture, out.ptsUs, feeder_->serialOf(out.ticket)));
  }
  if (role_ == Role::Headless) {
    stats_.addLatency(trip_, steadyNowUs());  // written (or, without -o, done)
  } else {
    shownTrip_ = trip_;  // counted once the swap shows it (frameShown)
    shownPending_ = true;
  }
  if (!pendingShots_.empty()) savePendingScreenshots(out);
  if (role_ == Role::Window) {  // kept for screenshots of the frame shown
    const size_t row = size_t(out.width) * 3;
    shown_.resize(row * size_t(out.height));
    shownWidth_ = out.width;
    shownHeight_ = out.height;
    for (int y = 0; y < out.height; ++y)
      std::memcpy(&shown_[row * size_t(y)], out.rgb + size_t(y) * out.pitch, row);
    if (paused_ && steps_ > 0) --steps_;
  }
  stats_.addFrame(out);
  stats_.queueDepth.add(queue_->size());
  positionUs_ = out.ptsUs;
}

void Session::release() { processor_->release(); }

double Session::frameShown(int64_t nowUs) {
  if (!std::exchange(shownPending_, false)) return -1;
  return stats_.addLatency(shownTrip_, nowUs);
}

bool Session::finished() const { return feeder_->finished() && discard_ == 0; }

void Session::waitForWork() {
  if (control_ && paused_ && steps_ == 0 && processor_->inFlight() == 0) control_->waitFor(kPausedWait);
  else feeder_->waitForWork();
}

int Session::finish(int exitCode) {
  source_->stop();
  for (const PendingShot& shot : pendingShots_)
    notify("screenshot not saved: " + shot.path + " (the run ended before the next frame)", Origin::Key, true);
  // Stopped early (--frames, Ctrl-C, quit): the file's audio ends with its last frame.
  const bool cut = quit_ || interrupted() || (options_.frames > 0 && feeder_->framesIn() >= options_.frames);
  if (file_) file_->finish(cut);
  stats_.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  stats_.framesIn = feeder_->framesIn();
  stats_.finalParams = params_;  // in force at the end, even if no frame used them yet
  stats_.droppedQueue = queue_->dropped();
  stats_.droppedLate += feeder_->skipped();
  if (control_) {
    stats_.controlCommands = control_->accepted();
    stats_.controlRejected = control_->rejected();
  }
  stats_.decodeErrors = source_->stats().decodeErrors;
  stats_.cpuSeconds = processCpuSeconds() - cpuStarted_;
  const SourceInfo last = source_->info();
  stats_.decodePath = last.decodePath, stats_.surfaceFormat = last.surfaceFormat;
  stats_.colorMatrix = last.colorMatrix, stats_.hdr = last.hdr;
  if (audio_) {
    stats_.audioUnderruns = audio_->underruns();
    stats_.audioDamaged = audio_->damaged();
  }
  const std::string fatal = source_->fatalError();
  if (!fatal.empty()) {
    std::fprintf(stderr, "vidproc: %s\n", fatal.c_str());
    if (exitCode == kExitOk) exitCode = kExitError;
  }
  return exitCode;
}

}  // namespace vp
