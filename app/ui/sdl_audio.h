// SDL2 audio as the window player's AudioOutput (player/audio_output.h).
#pragma once

#include "app/player/audio_output.h"

namespace vp {

// Opens the default SDL2 audio device for interleaved float samples, letting SDL change
// the rate and channel count to what the device takes (the decoder resamples to them).
// Throws std::runtime_error with SDL's reason (no driver, no device).
std::unique_ptr<AudioOutput> openSdlAudio(int rate, int channels);

}  // namespace vp
