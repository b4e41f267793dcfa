#include "app/actions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace vp {
namespace {

struct ActionInfo {
  Action action;
  const char* name;         // config name
  const char* description;  // help window text
};

constexpr std::array<ActionInfo, kActionCount> kActions = {{
    {Action::KDec, "k_dec", "K-means clusters -1"},
    {Action::KInc, "k_inc", "K-means clusters +1"},
    {Action::RadiusDec, "radius_dec", "blur radius -1"},
    {Action::RadiusInc, "radius_inc", "blur radius +1"},
    {Action::ParamDec, "param_dec", "current mode's parameter -1"},
    {Action::ParamInc, "param_inc", "current mode's parameter +1"},
    {Action::CyclePasses, "cycle_passes", "blur passes 1..3"},
    {Action::CycleBorder, "cycle_border", "blur border mode"},
    {Action::CycleMode, "cycle_mode", "next mode"},
    {Action::ModeKmeans, "mode_kmeans", "mode: K-means"},
    {Action::ModeBlur, "mode_blur", "mode: box blur"},
    {Action::ModeNone, "mode_none", "mode: passthrough"},
    {Action::TogglePause, "toggle_pause", "pause / resume"},
    {Action::Step, "step", "one frame (paused)"},
    {Action::SeekBack5, "seek_back_5", "seek -5 s"},
    {Action::SeekFwd5, "seek_fwd_5", "seek +5 s"},
    {Action::SeekBack60, "seek_back_60", "seek -60 s"},
    {Action::SeekFwd60, "seek_fwd_60", "seek +60 s"},
    {Action::ToggleFullscreen, "toggle_fullscreen", "fullscreen (or double-click)"},
    {Action::Screenshot, "screenshot", "save the processed frame as PNG"},
    {Action::ToggleHud, "toggle_hud", "show / hide the HUD"},
    {Action::ShowHelp, "show_help", "show / hide this help"},
    {Action::Quit, "quit", "quit"},
}};

constexpr bool actionsInEnumOrder() {
  for (int i = 0; i < kActionCount; ++i) {
    if (kActions[i].action != static_cast<Action>(i)) return false;
  }
  return true;
}
static_assert(actionsInEnumOrder(), "kActions must list every Action in enum order");

}  // namespace

int64_t seekStepUs(Action action) {
  switch (action) {
    case Action::SeekBack5: return -5'000'000;
    case Action::SeekFwd5: return 5'000'000;
    case Action::SeekBack60: return -60'000'000;
    case Action::SeekFwd60: return 60'000'000;
    default: return 0;
  }
}

const char* actionName(Action action) { return kActions[static_cast<size_t>(action)].name; }

const char* actionDescription(Action action) { return kActions[static_cast<size_t>(action)].description; }

std::optional<Action> parseAction(std::string_view name) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!name.empty() && space(name.front())) name.remove_prefix(1);
  while (!name.empty() && space(name.back())) name.remove_suffix(1);
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::replace(n.begin(), n.end(), '-', '_');
  for (const ActionInfo& info : kActions) {
    if (n == info.name) return info.action;
  }
  return std::nullopt;
}

}  // namespace vp
