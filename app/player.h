// The interactive player loop: source -> processor -> display, paced by
// timestamps, driven by key actions (parameters, pause, step, seek, screenshot).
// The display is an interface so the loop runs against the SDL window or, in
// tests, a scripted null display (after mpv's vo_null).
#pragma once

#include "app/hud.h"
#include "app/keymap.h"
#include "app/options.h"
#include "app/signals.h"
#include "app/stats.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {

class Display {
 public:
  virtual ~Display() = default;
  // Input since the last call; never blocks.
  virtual std::vector<Action> pollEvents() = 0;
  // Handles display-only actions (fullscreen, HUD, help); false for the rest.
  virtual bool applyUiAction(Action action) = 0;
  // A new processed frame to show from now on (packed RGB24, `pitch` bytes per row).
  virtual void present(const uint8_t* rgb, size_t pitch, int width, int height) = 0;
  // Draws the current frame and the HUD; a real window blocks here for vsync.
  virtual void render(const HudData& hud) = 0;
  // Whether render() waits for the display (else the loop sleeps a little when idle).
  virtual bool paced() const = 0;
};

// Runs until quit (key, window close, signal) or the end of the input. Returns
// the exit code. Screenshots go to options.screenshotDir; their paths are logged
// and shown in the HUD status line.
int runPlayer(const Options& options, Display& display, const SignalWatcher& signals, RunStats& stats);

// No window could be opened (no display, no OpenGL 3.3): run headless instead.
class WindowUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the player in an SDL window (app/window_player.cpp). Throws
// WindowUnavailable when no window can be opened (the caller falls back to headless).
int runWindowPlayer(const Options& options, const SignalWatcher& signals, RunStats& stats);

}  // namespace vp
