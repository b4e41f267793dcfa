#include "app/input/command_table.h"

#include <algorithm>
#include <sstream>

namespace vp {
namespace {

constexpr std::array<VerbInfo, kVerbCount> kVerbs = {{
    {Verb::Mode, "mode", ArgKind::Mode, 0, 0, "mode kmeans|blur|none|cycle", "processing mode"},
    {Verb::K, "k", ArgKind::NumberOrStep, kMinClusters, kMaxClusters, "k N|+N|-N",
     "K-means clusters: set 1..32, or step within 2..32"},
    {Verb::Radius, "radius", ArgKind::NumberOrStep, 0, kMaxRadius, "radius N|+N|-N",
     "box blur radius in pixels, 0..100"},
    {Verb::Param, "param", ArgKind::Step, 0, 0, "param +N|-N", "step the current mode's parameter (K or radius)"},
    {Verb::Passes, "passes", ArgKind::NumberOrCycle, kMinPasses, kMaxPasses, "passes N|cycle",
     "box blur passes, 1..3"},
    {Verb::Border, "border", ArgKind::Border, 0, 0, "border zero|replicate|reflect|wrap|cycle",
     "box blur border mode"},
    {Verb::Iterations, "iterations", ArgKind::Number, 0, kMaxIterations, "iterations N",
     "K-means maximum iterations per frame, 0..1000"},
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

constexpr bool verbsInEnumOrder() {
  for (int i = 0; i < kVerbCount; ++i)
    if (kVerbs[size_t(i)].verb != static_cast<Verb>(i)) return false;
  return true;
}
static_assert(verbsInEnumOrder(), "kVerbs must list every Verb in enum order");

const std::vector<KeyBinding> kDefaultKeys = {
    {"k", "k -1", "K-means clusters -1"},
    {"shift+k", "k +1", "K-means clusters +1"},
    {"r", "radius -1", "blur radius -1"},
    {"shift+r", "radius +1", "blur radius +1"},
    {"minus", "param -1", "current mode's parameter -1"},
    {"plus", "param +1", "current mode's parameter +1"},
    {"b", "passes cycle", "blur passes 1..3"},
    {"e", "border cycle", "blur border mode"},
    {"m", "mode cycle", "next mode"},
    {"1", "mode kmeans", "mode: K-means"},
    {"2", "mode blur", "mode: box blur"},
    {"3", "mode none", "mode: passthrough"},
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

// The key-action names of earlier versions, still accepted as commands (and as the
// left side of a config [keys] entry).
const std::vector<CommandAlias> kAliases = {
    {"k_dec", "k -1"},          {"k_inc", "k +1"},
    {"radius_dec", "radius -1"}, {"radius_inc", "radius +1"},
    {"param_dec", "param -1"},  {"param_inc", "param +1"},
    {"cycle_passes", "passes cycle"}, {"cycle_border", "border cycle"},
    {"cycle_mode", "mode cycle"}, {"mode_kmeans", "mode kmeans"},
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

const std::array<VerbInfo, kVerbCount>& verbTable() { return kVerbs; }

const VerbInfo& verbInfo(Verb verb) { return verbTable()[static_cast<size_t>(verb)]; }
const std::vector<KeyBinding>& defaultKeyBindings() { return kDefaultKeys; }
const std::vector<CommandAlias>& commandAliases() { return kAliases; }

std::string describeCommand(const Command& command) {
  for (const KeyBinding& b : kDefaultKeys)
    if (commandFrom(b.command) == command) return b.description;
  return verbInfo(command.verb).description;
}

std::string commandsHelpText() {
  std::string keys = "Keys (window):";
  for (size_t i = 0; i < kDefaultKeys.size(); ++i)
    keys += std::string(" ") + keyList(kDefaultKeys[i].keys) + " '" + kDefaultKeys[i].command + "'" +
            (i + 1 < kDefaultKeys.size() ? "," : ".");
  std::string commands =
      "Commands (keys are bound to them in the config's [keys]; --control FILE reads one per line, "
      "applied between frames):";
  for (const VerbInfo& v : kVerbs) commands += std::string(" ") + v.syntax + ";";
  commands += " the older key-action names (k_inc, cycle_mode, ...) work too. A bad line logs a warning and is "
              "ignored. A FIFO may be reopened by new writers; a regular file is followed like tail -f; the end "
              "of stdin ends the channel only.";
  return wrap(keys, 96) + "\n" + wrap(commands, 96);
}

std::string commandsMarkdown() {
  std::string out = "| key | command | what it does |\n|---|---|---|\n";
  for (const KeyBinding& b : kDefaultKeys)
    out += std::string("| `") + keyList(b.keys) + "` | `" + b.command + "` | " + b.description + " |\n";
  out += "\n| command | what it does |\n|---|---|\n";
  for (const VerbInfo& v : kVerbs) {
    std::string syntax = v.syntax;
    std::string escaped;
    for (char c : syntax) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    out += "| `" + escaped + "` | " + v.description + " |\n";
  }
  return out;
}

std::string defaultKeysToml() {
  std::string out;
  for (const KeyBinding& b : kDefaultKeys) {
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
