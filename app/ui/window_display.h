// The window player in an SDL2 + OpenGL window: the Window as the player's Display, with
// the key bindings of the config's [keys] over the defaults.
#pragma once

#include "app/input/signals.h"
#include "app/options.h"
#include "app/player/stats.h"

#include <stdexcept>

namespace vp {

// No window could be opened (no display, no OpenGL 3.3): run headless instead.
class WindowUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the window player (player/interactive_player.h) in an SDL window. Throws
// WindowUnavailable when no window can be opened (the caller falls back to headless),
// std::invalid_argument for a bad [keys] entry.
int runWindowPlayer(const Options& options, const SignalWatcher& signals, RunStats& stats);

}  // namespace vp
