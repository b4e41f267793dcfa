// The heads-up display: a compact Dear ImGui overlay over the video (rates, drops, queue,
// per-stage timings with rolling plots, processing parameters, input, position) and a help
// window listing the key bindings. The player fills a HudData (player/hud_data.h) each
// frame; Window::render() draws it with Hud::draw() between ImGui's NewFrame and Render.
#pragma once

#include "app/player/hud_data.h"

#include <cstdint>
#include <string>

namespace vp {

class KeyMap;

class Hud {
 public:
  static constexpr double kStatusSeconds = 4.0;  // s a status message stays visible

  // Draws the overlay (when visible), the help window (when helpVisible; its close button clears
  // the flag) and a fresh status message. Call between ImGui::NewFrame() and ImGui::Render().
  void draw(const HudData& data, const KeyMap& keys);

  bool visible = true;       // 'h' toggles
  bool helpVisible = false;  // '?' / F1 toggles

 private:
  void drawOverlay(const HudData& data, const KeyMap& keys, bool showStatus);
  void drawStatusOnly(const HudData& data);
  void drawHelp(const KeyMap& keys);

  std::string lastStatus_;     // status text last seen
  uint32_t lastSerial_ = 0;    // statusSerial last seen
  double statusSince_ = -1e9;  // ImGui time (s) the current status appeared
};

}  // namespace vp
