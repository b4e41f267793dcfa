#include "app/ui/keymap.h"

#include "app/input/text.h"

#include "app/input/command_table.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace vp {
namespace {

// Key names accepted in config strings; the first name of a key is the one chordName() prints.
struct NamedKey {
  const char* name;
  SDL_Keycode key;
};
// Tables read better in columns.
// clang-format off
constexpr NamedKey kNamedKeys[] = {
    {"space", SDLK_SPACE},        {"left", SDLK_LEFT},
    {"right", SDLK_RIGHT},        {"up", SDLK_UP},
    {"down", SDLK_DOWN},          {"escape", SDLK_ESCAPE},
    {"esc", SDLK_ESCAPE},         {"return", SDLK_RETURN},
    {"enter", SDLK_RETURN},       {"tab", SDLK_TAB},
    {"backspace", SDLK_BACKSPACE}, {"delete", SDLK_DELETE},
    {"del", SDLK_DELETE},         {"insert", SDLK_INSERT},
    {"home", SDLK_HOME},          {"end", SDLK_END},
    {"pageup", SDLK_PAGEUP},      {"pgup", SDLK_PAGEUP},
    {"pagedown", SDLK_PAGEDOWN},  {"pgdn", SDLK_PAGEDOWN},
    {"plus", SDLK_PLUS},          {"minus", SDLK_MINUS},
    {"period", SDLK_PERIOD},      {"dot", SDLK_PERIOD},
    {"comma", SDLK_COMMA},        {"question", SDLK_QUESTION},
    {"slash", SDLK_SLASH},        {"backslash", SDLK_BACKSLASH},
    {"equals", SDLK_EQUALS},      {"semicolon", SDLK_SEMICOLON},
    {"colon", SDLK_COLON},        {"quote", SDLK_QUOTE},
    {"backquote", SDLK_BACKQUOTE}, {"grave", SDLK_BACKQUOTE},
    {"leftbracket", SDLK_LEFTBRACKET}, {"rightbracket", SDLK_RIGHTBRACKET},
    {"asterisk", SDLK_ASTERISK},  {"underscore", SDLK_UNDERSCORE},
    {"exclaim", SDLK_EXCLAIM},    {"kp_plus", SDLK_KP_PLUS},
    {"kp_minus", SDLK_KP_MINUS},  {"kp_multiply", SDLK_KP_MULTIPLY},
    {"kp_divide", SDLK_KP_DIVIDE}, {"kp_period", SDLK_KP_PERIOD},
    {"kp_enter", SDLK_KP_ENTER},  {"kp_equals", SDLK_KP_EQUALS},
    {"kp_0", SDLK_KP_0}, {"kp_1", SDLK_KP_1}, {"kp_2", SDLK_KP_2}, {"kp_3", SDLK_KP_3},
    {"kp_4", SDLK_KP_4}, {"kp_5", SDLK_KP_5}, {"kp_6", SDLK_KP_6}, {"kp_7", SDLK_KP_7},
    {"kp_8", SDLK_KP_8}, {"kp_9", SDLK_KP_9},
};
// clang-format on

using text::lower;
using text::trim;

// F1..F12 and F13..F24 are two contiguous runs of SDL keycodes.
SDL_Keycode functionKey(int n) {
  if (n >= 1 && n <= 12) return SDLK_F1 + (n - 1);
  if (n >= 13 && n <= 24) return SDLK_F13 + (n - 13);
  return SDLK_UNKNOWN;
}

int functionKeyNumber(SDL_Keycode key) {
  if (key >= SDLK_F1 && key <= SDLK_F12) return 1 + (key - SDLK_F1);
  if (key >= SDLK_F13 && key <= SDLK_F24) return 13 + (key - SDLK_F13);
  return 0;
}

std::optional<uint8_t> parseModifier(std::string_view token) {
  const std::string t = lower(trim(token));
  if (t == "shift") return KeyChord::kShift;
  if (t == "ctrl" || t == "control") return KeyChord::kCtrl;
  if (t == "alt" || t == "option") return KeyChord::kAlt;
  if (t == "gui" || t == "cmd" || t == "super" || t == "meta" || t == "win") return KeyChord::kGui;
  return std::nullopt;
}

// Parses the key part of a chord; an upper-case letter adds Shift.
std::optional<KeyChord> parseKey(std::string_view token) {
  token = trim(token);
  if (token.empty()) return std::nullopt;
  if (token.size() == 1) {
    const auto c = static_cast<unsigned char>(token[0]);
    if (std::isupper(c)) return KeyChord{static_cast<SDL_Keycode>(std::tolower(c)), KeyChord::kShift};
    if (std::isgraph(c)) return KeyChord{static_cast<SDL_Keycode>(c), 0};
    if (c == ' ') return KeyChord{SDLK_SPACE, 0};
    return std::nullopt;
  }
  const std::string t = lower(token);
  for (const NamedKey& named : kNamedKeys) {
    if (t == named.name) return KeyChord{named.key, 0};
  }
  if (t[0] == 'f' && t.size() <= 3 &&
      std::all_of(t.begin() + 1, t.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const SDL_Keycode key = functionKey(std::stoi(t.substr(1)));
    if (key != SDLK_UNKNOWN) return KeyChord{key, 0};
    return std::nullopt;
  }
  // SDL's own names ("Keypad +", "Right Shift"...); pure table look-up, no SDL_Init needed.
  const SDL_Keycode key = SDL_GetKeyFromName(std::string(token).c_str());
  if (key != SDLK_UNKNOWN) return KeyChord{key, 0};
  return std::nullopt;
}

// Keypad keys that type a character act as that character.
SDL_Keycode keypadTwin(SDL_Keycode key) {
  constexpr std::pair<SDL_Keycode, SDL_Keycode> kTwins[] = {
      {SDLK_KP_PLUS, SDLK_PLUS},    {SDLK_KP_MINUS, SDLK_MINUS},   {SDLK_KP_MULTIPLY, SDLK_ASTERISK},
      {SDLK_KP_DIVIDE, SDLK_SLASH}, {SDLK_KP_PERIOD, SDLK_PERIOD}, {SDLK_KP_EQUALS, SDLK_EQUALS},
      {SDLK_KP_ENTER, SDLK_RETURN}};
  for (const auto& [keypad, twin] : kTwins) {
    if (key == keypad) return twin;
  }
  if (key >= SDLK_KP_1 && key <= SDLK_KP_9) return SDLK_1 + (key - SDLK_KP_1);
  if (key == SDLK_KP_0) return SDLK_0;
  return SDLK_UNKNOWN;
}

// The character Shift+key types on a US layout ('=' -> '+', '/' -> '?'), or SDLK_UNKNOWN.
SDL_Keycode usShifted(SDL_Keycode key) {
  constexpr std::string_view kPlain = "=/1234567890-;',.`[]\\";
  constexpr std::string_view kShifted = "+?!@#$%^&*()_:\"<>~{}|";
  if (key < 0 || key > 127) return SDLK_UNKNOWN;
  const size_t i = kPlain.find(static_cast<char>(key));
  return i == std::string_view::npos ? SDLK_UNKNOWN : static_cast<SDL_Keycode>(kShifted[i]);
}

bool isPunctuation(SDL_Keycode key) { return key > 32 && key < 127 && std::ispunct(static_cast<int>(key)); }

}  // namespace

uint8_t chordMods(uint16_t sdlMods) {
  uint8_t mods = 0;
  if (sdlMods & KMOD_SHIFT) mods |= KeyChord::kShift;
  if (sdlMods & KMOD_CTRL) mods |= KeyChord::kCtrl;
  if (sdlMods & KMOD_ALT) mods |= KeyChord::kAlt;
  if (sdlMods & KMOD_GUI) mods |= KeyChord::kGui;
  return mods;
}

std::optional<KeyChord> parseKeyChord(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  // A trailing "+" after a separator (or alone) is the plus key itself: "+", "ctrl++".
  std::string_view keyPart;
  std::string_view modPart;
  if (text.back() == '+' && (text.size() == 1 || text[text.size() - 2] == '+')) {
    keyPart = text.substr(text.size() - 1);
    modPart = text.substr(0, text.size() > 1 ? text.size() - 2 : 0);
  } else {
    const size_t sep = text.rfind('+');
    keyPart = sep == std::string_view::npos ? text : text.substr(sep + 1);
    modPart = sep == std::string_view::npos ? std::string_view() : text.substr(0, sep);
  }
  if (text.size() > 1 && text.back() == '+' && modPart.empty() && keyPart == "+") return std::nullopt;
  std::optional<KeyChord> chord = parseKey(keyPart);
  if (!chord) return std::nullopt;
  while (!modPart.empty()) {
    const size_t sep = modPart.find('+');
    const std::optional<uint8_t> mod = parseModifier(modPart.substr(0, sep));
    if (!mod) return std::nullopt;
    chord->mods |= *mod;
    modPart = sep == std::string_view::npos ? std::string_view() : modPart.substr(sep + 1);
  }
  return chord;
}

std::string chordName(const KeyChord& chord) {
  std::string out;
  if (chord.mods & KeyChord::kCtrl) out += "ctrl+";
  if (chord.mods & KeyChord::kAlt) out += "alt+";
  if (chord.mods & KeyChord::kShift) out += "shift+";
  if (chord.mods & KeyChord::kGui) out += "gui+";
  for (const NamedKey& named : kNamedKeys) {
    if (named.key == chord.key) return out + named.name;
  }
  if (const int f = functionKeyNumber(chord.key)) return out + "F" + std::to_string(f);
  if (chord.key > 32 && chord.key < 127) return out + static_cast<char>(chord.key);
  return out + SDL_GetKeyName(chord.key);
}

KeyMap KeyMap::defaults() {
  KeyMap map;
  for (const KeyBinding& b : defaultKeyBindings()) map.applyConfigEntry(b.keys, b.command);
  return map;
}

void KeyMap::bind(const std::string& key, const std::string& command) {
  const std::optional<KeyChord> chord = parseKeyChord(key);
  if (!chord) throw std::invalid_argument("unknown key '" + key + "'");
  Command c;
  try {
    c = commandFrom(command);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("key '" + key + "': '" + command + "': " + e.what());
  }
  bind(*chord, c);
}

void KeyMap::bind(const KeyChord& chord, const Command& command) {
  for (auto& entry : bindings_) {
    if (entry.first == chord) {
      entry.second = command;
      return;
    }
  }
  bindings_.emplace_back(chord, command);
}

void KeyMap::unbind(const KeyChord& chord) {
  bindings_.erase(std::remove_if(bindings_.begin(), bindings_.end(),
                                 [&](const auto& entry) { return entry.first == chord; }),
                  bindings_.end());
}

namespace {

std::vector<std::string> splitKeys(const std::string& list) {
  std::vector<std::string> keys;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string key = list.substr(start, end - start);
    key.erase(0, key.find_first_not_of(' '));
    key.erase(key.find_last_not_of(' ') + 1);
    if (!key.empty()) keys.push_back(key);
    start = end + 1;
  }
  return keys;
}

}  // namespace

void KeyMap::applyConfigEntry(const std::string& name, const std::string& value) {
  const std::vector<std::string> names = splitKeys(name);
  bool keys = !names.empty();
  for (const std::string& k : names) keys = keys && parseKeyChord(k).has_value();
  if (keys) {  // "key" = "command", or "key, key" = "command"
    for (const std::string& k : names) {
      if (value.empty()) unbind(*parseKeyChord(k));
      else bind(k, value);
    }
    return;
  }
  // The earlier form: action_name = "key, key" (the name is a command alias).
  std::optional<Command> command;
  try {
    command = parseCommand(name);
  } catch (const std::invalid_argument&) {
  }
  if (!command) throw std::invalid_argument("config: '" + name + "' is neither a key nor a command");
  std::vector<KeyChord> chords;  // parse everything first: a bad key leaves the map unchanged
  for (const std::string& k : splitKeys(value)) {
    const std::optional<KeyChord> chord = parseKeyChord(k);
    if (!chord) throw std::invalid_argument("unknown key '" + k + "' for " + name);
    chords.push_back(*chord);
  }
  for (const KeyChord& chord : chordsFor(*command)) unbind(chord);
  for (const KeyChord& chord : chords) bind(chord, *command);
}

const Command* KeyMap::find(const KeyChord& chord) const {
  for (const auto& [bound, command] : bindings_) {
    if (bound == chord) return &command;
  }
  return nullptr;
}

const Command* KeyMap::lookup(SDL_Keycode key, uint16_t sdlMods) const {
  const uint8_t mods = chordMods(sdlMods);
  if (const Command* c = find({key, mods})) return c;
  const SDL_Keycode twin = keypadTwin(key);
  if (twin != SDLK_UNKNOWN) {
    if (const Command* c = find({twin, mods})) return c;
  }
  if (mods & KeyChord::kShift) {
    const SDL_Keycode base = twin != SDLK_UNKNOWN ? twin : key;
    const uint8_t unshifted = mods & ~KeyChord::kShift;
    // US layout: Shift+'=' types '+'.
    const SDL_Keycode shifted = usShifted(base);
    if (shifted != SDLK_UNKNOWN) {
      if (const Command* c = find({shifted, unshifted})) return c;
    }
    // Layouts whose keysym already is the shifted character ('?' reported with Shift held).
    if (isPunctuation(base)) {
      if (const Command* c = find({base, unshifted})) return c;
    }
  }
  return nullptr;
}

const Command* KeyMap::lookup(const SDL_Keysym& keysym) const {
  return lookup(keysym.sym, keysym.mod);
}

std::vector<KeyChord> KeyMap::chordsFor(const Command& command) const {
  std::vector<KeyChord> chords;
  for (const auto& [chord, bound] : bindings_) {
    if (bound == command) chords.push_back(chord);
  }
  return chords;
}

std::string KeyMap::describe(const std::string& command) const {
  std::string out;
  for (const KeyChord& chord : chordsFor(commandFrom(command))) {
    if (!out.empty()) out += ", ";
    out += chordName(chord);
  }
  return out;
}

}  // namespace vp
