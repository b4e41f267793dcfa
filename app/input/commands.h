// The one command language of the player, after mpv's input.conf: a command is text
// ("seek +5", "k +1", "mode blur", "screenshot", "quit"), parsed once into a Command and
// applied by Session::apply. Window keys are bound to command text (config [keys]); the
// control channel (--control FILE or -) sends the same text. The verbs, their syntax and
// the default key bindings are the tables in command_table.cpp, from which --help, the
// HUD's help window, config/default.toml's [keys] and README's table are written.
//
// Adding a command: its Verb below, one row in kVerbs (command_table.cpp: name, argument
// kind, syntax, help text; a default key in kDefaultKeys if it has one), and its effect
// in Session::apply (or applyParams for a processing parameter).
#pragma once

#include "gpu/processor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vp {

enum class Verb : uint8_t {
  Mode,        // mode kmeans|blur|none|cycle
  K,           // k N | k +N | k -N
  Radius,      // radius N | radius +N | radius -N
  Param,       // param +N | param -N: K or the radius, whichever the mode uses
  Passes,      // passes N | passes cycle
  Border,      // border zero|replicate|reflect|wrap|cycle
  Iterations,  // iterations N
  Pause,       // pause [on|off|toggle]
  Step,        // step: pauses if playing, then advances one frame
  Seek,        // seek S | seek +S | seek -S (seconds)
  Screenshot,  // screenshot [FILE]
  Volume,      // volume N | volume +N | volume -N (percent, 0..100)
  Mute,        // mute [on|off|toggle]
  AudioDelay,  // audio-delay S | +S | -S (seconds; positive plays the sound later)
  Fullscreen,  // the window's own commands: fullscreen, hud, help
  Hud,
  Help,
  Quit,
};
inline constexpr int kVerbCount = static_cast<int>(Verb::Quit) + 1;

// How a command's value applies.
enum class Change : uint8_t {
  None,    // no value (step, screenshot, quit, ...)
  Set,     // value is the new setting (an enum's value for mode, border and pause)
  Add,     // value (seekUs for seek) is a signed step
  Cycle,   // next value in the enum's order
  Toggle,  // pause toggle
};

struct Command {
  Verb verb = Verb::Quit;
  Change change = Change::None;
  int value = 0;        // Set / Add: see Change
  int64_t seekUs = 0;   // seek: position (Set) or offset (Add), microseconds
  std::string path;     // screenshot: file; empty = a new name in --screenshot-dir
  std::string text;     // the text it was parsed from (trimmed), for logs and help

  // Same effect (text aside).
  bool operator==(const Command& o) const {
    return verb == o.verb && change == o.change && value == o.value && seekUs == o.seekUs && path == o.path;
  }
  bool operator!=(const Command& o) const { return !(*this == o); }
};

constexpr int kMaxVolume = 100;  // percent

// Bounds of the parameters (K and radius steps stay within 2..32 and 0..100).
constexpr int kMinClusters = 1, kMinStepClusters = 2;  // kMaxClusters: gpu/kmeans_math.h
constexpr int kMaxRadius = 100;
constexpr int kMinPasses = 1, kMaxPasses = 3;
constexpr int kMaxIterations = 1000;

// Parses one command. Words are separated by blanks and matched case-insensitively;
// the key-action names of earlier versions (k_inc, cycle_mode, toggle_pause, seek_fwd_5,
// ...) are accepted as aliases. Returns nullopt for a blank line or a '#' comment;
// throws std::invalid_argument with a short reason ("k must be 1..32") otherwise.
std::optional<Command> parseCommand(std::string_view text);
// parseCommand for text that must hold a command (bindings, tables): throws on blank too.
Command commandFrom(std::string_view text);

// Fullscreen, hud and help: carried out by a window, ignored headless.
bool isWindowCommand(const Command& command);
// Commands that change only ProcessParams (mode, k, radius, param, passes, border, iterations).
bool isParamCommand(const Command& command);
// Applies a parameter command; true if `params` changed. Others return false.
bool applyParams(const Command& command, ProcessParams& params);
// Key repeat applies (adjusting and seeking commands).
bool repeats(const Command& command);

// One line describing the parameters, for the status line ("kmeans k=8").
std::string describeParams(const ProcessParams& params);
// A new screenshot file name in `dir`: vidproc-YYYYmmdd-HHMMSS-INDEX.png.
std::string screenshotPath(const std::string& dir, int64_t index);

}  // namespace vp
