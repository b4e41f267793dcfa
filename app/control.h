// Control-channel commands (--control FILE): one text line -> one ControlCommand.
// Pure parsing and parameter logic, unit-tested; app/control_channel.h reads the
// lines, the players apply the commands at frame boundaries.
//
//   mode kmeans|blur|none     k N (1..32)       radius N (0..100)    passes N (1..3)
//   border zero|replicate|reflect|wrap          iterations N (0..1000)
//   pause | resume | step     seek S | seek +S | seek -S (seconds; decimals allowed)
//   screenshot [FILE]         quit
//   any key action by its config name: k_inc, cycle_mode, toggle_pause, seek_fwd_5, ...
// Words are separated by blanks; blank lines and lines starting with '#' are skipped.
#pragma once

#include "app/actions.h"
#include "gpu/processor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vp {

enum class ControlKind : uint8_t {
  SetMode,
  SetK,
  SetRadius,
  SetPasses,
  SetBorder,
  SetIterations,
  Key,  // a key action without a command of its own (k_inc, cycle_mode, toggle_hud, ...)
  Pause,
  Resume,
  TogglePause,
  Step,  // pauses if playing, then advances one frame
  SeekTo,
  SeekBy,
  Screenshot,
  Quit,
};

struct ControlCommand {
  ControlKind kind = ControlKind::Quit;
  int value = 0;                 // Set*: the new value (Mode / BorderMode as their enum value)
  Action action = Action::Quit;  // Key: the action, as if its key had been pressed
  int64_t seekUs = 0;            // SeekTo: position; SeekBy: offset (microseconds)
  std::string path;              // Screenshot: file; empty = a new name in --screenshot-dir
  std::string text;              // the line it came from, for logs
};

// Parses one line. Returns nullopt for a blank line or a comment; throws
// std::invalid_argument with a short reason ("k must be 1..32") for anything else
// that is not a command.
std::optional<ControlCommand> parseControlCommand(std::string_view line);

// True for the commands that only change ProcessParams (Set*, and Key with a
// parameter action).
bool isParamCommand(const ControlCommand& command);
// Applies a parameter command; returns true if `params` changed.
bool applyControlParams(const ControlCommand& command, ProcessParams& params);

}  // namespace vp
