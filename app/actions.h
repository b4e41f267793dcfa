// Player actions (parameter changes, pause, seek, screenshot, quit ...) and their
// config names. SDL-free: shared by the key bindings (app/keymap.h) and the control
// channel (app/control.h), which also runs in the window-less server build.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vp {

enum class Action {
  KDec,
  KInc,
  RadiusDec,
  RadiusInc,
  ParamDec,
  ParamInc,
  CyclePasses,
  CycleBorder,
  CycleMode,
  ModeKmeans,
  ModeBlur,
  ModeNone,
  TogglePause,
  Step,
  SeekBack5,
  SeekFwd5,
  SeekBack60,
  SeekFwd60,
  ToggleFullscreen,
  Screenshot,
  ToggleHud,
  ShowHelp,
  Quit,
};
inline constexpr int kActionCount = static_cast<int>(Action::Quit) + 1;

// Config name of an action: "k_dec", "k_inc", ... "quit".
const char* actionName(Action action);
// One-line description for the help window ("K-means clusters +1").
const char* actionDescription(Action action);
// Inverse of actionName (case-insensitive, '-' accepted for '_'); nullopt when unknown.
std::optional<Action> parseAction(std::string_view name);
// How far a seek action moves, in microseconds (-5 s, +5 s, -60 s, +60 s); 0 for others.
int64_t seekStepUs(Action action);

}  // namespace vp
