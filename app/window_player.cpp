// The player in an SDL2 + OpenGL window: adapts vp::Window to the Display interface
// and applies the key bindings from the config file.
#include "app/frame_loop.h"
#include "app/player.h"
#include "app/window.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <stdexcept>

namespace vp {
namespace {

class WindowDisplay final : public Display {
 public:
  WindowDisplay(const WindowOptions& options, KeyMap keys) : window_(options, std::move(keys)) {
    spdlog::debug("window: OpenGL {}", window_.glDescription());
  }
  std::vector<Action> pollEvents() override { return window_.pollEvents(); }
  bool applyUiAction(Action action) override { return window_.applyUiAction(action); }
  void present(const uint8_t* rgb, size_t pitch, int width, int height) override {
    window_.uploadFrame(rgb, pitch, width, height);
  }
  void render(const HudData& hud) override { window_.render(hud); }
  bool paced() const override { return window_.vsync(); }

 private:
  Window window_;
};

// Defaults, then each config [keys] entry ("q, escape") replaces that action's keys.
KeyMap keyMapFrom(const Options& o) {
  KeyMap keys = KeyMap::defaults();
  for (const auto& [name, list] : o.keys) {
    auto action = parseAction(name);
    if (!action) throw std::invalid_argument("config: unknown key action '" + name + "'");
    std::vector<std::string> chords;
    std::stringstream ss(list);
    for (std::string item; std::getline(ss, item, ',');) {
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      if (!item.empty()) chords.push_back(item);
    }
    keys.rebind(*action, chords);
  }
  return keys;
}

}  // namespace

int runWindowPlayer(const Options& o, const SignalWatcher& signals, RunStats& stats) {
  WindowOptions wo;
  wo.title = "vidproc — " + inputDisplayName(o);
  wo.fullscreen = o.fullscreen;
  wo.vsync = o.vsync;
  KeyMap keys = keyMapFrom(o);  // config errors are not "no window"
  std::unique_ptr<WindowDisplay> display;
  try {
    display = std::make_unique<WindowDisplay>(wo, std::move(keys));
  } catch (const std::runtime_error& e) {
    throw WindowUnavailable(e.what());
  }
  return runPlayer(o, *display, signals, stats);
}

}  // namespace vp
