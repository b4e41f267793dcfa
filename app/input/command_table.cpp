#include "app/input/command_table.h"

#include "gpu/filters/registry.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <sstream>

namespace vp {
namespace {

// Help lists the filters' words after this verb, with the other chain commands.
constexpr Verb kLastChainVerb = Verb::Param;

std::array<VerbInfo, kVerbCount> makeVerbs() {
  return {{
      {Verb::Vf, "vf", ArgKind::VfArgs, 0, 0, "vf set CHAIN|add FILTER|remove N|NAME|toggle N|NAME",
       "edit the filter chain: set replaces it (none: empty), add appends, remove / toggle the N-th element or the "
       "first NAME"},
      {Verb::Set, "set", ArgKind::OptionValue, 0, 0, "set [ELEMENT.]OPTION VALUE",
       "set a filter option; ELEMENT is N, NAME or NAME#N (default: the first element that has OPTION), e.g. "
       "set 2.k 5"},
      {Verb::Add, "add", ArgKind::OptionStep, 0, 0, "add [ELEMENT.]OPTION +N|-N",
       "step a numeric filter option within its bounds"},
      {Verb::Cycle, "cycle", ArgKind::Option, 0, 0, "cycle [ELEMENT.]OPTION",
       "next choice or value of a filter option (wrapping); on / off for a switch"},
      {Verb::Auto, "auto", ArgKind::OptionSwitch, 0, 0, "auto [ELEMENT.]OPTION [on|off|toggle]",
       "an option's automatic value (kmeans k: auto), or back to the value it had before (off)"},
      {Verb::Preset, "preset", ArgKind::Name, 0, 0, "preset NAME|cycle",
       "a named chain of the config's [presets] (default: kmeans, blur, none), or the next one"},
      {Verb::Mode, "mode", ArgKind::FilterName, 0, 0, "mode " + filterNames("|") + "|none|cycle",
       "a one-filter chain (cycle: the next preset)"},
      {Verb::Param, "param", ArgKind::Step, 0, 0, "param +N|-N",
       "step the first element's main option (K of kmeans, r of blur)"},
      {Verb::Compare, "compare", ArgKind::Compare, 0, 0, "compare off|split|side|cycle",
       "compare view: the original left of a line (split) or beside the result (side)"},
      {Verb::Split, "split", ArgKind::NumberOrStep, 0, kMaxSplitPercent, "split N|+N|-N",
       "the compare line at N % of the width (also: drag it with the mouse)"},
      {Verb::Pause, "pause", ArgKind::OnOffToggle, 0, 0, "pause [on|off|toggle]",
       "pause (no argument or on), resume (off; also: resume) or toggle"},
      {Verb::Step, "step", ArgKind::None, 0, 0, "step", "pause if playing, then advance one frame"},
      {Verb::Seek, "seek", ArgKind::Seconds, 0, 0, "seek S|+S|-S", "seek to S seconds, or by +-S"},
      {Verb::Screenshot, "screenshot", ArgKind::Rest, 0, 0, "screenshot [FILE]",
       "save the processed frame as PNG (headless: the next frame)"},
      {Verb::Volume, "volume", ArgKind::NumberOrStep, 0, kMaxVolume, "volume N|+N|-N",
       "sound volume in percent, 0..100 (window playback)"},
      {Verb::Mute, "mute", ArgKind::OnOffToggle, 0, 0, "mute [on|off|toggle]", "silence the sound, or bring it back"},
      {Verb::AudioDelay, "audio-delay", ArgKind::Seconds, 0, 0, "audio-delay S|+S|-S",
       "play the sound S seconds later than the video (set, or change by +-S)"},
      {Verb::Fullscreen, "fullscreen", ArgKind::None, 0, 0, "fullscreen",
       "window: toggle fullscreen (or double-click the video)"},
      {Verb::Hud, "hud", ArgKind::None, 0, 0, "hud", "window: show / hide the HUD"},
      {Verb::Help, "help", ArgKind::None, 0, 0, "help", "window: show / hide the key help"},
      {Verb::Quit, "quit", ArgKind::None, 0, 0, "quit", "stop; an output file is finalised"},
  }};
}

const std::array<VerbInfo, kVerbCount>& verbs() {
  static const std::array<VerbInfo, kVerbCount> kVerbs = [] {
    std::array<VerbInfo, kVerbCount> v = makeVerbs();
    for (int i = 0; i < kVerbCount; ++i)
      if (v[size_t(i)].verb != static_cast<Verb>(i)) throw std::logic_error("kVerbs must list every Verb in enum order");
    return v;
  }();
  return kVerbs;
}

// The program's default keys; each filter's come between these two lists.
constexpr KeyBinding kFirstKeys[] = {
    {"minus", "param -1", "first filter's main option -1"},
    {"plus", "param +1", "first filter's main option +1"},
};
constexpr KeyBinding kLastKeys[] = {
    {"3", "mode none", "chain: none (passthrough)"},
    {"7", "vf set kmeans=k=6,edges=overlay=1", "chain: cartoon (kmeans, edges overlay)"},
    {"m", "preset cycle", "next preset chain (default: kmeans, blur, none)"},
    {"c", "compare cycle", "compare view: off, split, side"},
    {"leftbracket", "split -5", "compare line 5 % left"},
    {"rightbracket", "split +5", "compare line 5 % right"},
    {"space", "pause toggle", "pause / resume"},
    {"period", "step", "one frame (pauses)"},
    {"left", "seek -5", "seek -5 s"},
    {"right", "seek +5", "seek +5 s"},
    {"down", "seek -60", "seek -60 s"},
    {"up", "seek +60", "seek +60 s"},
    {"f", "fullscreen", "fullscreen (or double-click)"},
    {"s", "screenshot", "save the processed frame as PNG"},
    {"9", "volume -5", "volume -5 %"},
    {"0", "volume +5", "volume +5 %"},
    {"u", "mute toggle", "mute / unmute the sound (m is the mode key)"},
    {"h", "hud", "show / hide the HUD"},
    {"question, F1", "help", "show / hide this help"},
    {"q, escape", "quit", "quit"},
};

std::vector<KeyBinding> makeDefaultKeys() {
  std::vector<KeyBinding> out(std::begin(kFirstKeys), std::end(kFirstKeys));
  for (const FilterInfo* f : filterRegistry()) out.insert(out.end(), f->keys, f->keys + f->keyCount);
  out.insert(out.end(), std::begin(kLastKeys), std::end(kLastKeys));
  return out;
}

// "k|clusters" -> {"k", "clusters"}.
std::vector<std::string> namesOf(std::string_view names) {
  std::vector<std::string> out;
  while (!names.empty()) {
    const size_t bar = names.find('|');
    out.emplace_back(names.substr(0, bar));
    if (bar == std::string_view::npos) break;
    names.remove_prefix(bar + 1);
  }
  return out;
}

// What follows a word on `option`, for help.
std::string shorthandArgs(const OptionInfo& o, bool autoSwitch) {
  if (autoSwitch || o.type == OptionType::Bool) return "[on|off|toggle]";
  if (o.type == OptionType::Choice) return std::string(o.choices) + "|cycle";
  std::string out = "N|+N|-N";
  if (o.type == OptionType::Int) out += "|cycle";
  if (o.zeroName) out += std::string("|") + o.zeroName;
  return out;
}

std::vector<Shorthand> makeShorthands() {
  std::vector<Shorthand> out;
  std::vector<std::vector<std::string>> owners;  // per word: the filters that declare it
  for (const FilterInfo* f : filterRegistry()) {
    for (int i = 0; i < f->commandCount; ++i) {
      const OptionCommand& c = f->commands[i];
      const int option = f->optionIndex(c.option);
      if (option < 0)
        throw std::logic_error(std::string(f->name) + "'s command " + c.name + " names no option of it: " + c.option);
      std::vector<std::string> names = namesOf(c.name);
      const auto same = std::find_if(out.begin(), out.end(), [&](const Shorthand& s) { return s.names[0] == names[0]; });
      if (same != out.end()) {  // a second filter's word for the same option: the first element that has it
        if (std::string_view(same->option->name) != c.option)
          throw std::logic_error(std::string("command ") + names[0] + " names different options in different filters");
        same->target.clear();
        owners[size_t(same - out.begin())].push_back(f->name);
        continue;
      }
      const OptionInfo& o = f->option(option);
      out.push_back({names, f->name, &o, c.autoSwitch, names[0] + " " + shorthandArgs(o, c.autoSwitch), c.help});
      owners.push_back({f->name});
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    Shorthand& s = out[i];
    std::string whose;
    for (size_t j = 0; j < owners[i].size(); ++j)
      whose += (j == 0 ? "" : j + 1 == owners[i].size() ? " or " : ", ") + owners[i][j] + "'s";
    std::string bounds;
    const OptionInfo& o = *s.option;
    if (!s.autoSwitch && (o.type == OptionType::Int || o.type == OptionType::Float)) {
      bounds = "; " + optionRange(o);
      if (o.stepLo > o.lo) bounds += ", steps stay at or above " + formatOptionValue(o, o.stepLo);
    }
    s.description = "the first " + whose + " " + s.description + bounds;
  }
  return out;
}

// The key-action names of earlier versions, still accepted as commands (and as the
// left side of a config [keys] entry).
const std::vector<CommandAlias> kAliases = {
    {"k_dec", "k -1"},          {"k_inc", "k +1"},
    {"radius_dec", "radius -1"}, {"radius_inc", "radius +1"},
    {"param_dec", "param -1"},  {"param_inc", "param +1"},
    {"cycle_passes", "passes cycle"}, {"cycle_border", "border cycle"},
    {"cycle_mode", "preset cycle"}, {"mode_kmeans", "mode kmeans"},
    {"mode_blur", "mode blur"},  {"mode_none", "mode none"},
    {"toggle_pause", "pause toggle"}, {"resume", "pause off"},
    {"seek_back_5", "seek -5"},  {"seek_fwd_5", "seek +5"},
    {"seek_back_60", "seek -60"}, {"seek_fwd_60", "seek +60"},
    {"toggle_fullscreen", "fullscreen"}, {"toggle_hud", "hud"},
    {"show_help", "help"},
};

// Words of `text` wrapped at `width` columns.
std::string wrap(const std::string& text, size_t width) {
  std::istringstream in(text);
  std::string out, line, word;
  while (in >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

std::string keyList(const char* keys) {  // "q, escape" -> "q/escape"
  std::string out;
  for (const char* c = keys; *c; ++c) {
    if (*c == ',') out += '/';
    else if (*c != ' ') out += *c;
  }
  return out;
}

}  // namespace

const std::array<VerbInfo, kVerbCount>& verbTable() { return verbs(); }

const VerbInfo& verbInfo(Verb verb) { return verbTable()[static_cast<size_t>(verb)]; }

const std::vector<Shorthand>& shorthandTable() {
  static const std::vector<Shorthand> kShorthands = makeShorthands();
  return kShorthands;
}

const Shorthand* findShorthand(std::string_view name) {
  for (const Shorthand& s : shorthandTable())
    if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) return &s;
  return nullptr;
}

const std::vector<KeyBinding>& defaultKeyBindings() {
  static const std::vector<KeyBinding> kDefaultKeys = makeDefaultKeys();
  return kDefaultKeys;
}
const std::vector<CommandAlias>& commandAliases() { return kAliases; }

std::string describeCommand(const Command& command) {
  for (const KeyBinding& b : defaultKeyBindings())
    if (commandFrom(b.command) == command) return b.description;
  return verbInfo(command.verb).description;
}

std::string commandsHelpText() {
  const std::vector<KeyBinding>& bindings = defaultKeyBindings();
  std::string keys = "Keys (window):";
  for (size_t i = 0; i < bindings.size(); ++i)
    keys += std::string(" ") + keyList(bindings[i].keys) + " '" + bindings[i].command + "'" +
            (i + 1 < bindings.size() ? "," : ".");
  std::string commands =
      "Commands (keys are bound to them in the config's [keys]; --control FILE reads one per line, "
      "applied between frames):";
  for (const VerbInfo& v : verbs()) {
    commands += std::string(" ") + v.syntax + ";";
    if (v.verb == kLastChainVerb)
      for (const Shorthand& sh : shorthandTable()) commands += " " + sh.syntax + ";";
  }
  commands += " the older key-action names (k_inc, cycle_mode, ...) work too. A bad line logs a warning and is "
              "ignored. A FIFO may be reopened by new writers; a regular file is followed like tail -f; the end "
              "of stdin ends the channel only.";
  return wrap(keys, 96) + "\n" + wrap(commands, 96);
}

std::string commandsMarkdown() {
  std::string out = "| key | command | what it does |\n|---|---|---|\n";
  for (const KeyBinding& b : defaultKeyBindings())
    out += std::string("| `") + keyList(b.keys) + "` | `" + b.command + "` | " + b.description + " |\n";
  out += "\n| command | what it does |\n|---|---|\n";
  const auto row = [&out](const std::string& syntax, const std::string& description) {
    std::string escaped;
    for (char c : syntax) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    std::string said;
    for (char c : description) said += c == '|' ? std::string("\\|") : std::string(1, c);
    out += "| `" + escaped + "` | " + said + " |\n";
  };
  for (const VerbInfo& v : verbs()) {
    row(v.syntax, v.description);
    if (v.verb == kLastChainVerb)
      for (const Shorthand& sh : shorthandTable()) row(sh.syntax, sh.description);
  }
  return out;
}

std::string defaultKeysToml() {
  std::string out;
  for (const KeyBinding& b : defaultKeyBindings()) {
    std::string keys = b.keys;
    size_t start = 0;
    while (start < keys.size()) {
      size_t end = keys.find(',', start);
      if (end == std::string::npos) end = keys.size();
      std::string key = keys.substr(start, end - start);
      key.erase(0, key.find_first_not_of(' '));
      key.erase(key.find_last_not_of(' ') + 1);
      std::string line = "\"" + key + "\" = \"" + b.command + "\"";
      line.resize(std::max<size_t>(line.size() + 1, 28), ' ');
      out += line + "# " + b.description + "\n";
      start = end + 1;
    }
  }
  return out;
}

}  // namespace vp
