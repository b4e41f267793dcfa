// KeyMap: parsing key names, binding keys to commands, default bindings, event lookup with
// the keypad and Shift-character fallbacks. No display needed.
#include <gtest/gtest.h>

#include <stdexcept>

#include "app/input/command_table.h"
#include "app/ui/keymap.h"

namespace vp {
namespace {

KeyChord chord(SDL_Keycode key, uint8_t mods = 0) { return KeyChord{key, mods}; }

// The text of the bound command, nullopt when the key is unbound.
std::optional<std::string> text(const Command* command) {
  return command ? std::optional<std::string>(command->text) : std::nullopt;
}

TEST(KeyChordParse, LettersAndShift) {
  EXPECT_EQ(parseKeyChord("k"), chord(SDLK_k));
  EXPECT_EQ(parseKeyChord("shift+k"), chord(SDLK_k, KeyChord::kShift));
  EXPECT_EQ(parseKeyChord("K"), chord(SDLK_k, KeyChord::kShift));
  EXPECT_EQ(parseKeyChord("Shift+K"), chord(SDLK_k, KeyChord::kShift));
  EXPECT_EQ(parseKeyChord("ctrl+q"), chord(SDLK_q, KeyChord::kCtrl));
  EXPECT_EQ(parseKeyChord("control+alt+x"), chord(SDLK_x, KeyChord::kCtrl | KeyChord::kAlt));
  EXPECT_EQ(parseKeyChord(" ctrl + shift + s "), chord(SDLK_s, KeyChord::kCtrl | KeyChord::kShift));
  EXPECT_EQ(parseKeyChord("cmd+q"), chord(SDLK_q, KeyChord::kGui));
}

TEST(KeyChordParse, NamedKeys) {
  EXPECT_EQ(parseKeyChord("F1"), chord(SDLK_F1));
  EXPECT_EQ(parseKeyChord("f12"), chord(SDLK_F12));
  EXPECT_EQ(parseKeyChord("F13"), chord(SDLK_F13));
  EXPECT_EQ(parseKeyChord("space"), chord(SDLK_SPACE));
  EXPECT_EQ(parseKeyChord("Space"), chord(SDLK_SPACE));
  EXPECT_EQ(parseKeyChord("left"), chord(SDLK_LEFT));
  EXPECT_EQ(parseKeyChord("RIGHT"), chord(SDLK_RIGHT));
  EXPECT_EQ(parseKeyChord("up"), chord(SDLK_UP));
  EXPECT_EQ(parseKeyChord("down"), chord(SDLK_DOWN));
  EXPECT_EQ(parseKeyChord("escape"), chord(SDLK_ESCAPE));
  EXPECT_EQ(parseKeyChord("esc"), chord(SDLK_ESCAPE));
  EXPECT_EQ(parseKeyChord("plus"), chord(SDLK_PLUS));
  EXPECT_EQ(parseKeyChord("minus"), chord(SDLK_MINUS));
  EXPECT_EQ(parseKeyChord("period"), chord(SDLK_PERIOD));
  EXPECT_EQ(parseKeyChord("question"), chord(SDLK_QUESTION));
  EXPECT_EQ(parseKeyChord("kp_plus"), chord(SDLK_KP_PLUS));
  EXPECT_EQ(parseKeyChord("return"), chord(SDLK_RETURN));
  EXPECT_EQ(parseKeyChord("shift+left"), chord(SDLK_LEFT, KeyChord::kShift));
}

TEST(KeyChordParse, Characters) {
  EXPECT_EQ(parseKeyChord("+"), chord(SDLK_PLUS));
  EXPECT_EQ(parseKeyChord("-"), chord(SDLK_MINUS));
  EXPECT_EQ(parseKeyChord("."), chord(SDLK_PERIOD));
  EXPECT_EQ(parseKeyChord("?"), chord(SDLK_QUESTION));
  EXPECT_EQ(parseKeyChord("1"), chord(SDLK_1));
  EXPECT_EQ(parseKeyChord("ctrl++"), chord(SDLK_PLUS, KeyChord::kCtrl));
  EXPECT_EQ(parseKeyChord(" "), std::nullopt);  // trimmed to nothing
}

TEST(KeyChordParse, Rejects) {
  EXPECT_EQ(parseKeyChord(""), std::nullopt);
  EXPECT_EQ(parseKeyChord("shift+"), std::nullopt);
  EXPECT_EQ(parseKeyChord("hyper+k"), std::nullopt);
  EXPECT_EQ(parseKeyChord("notakey"), std::nullopt);
  EXPECT_EQ(parseKeyChord("F99"), std::nullopt);
  EXPECT_EQ(parseKeyChord("++"), std::nullopt);
}

TEST(KeyChordName, RoundTrips) {
  for (const char* text : {"k", "shift+k", "ctrl+q", "F1", "F24", "space", "left", "escape", "plus", "minus",
                           "period", "question", "ctrl+alt+shift+x", "kp_plus", "1", "ctrl+plus"}) {
    const auto parsed = parseKeyChord(text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_EQ(parseKeyChord(chordName(*parsed)), parsed) << text << " -> " << chordName(*parsed);
  }
  EXPECT_EQ(chordName(chord(SDLK_k, KeyChord::kShift)), "shift+k");
  EXPECT_EQ(chordName(chord(SDLK_F1)), "F1");
  EXPECT_EQ(chordName(chord(SDLK_PLUS)), "plus");
  EXPECT_EQ(chordName(chord(SDLK_q, KeyChord::kCtrl)), "ctrl+q");
}

// Every default binding names a key and a command; the earlier key-action names still
// parse as the commands they became.
TEST(DefaultBindings, KeysAndCommandsParse) {
  for (const KeyBinding& b : defaultKeyBindings()) {
    EXPECT_NO_THROW(commandFrom(b.command)) << b.command;
    EXPECT_STRNE(b.description, "");
    KeyMap map;
    EXPECT_NO_THROW(map.applyConfigEntry(b.keys, b.command)) << b.keys;
  }
  for (const CommandAlias& a : commandAliases()) EXPECT_EQ(commandFrom(a.name), commandFrom(a.command)) << a.name;
  EXPECT_EQ(commandFrom("Toggle-Pause"), commandFrom("pause toggle"));
  EXPECT_THROW(commandFrom("nonsense"), std::invalid_argument);
}

TEST(KeyMapDefaults, DocumentedBindings) {
  const KeyMap map = KeyMap::defaults();
  const auto at = [&](SDL_Keycode key, uint16_t mods = KMOD_NONE) { return map.lookup(key, mods); };
  EXPECT_EQ(text(at(SDLK_k)), "k -1");
  EXPECT_EQ(text(at(SDLK_k, KMOD_LSHIFT)), "k +1");
  EXPECT_EQ(text(at(SDLK_k, KMOD_RSHIFT)), "k +1");
  EXPECT_EQ(text(at(SDLK_r)), "radius -1");
  EXPECT_EQ(text(at(SDLK_r, KMOD_LSHIFT)), "radius +1");
  EXPECT_EQ(text(at(SDLK_MINUS)), "param -1");
  EXPECT_EQ(text(at(SDLK_PLUS)), "param +1");
  EXPECT_EQ(text(at(SDLK_b)), "passes cycle");
  EXPECT_EQ(text(at(SDLK_e)), "border cycle");
  EXPECT_EQ(text(at(SDLK_m)), "preset cycle");
  EXPECT_EQ(text(at(SDLK_1)), "mode kmeans");
  EXPECT_EQ(text(at(SDLK_2)), "mode blur");
  EXPECT_EQ(text(at(SDLK_3)), "mode none");
  EXPECT_EQ(text(at(SDLK_SPACE)), "pause toggle");
  EXPECT_EQ(text(at(SDLK_PERIOD)), "step");
  EXPECT_EQ(text(at(SDLK_LEFT)), "seek -5");
  EXPECT_EQ(text(at(SDLK_RIGHT)), "seek +5");
  EXPECT_EQ(text(at(SDLK_DOWN)), "seek -60");
  EXPECT_EQ(text(at(SDLK_UP)), "seek +60");
  EXPECT_EQ(text(at(SDLK_f)), "fullscreen");
  EXPECT_EQ(text(at(SDLK_s)), "screenshot");
  EXPECT_EQ(text(at(SDLK_h)), "hud");
  EXPECT_EQ(text(at(SDLK_QUESTION)), "help");
  EXPECT_EQ(text(at(SDLK_F1)), "help");
  EXPECT_EQ(text(at(SDLK_q)), "quit");
  EXPECT_EQ(text(at(SDLK_ESCAPE)), "quit");
  EXPECT_EQ(text(at(SDLK_z)), std::nullopt);
  // Every command of the default table has its keys.
  for (const KeyBinding& b : defaultKeyBindings()) EXPECT_EQ(map.describe(b.command), b.keys) << b.command;
  EXPECT_EQ(map.describe("help"), "question, F1");
  EXPECT_EQ(map.describe("k +1"), "shift+k");
}

TEST(KeyMapLookup, ShiftedCharactersAndKeypad) {
  const KeyMap map = KeyMap::defaults();
  // US layout: '+' is Shift+'=', '?' is Shift+'/'.
  EXPECT_EQ(text(map.lookup(SDLK_EQUALS, KMOD_LSHIFT)), "param +1");
  EXPECT_EQ(text(map.lookup(SDLK_SLASH, KMOD_RSHIFT)), "help");
  EXPECT_EQ(text(map.lookup(SDLK_EQUALS, KMOD_NONE)), std::nullopt);  // plain '=' is not '+'
  EXPECT_EQ(text(map.lookup(SDLK_SLASH, KMOD_NONE)), std::nullopt);
  // Layouts reporting the character itself with Shift held.
  EXPECT_EQ(text(map.lookup(SDLK_PLUS, KMOD_LSHIFT)), "param +1");
  EXPECT_EQ(text(map.lookup(SDLK_QUESTION, KMOD_LSHIFT)), "help");
  // Keypad twins.
  EXPECT_EQ(text(map.lookup(SDLK_KP_PLUS, KMOD_NONE)), "param +1");
  EXPECT_EQ(text(map.lookup(SDLK_KP_MINUS, KMOD_NONE)), "param -1");
  EXPECT_EQ(text(map.lookup(SDLK_KP_PERIOD, KMOD_NONE)), "step");
  EXPECT_EQ(text(map.lookup(SDLK_KP_2, KMOD_NUM)), "mode blur");
  // Lock keys do not matter; other modifiers do.
  EXPECT_EQ(text(map.lookup(SDLK_k, KMOD_NUM | KMOD_CAPS)), "k -1");
  EXPECT_EQ(text(map.lookup(SDLK_q, KMOD_LCTRL)), std::nullopt);
  EXPECT_EQ(text(map.lookup(SDLK_k, KMOD_LALT)), std::nullopt);
  // Shift on a letter never falls back to the plain letter.
  EXPECT_EQ(text(map.lookup(SDLK_h, KMOD_LSHIFT)), std::nullopt);
  SDL_Keysym sym{};
  sym.sym = SDLK_k;
  sym.mod = KMOD_LSHIFT;
  EXPECT_EQ(text(map.lookup(sym)), "k +1");
}

TEST(KeyMapBind, RebindMovesAndReplaces) {
  KeyMap map = KeyMap::defaults();
  map.bind("ctrl+q", "quit");
  EXPECT_EQ(text(map.lookup(SDLK_q, KMOD_LCTRL)), "quit");
  EXPECT_EQ(text(map.lookup(SDLK_q, KMOD_NONE)), "quit");

  map.bind("q", "screenshot");  // a chord bound twice: the last binding wins
  EXPECT_EQ(text(map.lookup(SDLK_q, KMOD_NONE)), "screenshot");
  EXPECT_EQ(map.describe("quit"), "escape, ctrl+q");

  map.applyConfigEntry("show_help", "F2, shift+h");  // the earlier form: action = "keys"
  EXPECT_EQ(text(map.lookup(SDLK_F1, KMOD_NONE)), std::nullopt);
  EXPECT_EQ(text(map.lookup(SDLK_QUESTION, KMOD_NONE)), std::nullopt);
  EXPECT_EQ(text(map.lookup(SDLK_F2, KMOD_NONE)), "help");
  EXPECT_EQ(text(map.lookup(SDLK_h, KMOD_LSHIFT)), "help");
  EXPECT_EQ(text(map.lookup(SDLK_h, KMOD_NONE)), "hud");

  EXPECT_THROW(map.bind("bogus+k", "quit"), std::invalid_argument);
  EXPECT_THROW(map.bind("n", "warp 9"), std::invalid_argument);
  EXPECT_THROW(map.applyConfigEntry("step", "j, nosuchkey"), std::invalid_argument);
  EXPECT_THROW(map.applyConfigEntry("nosuchkey", "quit"), std::invalid_argument);
  EXPECT_EQ(text(map.lookup(SDLK_PERIOD, KMOD_NONE)), "step");  // failed rebind changed nothing
  EXPECT_EQ(text(map.lookup(SDLK_j, KMOD_NONE)), std::nullopt);

  map.applyConfigEntry("z", "seek +30");  // input.conf style: key = command
  EXPECT_EQ(text(map.lookup(SDLK_z, KMOD_NONE)), "seek +30");
  map.applyConfigEntry("period", "");  // an empty command unbinds the key
  EXPECT_TRUE(map.chordsFor(commandFrom("step")).empty());
  map.clear();
  EXPECT_TRUE(map.bindings().empty());
}

}  // namespace
}  // namespace vp
