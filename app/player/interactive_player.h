// The window player: the session with a display as its output. Frames are shown at
// their timestamps against the session's master clock, driven by commands from the
// display's keys and the control channel. While the display waits for its refresh the
// loop keeps feeding and polling the pipeline, so processing is not capped at the
// display's rate.
#pragma once

#include "app/input/signals.h"
#include "app/options.h"
#include "app/player/audio_output.h"
#include "app/player/display.h"
#include "app/player/stats.h"

namespace vp {

// Runs until quit (key, window close, control channel), a signal or the end of the
// input. Returns the exit code; screenshots go to options.screenshotDir, their paths
// logged and shown in the HUD status line. With `audio`, the input's sound plays on the
// devices it opens and its clock times the video (none: silent, the video clock).
int runInteractive(const Options& options, Display& display, const SignalWatcher& signals, RunStats& stats,
                   const AudioOutputFactory& audio = {});

}  // namespace vp
