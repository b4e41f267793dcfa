// The interactive window: SDL2 window + OpenGL 3.3 core context (entry points through libepoxy),
// the video quad (GlVideo), the Dear ImGui HUD (Hud) and key bindings (KeyMap).
//
// Per frame, on the thread that created it:
//   for (const Command& c : window.pollEvents()) if (!window.applyWindowCommand(c)) session.apply(c);
//   if (newFrame) window.uploadFrame(rgb, pitch, w, h);
//   window.render(hudData);   // quad, HUD, SDL_GL_SwapWindow (waits for vsync when on)
// Nothing else blocks. Construction throws std::runtime_error (with SDL_GetError()) when there is
// no display or no GL 3.3: the caller falls back to headless.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/ui/hud.h"
#include "app/ui/keymap.h"

namespace vp {

struct WindowOptions {
  std::string title;        // UTF-8, e.g. "vidproc — input.mp4"
  int width = 1280;         // window size in screen coordinates (points)
  int height = 720;         // window size in screen coordinates (points)
  bool sized = false;       // width x height were asked for: fitVideo() keeps them
  bool placed = false;      // open with the top-left corner at x, y (points), not centred
  int x = 0, y = 0;
  // Open hidden, to be shown by fitVideo() at the video's size (no flash of a wrong size).
  bool showOnFit = false;
  bool hud = true;          // the HUD starts visible
  bool fullscreen = false;  // start fullscreen (desktop resolution)
  bool vsync = true;        // swap on vertical blank; refused quietly where unsupported
  bool hidpi = true;        // full-resolution drawable on HiDPI screens
};

class Window {
 public:
  explicit Window(const WindowOptions& options, KeyMap keys = KeyMap::defaults());
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // Drains SDL's queue without waiting. Returns the commands of bound keys (key repeat only
  // for the adjusting and seeking commands), quit for a window close, fullscreen for a left
  // double-click on the video. Keys and clicks an ImGui widget wants are swallowed.
  std::vector<Command> pollEvents();

  // Carries out the commands that belong to the window itself: fullscreen, hud, help.
  // Returns true when `command` was one of those, false for the player's commands.
  bool applyWindowCommand(const Command& command);

  // Streams a packed RGB24 frame (pitch in bytes, >= width * 3) into the video texture; see GlVideo.
  void uploadFrame(const uint8_t* rgb, size_t pitch, int width, int height);

  // Draws the last uploaded frame letterboxed, the HUD on top, and swaps.
  void render(const HudData& hud);
  void render();  // same with an empty HudData

  // render() in parts, for reading the picture back (tests, the demo): drawFrame(), then
  // readPixels() any number of times, then swap().
  void drawFrame(const HudData& hud);
  // The drawable's pixels as tightly packed RGBA8, top row first.
  void readPixels(std::vector<uint8_t>& rgba, int& width, int& height) const;
  void swap();

  // Once the video's size is known (0: unknown): unless WindowOptions gave a size, the
  // window takes the video's, enlarged by a whole factor while under 640x360 and shrunk to
  // fit the screen's usable area; centred unless placed; then shown.
  void fitVideo(int videoWidth, int videoHeight);

  void setFullscreen(bool on);
  bool fullscreen() const;
  void setTitle(const std::string& title);

  int drawableWidth() const;          // pixels of the GL drawable (> window width on HiDPI)
  int drawableHeight() const;         // pixels of the GL drawable
  bool vsync() const;                 // whether a swap interval was accepted
  void setVsync(bool on);             // asks for (or drops) the swap interval
  double refreshHz() const;           // the display's refresh rate (60 when it does not say)
  std::string glDescription() const;  // "4.5 (Core Profile) Mesa 22.3.6, llvmpipe (...)", for logs

  Hud& hud();
  KeyMap& keys();
  const KeyMap& keys() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;  // keeps SDL, GL and ImGui headers out of this header
};

}  // namespace vp
