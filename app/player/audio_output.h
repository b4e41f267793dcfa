// What the window player plays its sound on: an audio device that pulls samples from a
// renderer on its own thread (SDL2 audio in ui/sdl_audio.cpp; a test double elsewhere).
// SDL-free, like Display, so the player core builds and tests without SDL.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace vp {

// Fills the device's buffer; called on the device's thread.
class AudioRenderer {
 public:
  virtual ~AudioRenderer() = default;
  // `frames` frames of interleaved float samples into `out`, channels in SDL2's speaker
  // order (SDL_audio.h); `nowUs` the steady clock (microseconds) at the call.
  virtual void render(float* out, int frames, int64_t nowUs) = 0;
};

class AudioOutput {
 public:
  virtual ~AudioOutput() = default;
  virtual int rate() const = 0;          // what the device gave (Hz)
  virtual int channels() const = 0;
  virtual int bufferFrames() const = 0;  // frames per render() call: the device's latency
  virtual std::string name() const = 0;  // driver, for the notice ("pulseaudio", "disk")
  // Starts calling `renderer` (until destroyed: stops and waits for the callback first).
  virtual void start(AudioRenderer& renderer) = 0;
};

// Opens a device for a track of `rate` Hz and `channels` channels (the device may give
// other values); throws std::runtime_error saying why there is no sound.
using AudioOutputFactory = std::function<std::unique_ptr<AudioOutput>(int rate, int channels)>;

}  // namespace vp
