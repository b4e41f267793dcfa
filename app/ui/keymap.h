// Key bindings: the map from SDL key events to commands (app/input/commands.h), after
// mpv's input.conf: each chord is bound to a command's text, parsed once at binding.
//
// A binding is a KeyChord: one SDL keycode (the layout-dependent keysym, so "q" is the key that
// types q on the user's layout) plus the exact set of Shift/Ctrl/Alt/GUI held. Chords are parsed
// from config strings such as "shift+k", "K", "ctrl+q", "F1", "space", "left", "plus", "question".
//
// Characters that need Shift on some layouts ('+' is Shift+'=' on US keyboards, '?' is Shift+'/')
// are bound as the character itself; lookup() also tries the keypad twin of a key and the US
// Shift-character of a shifted key, so "plus" fires for '+', keypad '+' and Shift+'='. This keeps
// everything in SDL_KEYDOWN (which carries repeat and modifiers) instead of mixing in SDL_TEXTINPUT.
// No SDL initialisation is needed for any of this.
#pragma once

#include "app/input/commands.h"

#include <SDL_keyboard.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vp {

struct KeyChord {
  static constexpr uint8_t kShift = 1, kCtrl = 2, kAlt = 4, kGui = 8;
  SDL_Keycode key = SDLK_UNKNOWN;  // SDL virtual keycode; letters lower case
  uint8_t mods = 0;                // kShift | kCtrl | kAlt | kGui, matched exactly
  bool operator==(const KeyChord& o) const { return key == o.key && mods == o.mods; }
  bool operator!=(const KeyChord& o) const { return !(*this == o); }
};

// Parses "shift+k", "K" (= shift+k), "ctrl+q", "F1", "space", "left", "escape", "plus", "minus",
// "period", "question", "+", "?", "ctrl++" ...; names are case-insensitive except one letter.
// nullopt when the text names no key.
std::optional<KeyChord> parseKeyChord(std::string_view text);
// Canonical text of a chord, parseable by parseKeyChord: "shift+k", "F1", "space", "plus".
std::string chordName(const KeyChord& chord);
// SDL's modifier state (KMOD_*) reduced to KeyChord mods (left/right merged, locks dropped).
uint8_t chordMods(uint16_t sdlMods);

class KeyMap {
 public:
  // The default bindings (app/input/command_table.cpp, documented in config/default.toml).
  static KeyMap defaults();

  // Binds a chord to a command, replacing what the chord was bound to. Throws
  // std::invalid_argument naming the text when the key or the command is not one.
  void bind(const std::string& key, const std::string& command);
  void bind(const KeyChord& chord, const Command& command);
  // Config [keys] entry: `key = "command"` binds (an empty command unbinds the key); the
  // earlier form `action_name = "key, key"` rebinds every key of that command. Throws
  // std::invalid_argument naming the entry when it is neither.
  void applyConfigEntry(const std::string& name, const std::string& value);
  void unbind(const KeyChord& chord);
  void clear() { bindings_.clear(); }

  // The command for a key-down event, after the keypad / Shift-character fallbacks above.
  const Command* lookup(SDL_Keycode key, uint16_t sdlMods) const;
  const Command* lookup(const SDL_Keysym& keysym) const;

  std::vector<KeyChord> chordsFor(const Command& command) const;
  // "shift+k" or "question, F1": the keys bound to the command of that text; empty when none.
  std::string describe(const std::string& command) const;
  const std::vector<std::pair<KeyChord, Command>>& bindings() const { return bindings_; }

 private:
  const Command* find(const KeyChord& chord) const;

  std::vector<std::pair<KeyChord, Command>> bindings_;  // in binding order; a few dozen entries
};

}  // namespace vp
