// KeyMap: parsing key names and actions, default bindings, event lookup with the keypad and
// Shift-character fallbacks. No display needed.
#include <gtest/gtest.h>

#include <stdexcept>

#include "app/keymap.h"

namespace vp {
namespace {

KeyChord chord(SDL_Keycode key, uint8_t mods = 0) { return KeyChord{key, mods}; }

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

TEST(ActionNames, RoundTripEveryAction) {
  for (int i = 0; i < kActionCount; ++i) {
    const auto action = static_cast<Action>(i);
    EXPECT_EQ(parseAction(actionName(action)), action) << actionName(action);
    EXPECT_STRNE(actionDescription(action), "");
  }
  EXPECT_STREQ(actionName(Action::KDec), "k_dec");
  EXPECT_STREQ(actionName(Action::KInc), "k_inc");
  EXPECT_STREQ(actionName(Action::SeekBack60), "seek_back_60");
  EXPECT_STREQ(actionName(Action::Quit), "quit");
  EXPECT_EQ(parseAction("Toggle-Pause"), Action::TogglePause);
  EXPECT_EQ(parseAction("nonsense"), std::nullopt);
}

TEST(KeyMapDefaults, DocumentedBindings) {
  const KeyMap map = KeyMap::defaults();
  const auto at = [&](SDL_Keycode key, uint16_t mods = KMOD_NONE) { return map.lookup(key, mods); };
  EXPECT_EQ(at(SDLK_k), Action::KDec);
  EXPECT_EQ(at(SDLK_k, KMOD_LSHIFT), Action::KInc);
  EXPECT_EQ(at(SDLK_k, KMOD_RSHIFT), Action::KInc);
  EXPECT_EQ(at(SDLK_r), Action::RadiusDec);
  EXPECT_EQ(at(SDLK_r, KMOD_LSHIFT), Action::RadiusInc);
  EXPECT_EQ(at(SDLK_MINUS), Action::ParamDec);
  EXPECT_EQ(at(SDLK_PLUS), Action::ParamInc);
  EXPECT_EQ(at(SDLK_b), Action::CyclePasses);
  EXPECT_EQ(at(SDLK_e), Action::CycleBorder);
  EXPECT_EQ(at(SDLK_m), Action::CycleMode);
  EXPECT_EQ(at(SDLK_1), Action::ModeKmeans);
  EXPECT_EQ(at(SDLK_2), Action::ModeBlur);
  EXPECT_EQ(at(SDLK_3), Action::ModeNone);
  EXPECT_EQ(at(SDLK_SPACE), Action::TogglePause);
  EXPECT_EQ(at(SDLK_PERIOD), Action::Step);
  EXPECT_EQ(at(SDLK_LEFT), Action::SeekBack5);
  EXPECT_EQ(at(SDLK_RIGHT), Action::SeekFwd5);
  EXPECT_EQ(at(SDLK_DOWN), Action::SeekBack60);
  EXPECT_EQ(at(SDLK_UP), Action::SeekFwd60);
  EXPECT_EQ(at(SDLK_f), Action::ToggleFullscreen);
  EXPECT_EQ(at(SDLK_s), Action::Screenshot);
  EXPECT_EQ(at(SDLK_h), Action::ToggleHud);
  EXPECT_EQ(at(SDLK_QUESTION), Action::ShowHelp);
  EXPECT_EQ(at(SDLK_F1), Action::ShowHelp);
  EXPECT_EQ(at(SDLK_q), Action::Quit);
  EXPECT_EQ(at(SDLK_ESCAPE), Action::Quit);
  EXPECT_EQ(at(SDLK_x), std::nullopt);
  // Every action has a key by default.
  for (int i = 0; i < kActionCount; ++i) {
    EXPECT_FALSE(map.chordsFor(static_cast<Action>(i)).empty()) << actionName(static_cast<Action>(i));
  }
  EXPECT_EQ(map.describe(Action::ShowHelp), "question, F1");
  EXPECT_EQ(map.describe(Action::KInc), "shift+k");
}

TEST(KeyMapLookup, ShiftedCharactersAndKeypad) {
  const KeyMap map = KeyMap::defaults();
  // US layout: '+' is Shift+'=', '?' is Shift+'/'.
  EXPECT_EQ(map.lookup(SDLK_EQUALS, KMOD_LSHIFT), Action::ParamInc);
  EXPECT_EQ(map.lookup(SDLK_SLASH, KMOD_RSHIFT), Action::ShowHelp);
  EXPECT_EQ(map.lookup(SDLK_EQUALS, KMOD_NONE), std::nullopt);  // plain '=' is not '+'
  EXPECT_EQ(map.lookup(SDLK_SLASH, KMOD_NONE), std::nullopt);
  // Layouts reporting the character itself with Shift held.
  EXPECT_EQ(map.lookup(SDLK_PLUS, KMOD_LSHIFT), Action::ParamInc);
  EXPECT_EQ(map.lookup(SDLK_QUESTION, KMOD_LSHIFT), Action::ShowHelp);
  // Keypad twins.
  EXPECT_EQ(map.lookup(SDLK_KP_PLUS, KMOD_NONE), Action::ParamInc);
  EXPECT_EQ(map.lookup(SDLK_KP_MINUS, KMOD_NONE), Action::ParamDec);
  EXPECT_EQ(map.lookup(SDLK_KP_PERIOD, KMOD_NONE), Action::Step);
  EXPECT_EQ(map.lookup(SDLK_KP_2, KMOD_NUM), Action::ModeBlur);
  // Lock keys do not matter; other modifiers do.
  EXPECT_EQ(map.lookup(SDLK_k, KMOD_NUM | KMOD_CAPS), Action::KDec);
  EXPECT_EQ(map.lookup(SDLK_q, KMOD_LCTRL), std::nullopt);
  EXPECT_EQ(map.lookup(SDLK_k, KMOD_LALT), std::nullopt);
  // Shift on a letter never falls back to the plain letter.
  EXPECT_EQ(map.lookup(SDLK_h, KMOD_LSHIFT), std::nullopt);
  SDL_Keysym sym{};
  sym.sym = SDLK_k;
  sym.mod = KMOD_LSHIFT;
  EXPECT_EQ(map.lookup(sym), Action::KInc);
}

TEST(KeyMapBind, RebindMovesAndReplaces) {
  KeyMap map = KeyMap::defaults();
  map.bind("ctrl+q", Action::Quit);
  EXPECT_EQ(map.lookup(SDLK_q, KMOD_LCTRL), Action::Quit);
  EXPECT_EQ(map.lookup(SDLK_q, KMOD_NONE), Action::Quit);

  map.bind("q", Action::Screenshot);  // a chord bound twice: the last binding wins
  EXPECT_EQ(map.lookup(SDLK_q, KMOD_NONE), Action::Screenshot);
  EXPECT_EQ(map.describe(Action::Quit), "escape, ctrl+q");

  map.rebind(Action::ShowHelp, {"F2", "shift+h"});
  EXPECT_EQ(map.lookup(SDLK_F1, KMOD_NONE), std::nullopt);
  EXPECT_EQ(map.lookup(SDLK_QUESTION, KMOD_NONE), std::nullopt);
  EXPECT_EQ(map.lookup(SDLK_F2, KMOD_NONE), Action::ShowHelp);
  EXPECT_EQ(map.lookup(SDLK_h, KMOD_LSHIFT), Action::ShowHelp);
  EXPECT_EQ(map.lookup(SDLK_h, KMOD_NONE), Action::ToggleHud);

  EXPECT_THROW(map.bind("bogus+k", Action::Quit), std::invalid_argument);
  EXPECT_THROW(map.rebind(Action::Step, {"n", "nosuchkey"}), std::invalid_argument);
  EXPECT_EQ(map.lookup(SDLK_PERIOD, KMOD_NONE), Action::Step);  // failed rebind changed nothing
  EXPECT_EQ(map.lookup(SDLK_n, KMOD_NONE), std::nullopt);

  map.unbind(Action::Step);
  EXPECT_TRUE(map.chordsFor(Action::Step).empty());
  map.clear();
  EXPECT_TRUE(map.bindings().empty());
}

}  // namespace
}  // namespace vp
