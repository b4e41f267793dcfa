#include "app/ui/window_display.h"

#include "app/player/interactive_player.h"
#include "app/player/source_setup.h"
#include "app/ui/sdl_audio.h"
#include "app/ui/window.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <stdexcept>

namespace vp {
namespace {

// The SDL window as the window player's Display.
class WindowDisplay final : public Display {
 public:
  WindowDisplay(const WindowOptions& options, KeyMap keys) : window_(options, std::move(keys)) {
    spdlog::debug("window: OpenGL {}", window_.glDescription());
  }
  std::vector<Command> pollCommands() override { return window_.pollEvents(); }
  bool applyWindowCommand(const Command& command) override { return window_.applyWindowCommand(command); }
  void present(const uint8_t* rgb, size_t pitch, int width, int height) override {
    window_.uploadFrame(rgb, pitch, width, height);
  }
  void render(const HudData& hud) override { window_.render(hud); }
  double refreshMs() const override { return window_.vsync() ? 1e3 / window_.refreshHz() : 0.0; }
  void fitVideo(int width, int height, bool live) override {
    window_.fitVideo(width, height);
    // A swap that waits for the vertical blank holds a live frame up to a refresh; tearing
    // is the lesser harm there (mpv's and ffplay's low-latency advice alike).
    if (live && window_.vsync()) {
      window_.setVsync(false);
      spdlog::info("window: live input: frames are swapped without waiting for vsync (tearing possible)");
    }
  }

 private:
  Window window_;
};

// The defaults, then each config [keys] entry in turn.
KeyMap keyMapFrom(const Options& o) {
  KeyMap keys = KeyMap::defaults();
  for (const auto& [name, value] : o.keys) keys.applyConfigEntry(name, value);
  return keys;
}

}  // namespace

int runWindowPlayer(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  WindowOptions wo;
  wo.title = "vidproc — " + inputDisplayName(o);
  wo.fullscreen = o.fullscreen;
  wo.vsync = o.vsync;
  wo.hud = o.hud;
  wo.showOnFit = true;
  if (o.geometry.width > 0) {
    wo.width = o.geometry.width, wo.height = o.geometry.height;
    wo.sized = true;
  }
  wo.placed = o.geometry.placed;
  wo.x = o.geometry.x, wo.y = o.geometry.y;
  KeyMap keys = keyMapFrom(o);  // config errors are not "no window"
  std::unique_ptr<WindowDisplay> display;
  try {
    display = std::make_unique<WindowDisplay>(wo, std::move(keys));
  } catch (const std::runtime_error& e) {
    throw WindowUnavailable(e.what());
  }
  return runInteractive(o, *display, signals, stats, openSdlAudio);
}

}  // namespace vp
