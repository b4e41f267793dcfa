// The one command language of the player, after mpv's input.conf: a command is text
// ("seek +5", "k +1", "mode blur", "screenshot", "quit"), parsed once into a Command and
// applied by Session::apply. Window keys are bound to command text (config [keys]); the
// control channel (--control FILE or -) sends the same text. The verbs, their syntax and
// the default key bindings are the tables in command_table.cpp, from which --help, the
// HUD's help window, config/default.toml's [keys] and README's table are written.
//
// Processing commands act on the filter chain (gpu/filters/chain.h), after mpv: `set`,
// `add`, `cycle` and `auto` on [ELEMENT.]OPTION, the `vf` verbs, `preset`, `mode`,
// `param`. Each filter adds its own words for its options (radius, sigma, k, view, ...:
// OptionCommand in gpu/filters/filter.h), parsed into those generic commands, so the
// program names no filter. Bounds come from the filters' option tables. ChainEditor
// (chain_editor.h) carries them out.
//
// Adding a command: its Verb below, one row in kVerbs (command_table.cpp: name, argument
// kind, syntax, help text; a default key in kFirstKeys / kLastKeys if it has one), and
// its effect in Session::apply (or ChainEditor for a processing parameter). A filter's
// word and keys go in its own folder.
#pragma once

#include "gpu/processor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vp {

enum class Verb : uint8_t {
  Vf,          // vf set CHAIN | vf add FILTER | vf remove N|NAME | vf toggle N|NAME
  Set,         // set [ELEMENT.]OPTION VALUE
  Add,         // add [ELEMENT.]OPTION +N|-N
  Cycle,       // cycle [ELEMENT.]OPTION: next choice, next value (wrapping), or toggle
  Auto,        // auto [ELEMENT.]OPTION [on|off|toggle]: its automatic value (k auto) or the value it had
  Preset,      // preset NAME|cycle: the config's named chains
  Mode,        // mode FILTER|none|cycle: a one-filter chain (cycle = preset cycle)
  Param,       // param +N | param -N: the first element's main option (K, radius)
  Compare,     // compare off|split|side|cycle
  Split,       // split N|+N|-N: the compare line at N % of the width
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
  Set,     // value is the new setting (compare's mode, pause and auto: 1 on, 0 off)
  Add,     // value (seekUs for seek) is a signed step
  Cycle,   // next value in the enum's order
  Toggle,  // pause, mute or auto toggle
};

enum class VfOp : uint8_t { Set, Add, Remove, Toggle };

struct Command {
  Verb verb = Verb::Quit;
  Change change = Change::None;
  int value = 0;        // Set / Add: see Change
  int64_t seekUs = 0;   // seek: position (Set) or offset (Add), microseconds
  std::string path;     // screenshot: file; empty = a new name in --screenshot-dir
  // Chain commands (set / add / cycle / auto, which the filters' words become): the
  // element addressed ("" the first that has the option, "2", "kmeans", "kmeans#2") and
  // the option ("k").
  std::string target;
  std::string option;
  std::string arg;      // set: the value text; vf: CHAIN, FILTER or N|NAME; mode, preset: the name
  double step = 0;      // add: the signed step
  VfOp vf = VfOp::Set;
  std::string text;     // the text it was parsed from (trimmed), for logs and help

  // Same effect (text aside).
  bool operator==(const Command& o) const {
    return verb == o.verb && change == o.change && value == o.value && seekUs == o.seekUs && path == o.path &&
           target == o.target && option == o.option && arg == o.arg && step == o.step && vf == o.vf;
  }
  bool operator!=(const Command& o) const { return !(*this == o); }
};

constexpr int kMaxVolume = 100;  // percent

constexpr int kMaxSplitPercent = 100;  // split N: percent of the width

// Parses one command. Words are separated by blanks and matched case-insensitively; a
// filter's word becomes the generic command it stands for (text keeps what was written);
// the key-action names of earlier versions (k_inc, cycle_mode, toggle_pause, seek_fwd_5,
// ...) are accepted as aliases. Returns nullopt for a blank line or a '#' comment;
// throws std::invalid_argument with a short reason ("k must be 1..32") otherwise.
std::optional<Command> parseCommand(std::string_view text);
// parseCommand for text that must hold a command (bindings, tables): throws on blank too.
Command commandFrom(std::string_view text);

// Fullscreen, hud and help: carried out by a window, ignored headless.
bool isWindowCommand(const Command& command);
// Commands that change only ProcessParams (the chain and compare commands).
bool isParamCommand(const Command& command);
// Key repeat applies (adjusting and seeking commands).
bool repeats(const Command& command);

// One line describing the parameters, for the status line ("blur=r=3,kmeans=k=6 | compare split 50%").
std::string describeParams(const ProcessParams& params);
// A new screenshot file name in `dir`: vidproc-YYYYmmdd-HHMMSS-INDEX.png.
std::string screenshotPath(const std::string& dir, int64_t index);

}  // namespace vp
