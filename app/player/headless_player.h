// The headless player: the session with the -o file (or nothing) as its output.
// Processes every frame as fast as the slowest stage allows (no pacing), shows a
// progress bar on a terminal, prints the summary table at the end.
#pragma once

#include "app/options.h"
#include "app/input/signals.h"
#include "app/player/stats.h"

namespace vp {

// Runs to the end of the input, --frames N, a signal or a fatal error. Returns the
// process exit code; errors are printed as one line on stderr.
int runHeadless(const Options& options, const SignalWatcher& signals, RunStats& stats);

}  // namespace vp
