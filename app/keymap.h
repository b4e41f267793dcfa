// Key bindings: the map from SDL key events to player actions (app/actions.h).
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

#include "app/actions.h"

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
  // The documented default bindings (see config/default.toml and the help window).
  static KeyMap defaults();

  // Binds one more chord to `action`; a chord bound before to another action moves to this one.
  // Throws std::invalid_argument naming the text when it is not a key.
  void bind(const std::string& key, Action action);
  void bind(const KeyChord& chord, Action action);
  // Replaces every chord of `action` with `keys` (config overrides); throws like bind().
  void rebind(Action action, const std::vector<std::string>& keys);
  void unbind(Action action);
  void clear() { bindings_.clear(); }

  // The action for a key-down event, after the keypad / Shift-character fallbacks described above.
  std::optional<Action> lookup(SDL_Keycode key, uint16_t sdlMods) const;
  std::optional<Action> lookup(const SDL_Keysym& keysym) const;

  std::vector<KeyChord> chordsFor(Action action) const;
  // "shift+k" or "question, F1"; empty when unbound.
  std::string describe(Action action) const;
  const std::vector<std::pair<KeyChord, Action>>& bindings() const { return bindings_; }

 private:
  std::optional<Action> find(const KeyChord& chord) const;

  std::vector<std::pair<KeyChord, Action>> bindings_;  // in binding order; a few dozen entries
};

}  // namespace vp
