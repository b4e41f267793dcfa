#include "app/input/command_table.h"

#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/edges/edges_filter.h"
#include "gpu/filters/gauss/gauss_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/median/median_filter.h"
#include "gpu/filters/slic/slic_filter.h"
#include "gpu/filters/registry.h"

#include <algorithm>
#include <stdexcept>
#include <sstream>

namespace vp {
namespace {

// Bounds come from the filters' option tables: the one place each is spelled.
std::string bounds(const OptionInfo& o) { return optionRange(o); }

std::string choices(const OptionInfo& o) {
  std::string out = o.choices;
  return out + "|cycle";
}

std::array<VerbInfo, kVerbCount> makeVerbs() {
  const OptionInfo& k = kKmeansFilter.option(kmeans_option::K);
  const OptionInfo& iterations = kKmeansFilter.option(kmeans_option::Iterations);
  const OptionInfo& r = kBlurFilter.option(blur_option::Radius);
  const OptionInfo& passes = kBlurFilter.option(blur_option::Passes);
  const OptionInfo& border = kBlurFilter.option(blur_option::Border);
  const OptionInfo& medianR = kMedianFilter.option(median_option::Radius);
  const OptionInfo& sigma = kGaussFilter.option(gauss_option::Sigma);
  const OptionInfo& threshold = kEdgesFilter.option(edges_option::Threshold);
  const OptionInfo& view = kKmeansFilter.option(kmeans_option::View);
  const OptionInfo& spatial = kKmeansFilter.option(kmeans_option::Spatial);
  const OptionInfo& superpixels = kSlicFilter.option(slic_option::Superpixels);
  return {{
      {Verb::Vf, "vf", ArgKind::VfArgs, 0, 0, "vf set CHAIN|add FILTER|remove N|NAME|toggle N|NAME",
       "edit the filter chain: set replaces it (none: empty), add appends, remove / toggle the N-th element or the "
       "first NAME",
       nullptr},
      {Verb::Set, "set", ArgKind::OptionValue, 0, 0, "set [ELEMENT.]OPTION VALUE",
       "set a filter option; ELEMENT is N, NAME or NAME#N (default: the first element that has OPTION), e.g. "
       "set 2.k 5",
       nullptr},
      {Verb::Add, "add", ArgKind::OptionStep, 0, 0, "add [ELEMENT.]OPTION +N|-N",
       "step a numeric filter option within its bounds", nullptr},
      {Verb::Cycle, "cycle", ArgKind::Option, 0, 0, "cycle [ELEMENT.]OPTION",
       "next choice or value of a filter option (wrapping); on / off for a switch", nullptr},
      {Verb::Preset, "preset", ArgKind::Name, 0, 0, "preset NAME|cycle",
       "a named chain of the config's [presets] (default: kmeans, blur, none), or the next one", nullptr},
      {Verb::Mode, "mode", ArgKind::FilterName, 0, 0, "mode " + filterNames("|") + "|none|cycle",
       "a one-filter chain (cycle: the next preset)", nullptr},
      {Verb::K, "k", ArgKind::OptionNumber, 0, 0, "k N|+N|-N|auto",
       "the first kmeans's clusters: set " + formatOptionValue(k, k.lo) + ".." + formatOptionValue(k, k.hi) +
           ", or step within " + formatOptionValue(k, k.stepLo) + ".." + formatOptionValue(k, k.hi) +
           "; auto: chosen by the silhouette score",
       "kmeans.k"},
      {Verb::Radius, "radius", ArgKind::NumberOrStep, int(r.lo), int(r.hi), "radius N|+N|-N",
       "the first blur's radius in pixels, " + bounds(r), "blur.r"},
      {Verb::Param, "param", ArgKind::Step, 0, 0, "param +N|-N",
       "step the first element's main option (K of kmeans, r of blur)", nullptr},
      {Verb::Passes, "passes", ArgKind::NumberOrCycle, int(passes.lo), int(passes.hi), "passes N|cycle",
       "the first blur's passes, " + bounds(passes), "blur.passes"},
      {Verb::Border, "border", ArgKind::Choice, 0, 0, std::string("border ") + choices(border),
       "the first blur's border mode", "blur.border"},
      {Verb::Iterations, "iterations", ArgKind::Number, int(iterations.lo), int(iterations.hi), "iterations N",
       "the first kmeans's maximum iterations per frame, " + bounds(iterations), "kmeans.iterations"},
      {Verb::MedianR, "median-r", ArgKind::NumberOrStep, int(medianR.lo), int(medianR.hi), "median-r N|+N|-N",
       "the first median's radius, " + bounds(medianR), "median.r"},
      {Verb::Sigma, "sigma", ArgKind::OptionNumber, 0, 0, "sigma N|+N|-N",
       "the first gauss's sigma in pixels, " + bounds(sigma) + " (decimals allowed; steps stop at " +
           formatOptionValue(sigma, sigma.stepLo) + ")",
       "gauss.sigma"},
      {Verb::EdgesT, "edges-t", ArgKind::OptionNumber, 0, 0, "edges-t N|+N|-N",
       "the first edges's threshold, " + bounds(threshold) + " (overlay: edges at or above it turn black)",
       "edges.t"},
      {Verb::EdgesOverlay, "edges-overlay", ArgKind::OnOffToggle, 0, 0, "edges-overlay [on|off|toggle]",
       "the first edges's overlay: edges black over the frame (on) or the magnitude as grey (off)",
       "edges.overlay"},
      {Verb::Superpixels, "superpixels", ArgKind::NumberOrStep, int(superpixels.lo), int(superpixels.hi),
       "superpixels N|+N|-N", "the first slic's superpixel count, " + bounds(superpixels), "slic.n"},
      {Verb::View, "view", ArgKind::Choice, 0, 0, std::string("view ") + choices(view),
       "the view of the first kmeans or slic (whichever comes first): its segments' colours, a fixed colour per "
       "label, or segment borders over the frame",
       "view"},
      {Verb::Spatial, "spatial", ArgKind::OptionNumber, 0, 0, "spatial N|+N|-N",
       "the first kmeans's spatial weight, " + bounds(spatial) +
           ": position against colour (RGBXY K-means; at 1 crossing the frame costs the whole colour range, 0: "
           "colour only)",
       "kmeans.spatial"},
      {Verb::KAuto, "k-auto", ArgKind::OnOffToggle, 0, 0, "k-auto [on|off|toggle]",
       "the first kmeans's automatic K: chosen in kmin..kmax by the silhouette score (on), or back to the fixed K "
       "it had (off)",
       "kmeans.k"},
      {Verb::Compare, "compare", ArgKind::Compare, 0, 0, "compare off|split|side|cycle",
       "compare view: the original left of a line (split) or beside the result (side)", nullptr},
      {Verb::Split, "split", ArgKind::NumberOrStep, 0, kMaxSplitPercent, "split N|+N|-N",
       "the compare line at N % of the width (also: drag it with the mouse)", nullptr},
      {Verb::Pause, "pause", ArgKind::OnOffToggle, 0, 0, "pause [on|off|toggle]",
       "pause (no argument or on), resume (off; also: resume) or toggle", nullptr},
      {Verb::Step, "step", ArgKind::None, 0, 0, "step", "pause if playing, then advance one frame", nullptr},
      {Verb::Seek, "seek", ArgKind::Seconds, 0, 0, "seek S|+S|-S", "seek to S seconds, or by +-S", nullptr},
      {Verb::Screenshot, "screenshot", ArgKind::Rest, 0, 0, "screenshot [FILE]",
       "save the processed frame as PNG (headless: the next frame)", nullptr},
      {Verb::Volume, "volume", ArgKind::NumberOrStep, 0, kMaxVolume, "volume N|+N|-N",
       "sound volume in percent, 0..100 (window playback)", nullptr},
      {Verb::Mute, "mute", ArgKind::OnOffToggle, 0, 0, "mute [on|off|toggle]", "silence the sound, or bring it back",
       nullptr},
      {Verb::AudioDelay, "audio-delay", ArgKind::Seconds, 0, 0, "audio-delay S|+S|-S",
       "play the sound S seconds later than the video (set, or change by +-S)", nullptr},
      {Verb::Fullscreen, "fullscreen", ArgKind::None, 0, 0, "fullscreen",
       "window: toggle fullscreen (or double-click the video)", nullptr},
      {Verb::Hud, "hud", ArgKind::None, 0, 0, "hud", "window: show / hide the HUD", nullptr},
      {Verb::Help, "help", ArgKind::None, 0, 0, "help", "window: show / hide the key help", nullptr},
      {Verb::Quit, "quit", ArgKind::None, 0, 0, "quit", "stop; an output file is finalised", nullptr},
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

const std::vector<KeyBinding> kDefaultKeys = {
    {"k", "k -1", "K-means clusters -1"},
    {"shift+k", "k +1", "K-means clusters +1"},
    {"r", "radius -1", "blur radius -1"},
    {"shift+r", "radius +1", "blur radius +1"},
    {"minus", "param -1", "first filter's main option -1"},
    {"plus", "param +1", "first filter's main option +1"},
    {"b", "passes cycle", "blur passes 1..3"},
    {"e", "border cycle", "blur border mode"},
    {"d", "median-r -1", "median radius -1"},
    {"shift+d", "median-r +1", "median radius +1"},
    {"g", "sigma -0.5", "Gaussian sigma -0.5"},
    {"shift+g", "sigma +0.5", "Gaussian sigma +0.5"},
    {"t", "edges-t -10", "edge threshold -10"},
    {"shift+t", "edges-t +10", "edge threshold +10"},
    {"o", "edges-overlay toggle", "edges: black over the frame / magnitude"},
    {"n", "superpixels -100", "SLIC superpixels -100"},
    {"shift+n", "superpixels +100", "SLIC superpixels +100"},
    {"v", "view cycle", "K-means / SLIC view: colours, labels, boundaries"},
    {"a", "k-auto toggle", "K-means: automatic K (silhouette) / the fixed K"},
    {"x", "spatial -0.25", "K-means spatial weight -0.25"},
    {"shift+x", "spatial +0.25", "K-means spatial weight +0.25 (segments follow position too)"},
    {"m", "preset cycle", "next preset chain (default: kmeans, blur, none)"},
    {"1", "mode kmeans", "chain: K-means"},
    {"2", "mode blur", "chain: box blur"},
    {"3", "mode none", "chain: none (passthrough)"},
    {"4", "mode median", "chain: median"},
    {"5", "mode gauss", "chain: Gaussian blur"},
    {"6", "mode edges", "chain: Sobel edges"},
    {"7", "vf set kmeans=k=6,edges=overlay=1", "chain: cartoon (kmeans, edges overlay)"},
    {"8", "mode slic", "chain: SLIC superpixels"},
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
  for (const VerbInfo& v : verbs()) commands += std::string(" ") + v.syntax + ";";
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
  for (const VerbInfo& v : verbs()) {
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
