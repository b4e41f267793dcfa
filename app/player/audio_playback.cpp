#include "app/player/audio_playback.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

namespace vp {

AudioPlayback::AudioPlayback(const AudioTrackInfo& track, const AudioOutputFactory& open, int volume,
                             int64_t delayUs)
    : volume_(volume), delayUs_(delayUs) {
  if (!open) throw std::runtime_error("no audio output in this build");
  device_ = open(track.sampleRate, track.channels);
  channels_ = device_->channels();
  bufferUs_ = int64_t(device_->bufferFrames()) * 1'000'000 / std::max(1, device_->rate());
  decoder_ = std::make_unique<AudioDecoder>(track, device_->rate(), channels_);
  description_ = track.describe() + " -> " + device_->name() + " " + std::to_string(device_->rate()) + " Hz " +
                 std::to_string(channels_) + " ch";
}

AudioPlayback::~AudioPlayback() {
  device_.reset();  // waits for a callback in progress
  decoder_.reset();
}

void AudioPlayback::start() {
  decoder_->start();
  device_->start(*this);
}

void AudioPlayback::render(float* out, int frames, int64_t nowUs) {
  const size_t samples = size_t(frames) * size_t(channels_);
  if (paused_ || gate_) {  // pause plays silence; nothing is consumed, so it resumes in sync
    std::memset(out, 0, samples * sizeof(float));
    return;
  }
  int64_t firstUs = 0;
  uint32_t serial = 0;
  const int n = decoder_->read(out, frames, firstUs, serial);
  if (n < frames) {
    std::memset(out + size_t(n) * size_t(channels_), 0, (samples - size_t(n) * size_t(channels_)) * sizeof(float));
    if (playing_.exchange(n > 0) || n > 0) ++underruns_;  // ran dry while playing
  } else {
    playing_ = true;
  }
  const float gain = muted_ ? 0.f : float(volume_.load()) / 100.f;
  if (gain != 1.f)
    for (size_t i = 0; i < size_t(n) * size_t(channels_); ++i) out[i] *= gain;
  {
    // Dry (an underrun, or the sound has ended): the clock reads nothing, and the video
    // runs on its own clock until samples flow again (ffplay's NAN audio clock).
    std::lock_guard<std::mutex> lock(mutex_);
    last_.ptsUs = n > 0 ? firstUs : INT64_MIN;
    last_.serial = serial;
    last_.atUs = nowUs;
    ++last_.count;
  }
}

const Clock& AudioPlayback::clock(int64_t nowUs) {
  Played p;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    p = last_;
  }
  if (p.count != seen_ && !clock_.paused()) {
    seen_ = p.count;
    if (p.ptsUs == INT64_MIN) {
      clock_.invalidate();
      return clock_;
    }
    // The samples handed over at atUs play after the buffer ahead of them.
    clock_.set(p.ptsUs - bufferUs_ + delayUs_, int(p.serial), p.atUs);
  }
  (void)nowUs;
  return clock_;
}

void AudioPlayback::setPaused(bool paused, int64_t nowUs) {
  paused_ = paused;
  clock_.setPaused(paused, nowUs);
}

void AudioPlayback::seek(uint32_t serial, int64_t targetUs) {
  gate_ = true;  // silent until the first frame after the seek is shown
  decoder_->seek(serial, targetUs);
  playing_ = false;
  clock_.invalidate();
}

}  // namespace vp
