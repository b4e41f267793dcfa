// The window player's sound: the track decoded on its own thread (io/audio/audio_decoder.h),
// played through an AudioOutput, and the audio clock the session makes its master
// (FramePacer::setMaster), after ffplay's audio clock: at each device callback, the time
// of the first sample handed over, minus the device's buffer still to play before it,
// plus --audio-delay. Volume and mute apply in the callback. Part of the session.
#pragma once

#include "app/player/audio_output.h"
#include "app/player/clock.h"
#include "io/audio/audio_decoder.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace vp {

class AudioPlayback final : public AudioRenderer {
 public:
  // Opens the device and the decoder; throws std::runtime_error saying why not.
  AudioPlayback(const AudioTrackInfo& track, const AudioOutputFactory& open, int volume, int64_t delayUs);
  ~AudioPlayback() override;  // stops the device (no more callbacks), then the decoder

  AudioPacketSink& sink() { return decoder_->sink(); }
  void start();

  // ---- device thread
  void render(float* out, int frames, int64_t nowUs) override;

  // ---- main thread
  // The audio clock, brought up to the latest callback.
  const Clock& clock(int64_t nowUs);
  void setPaused(bool paused, int64_t nowUs);
  // The first frame (after the start or a seek) is on screen: the sound may start. Until
  // then the device plays silence, so the pipeline's start-up does not leave the picture
  // behind the sound.
  void videoStarted() { gate_ = false; }
  void seek(uint32_t serial, int64_t targetUs);
  void setVolume(int percent) { volume_ = percent; }
  int volume() const { return volume_; }
  void setMuted(bool muted) { muted_ = muted; }
  bool muted() const { return muted_; }
  void setDelayUs(int64_t us) { delayUs_ = us; }
  int64_t delayUs() const { return delayUs_; }
  int64_t underruns() const { return underruns_.load(); }
  int64_t damaged() const { return decoder_->damaged(); }
  // "aac 48000 Hz stereo -> disk 48000 Hz 2 ch"
  const std::string& description() const { return description_; }

 private:
  std::unique_ptr<AudioDecoder> decoder_;  // outlives device_ (its callback reads it)
  std::unique_ptr<AudioOutput> device_;
  int channels_ = 0;
  int64_t bufferUs_ = 0;  // one device buffer: what plays before a sample handed over now
  std::string description_;
  std::atomic<int> volume_{100};
  std::atomic<bool> muted_{false};
  std::atomic<bool> paused_{false};
  std::atomic<bool> gate_{true};  // closed until videoStarted()
  std::atomic<int64_t> underruns_{0};
  std::atomic<bool> playing_{false};  // samples have flowed since the start / last seek

  std::mutex mutex_;  // guards last_ (written by the callback, read by clock())
  struct Played {
    int64_t ptsUs = INT64_MIN;  // session time of the first sample of the latest callback
    uint32_t serial = 0;
    int64_t atUs = 0;           // steady clock at that callback
    uint64_t count = 0;         // callbacks with samples so far
  } last_;
  uint64_t seen_ = 0;            // main thread: last_.count applied to clock_
  Clock clock_;                  // main thread
  std::atomic<int64_t> delayUs_{0};
};

}  // namespace vp
