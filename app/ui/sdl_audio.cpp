#include "app/ui/sdl_audio.h"

#include "app/player/clock.h"

#include <SDL.h>

#include <stdexcept>

namespace vp {
namespace {

// SDL's audio subsystem, initialised for as long as one device is open (SDL counts).
class AudioSubsystem {
 public:
  AudioSubsystem() {
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) != 0) throw std::runtime_error(std::string("SDL: ") + SDL_GetError());
  }
  ~AudioSubsystem() { SDL_QuitSubSystem(SDL_INIT_AUDIO); }
  AudioSubsystem(const AudioSubsystem&) = delete;
  AudioSubsystem& operator=(const AudioSubsystem&) = delete;
};

class SdlAudio final : public AudioOutput {
 public:
  SdlAudio(int rate, int channels) {
    SDL_AudioSpec want{};
    want.freq = rate > 0 ? rate : 48000;
    want.format = AUDIO_F32SYS;
    want.channels = Uint8(channels > 0 && channels <= 8 ? channels : 2);
    // ~20 ms buffers (a power of two): short enough for sync and seeks, long enough not to run dry.
    int samples = 256;
    while (samples * 50 < want.freq) samples *= 2;
    want.samples = Uint16(samples);
    want.callback = &SdlAudio::callback;
    want.userdata = this;
    device_ = SDL_OpenAudioDevice(nullptr, 0, &want, &have_,
                                  SDL_AUDIO_ALLOW_FREQUENCY_CHANGE | SDL_AUDIO_ALLOW_CHANNELS_CHANGE);
    if (device_ == 0) throw std::runtime_error(std::string("cannot open an audio device: ") + SDL_GetError());
    const char* driver = SDL_GetCurrentAudioDriver();
    driver_ = driver ? driver : "sdl";
  }
  ~SdlAudio() override { SDL_CloseAudioDevice(device_); }  // returns after the last callback

  int rate() const override { return have_.freq; }
  int channels() const override { return have_.channels; }
  int bufferFrames() const override { return have_.samples; }
  std::string name() const override { return driver_; }
  void start(AudioRenderer& renderer) override {
    SDL_LockAudioDevice(device_);
    renderer_ = &renderer;
    SDL_UnlockAudioDevice(device_);
    SDL_PauseAudioDevice(device_, 0);
  }

 private:
  static void callback(void* self, Uint8* stream, int bytes) {
    auto* a = static_cast<SdlAudio*>(self);
    const int frames = bytes / int(sizeof(float)) / std::max<int>(1, a->have_.channels);
    if (a->renderer_) a->renderer_->render(reinterpret_cast<float*>(stream), frames, steadyNowUs());
    else SDL_memset(stream, 0, size_t(bytes));
  }

  AudioSubsystem subsystem_;  // first in, last out
  SDL_AudioSpec have_{};
  SDL_AudioDeviceID device_ = 0;
  std::string driver_;
  AudioRenderer* renderer_ = nullptr;  // set under the device lock
};

}  // namespace

std::unique_ptr<AudioOutput> openSdlAudio(int rate, int channels) { return std::make_unique<SdlAudio>(rate, channels); }

}  // namespace vp
