// What the window player shows its output on: the SDL window (ui/window_display.cpp) or,
// in tests, a scripted display (after mpv's vo_null). SDL-free, so the player core and
// its tests build without a window.
#pragma once

#include "app/input/commands.h"
#include "app/player/hud_data.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vp {

class Display {
 public:
  virtual ~Display() = default;
  // Commands from the display's input since the last call (bound keys; closing the
  // window is quit); never blocks.
  virtual std::vector<Command> pollCommands() = 0;
  // Carries out a window command (fullscreen, hud, help); false for the rest.
  virtual bool applyWindowCommand(const Command& command) = 0;
  // A new processed frame to show from now on (packed RGB24, `pitch` bytes per row).
  virtual void present(const uint8_t* rgb, size_t pitch, int width, int height) = 0;
  // Draws the current frame and the HUD; a display with vsync blocks here until its refresh.
  virtual void render(const HudData& hud) = 0;
  // Milliseconds between the refreshes render() waits for; 0 when it does not wait.
  virtual double refreshMs() const = 0;
  // The input's picture size once the source is open (0: not known yet): a window may
  // take its size from it; `live`: frames are to reach the screen as soon as they can (a
  // display with vsync stops waiting for it). Called once, before the first present().
  virtual void fitVideo(int width, int height, bool live) { (void)width, (void)height, (void)live; }
};

}  // namespace vp
