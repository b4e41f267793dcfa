#include "app/input/commands.h"

#include "app/input/command_table.h"
#include "app/input/text.h"
#include "gpu/filters/registry.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>
#include <stdexcept>
#include <utility>
#include <vector>

namespace vp {
namespace {

using text::isBlank;
using text::lower;
using text::trim;

// Blank-separated words; `rest` keeps the text after the first word (screenshot paths may hold blanks).
std::vector<std::string_view> words(std::string_view line, std::string_view& rest) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    if (i == line.size()) break;
    size_t j = i;
    while (j < line.size() && !isBlank(line[j])) ++j;
    out.push_back(line.substr(i, j - i));
    if (out.size() == 1) rest = trim(line.substr(j));
    i = j;
  }
  return out;
}

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why); }

void noArgs(const std::vector<std::string_view>& w) {
  if (w.size() != 1) bad(std::string(w[0]) + " takes no argument");
}

int parseInt(std::string_view s, bool& ok) {
  int v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  ok = !s.empty() && ec == std::errc() && ptr == end;
  return v;
}

// "N" sets within lo..hi; "+N" / "-N" step (bounds applied later).
void numberArg(const std::vector<std::string_view>& w, const char* name, int lo, int hi, Command& c) {
  const std::string range = std::string(name) + " must be " + std::to_string(lo) + ".." + std::to_string(hi);
  if (w.size() != 2) bad(std::string(name) + " takes one number (" + range + ", +N or -N)");
  std::string_view s = w[1];
  const bool step = s.front() == '+' || s.front() == '-';
  int sign = 1;
  if (step) {
    sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  bool ok = false;
  const int v = parseInt(s, ok);
  if (!ok || v < 0) bad(step ? std::string(name) + " step must be +N or -N" : range);
  if (step) {
    c.change = Change::Add, c.value = sign * v;
    return;
  }
  if (v < lo || v > hi) bad(range);
  c.change = Change::Set, c.value = v;
}

// "12.5" (absolute) or "+5" / "-5" (relative), in seconds.
void secondsArg(const std::vector<std::string_view>& w, const std::string& name, Command& c) {
  if (w.size() != 2) bad(name + " takes one time in seconds: S, +S or -S");
  std::string_view s = w[1];
  c.change = Change::Set;
  double sign = 1;
  if (s.front() == '+' || s.front() == '-') {
    c.change = Change::Add;
    sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  double seconds = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, seconds);
  if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(seconds) || seconds < 0 || seconds > 1e9)
    bad(name + " time must be seconds: S, +S or -S");
  c.seekUs = static_cast<int64_t>(std::llround(sign * seconds * 1e6));
}

// A word naming a value of E (`parse` reads it), or "cycle".
template <typename E, typename Parse>
void choiceArg(const std::vector<std::string_view>& w, const std::string& why, const Parse& parse, Command& c) {
  if (w.size() != 2) bad(why);
  const std::string v = lower(w[1]);
  if (v == "cycle") {
    c.change = Change::Cycle;
    return;
  }
  E value{};
  if (!parse(v, value)) bad(why);
  c.change = Change::Set, c.value = int(value);
}

void onOffToggleArg(const std::vector<std::string_view>& w, const std::string& name, Command& c) {
  if (w.size() > 2) bad(name + " takes on, off or toggle");
  const std::string v = w.size() == 2 ? lower(w[1]) : "on";
  if (v == "toggle") c.change = Change::Toggle;
  else if (v == "on" || v == "off") c.change = Change::Set, c.value = v == "on";
  else bad(name + " takes on, off or toggle");
}

// "2.k" -> target "2", option "k"; "k" -> "", "k". Option names hold no dot.
void targetArg(std::string_view word, Command& c) {
  const size_t dot = word.rfind('.');
  c.target = dot == std::string_view::npos ? "" : lower(word.substr(0, dot));
  c.option = lower(dot == std::string_view::npos ? word : word.substr(dot + 1));
  if (c.option.empty()) bad("an option name was expected after '" + std::string(word) + "'");
  if (dot == 0) bad("an element (N, NAME or NAME#N) was expected before '" + std::string(word) + "'");
}

// "+N" / "-N" into c.step; false when `s` is not signed.
bool signedStep(std::string_view s, const std::string& name, Command& c) {
  if (s.empty() || (s.front() != '+' && s.front() != '-')) return false;
  const bool minus = s.front() == '-';
  s.remove_prefix(1);
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, c.step);
  if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(c.step) || c.step < 0)
    bad(name + " step must be +N or -N");
  if (minus) c.step = -c.step;
  return true;
}

// A filter's word (`radius +1`, `border cycle`, `edges-overlay`, `k-auto on`) as the
// generic command it stands for. A value is checked against the option now, so a bad
// key binding fails at start.
Command shorthandCommand(const Shorthand& sh, const std::vector<std::string_view>& w) {
  Command c;
  c.target = sh.target;
  c.option = sh.option->name;
  const OptionInfo& o = *sh.option;
  const std::string& name = sh.names[0];
  if (sh.autoSwitch) {
    c.verb = Verb::Auto;
    onOffToggleArg(w, name, c);
    return c;
  }
  std::string why;  // what it takes, said as the error
  if (o.type == OptionType::Bool) {
    why = name + " takes on, off or toggle";
  } else if (o.type == OptionType::Choice) {
    std::string names = optionRange(o);  // "zero|replicate|..." as "zero, replicate, ..."
    for (size_t at = names.find('|'); at != std::string::npos; at = names.find('|', at)) names.replace(at, 1, ", ");
    why = name + " must be " + names + " or cycle";
  } else {
    why = name + " must be " + optionRange(o) + ", +N or -N";
  }
  if (w.size() > 2 || (w.size() == 1 && o.type != OptionType::Bool))
    bad(o.type == OptionType::Int || o.type == OptionType::Float ? name + " takes one number (" + why + ")" : why);
  const std::string arg = w.size() == 2 ? lower(w[1]) : "on";
  if ((arg == "cycle" && o.type != OptionType::Float) || (o.type == OptionType::Bool && arg == "toggle")) {
    c.verb = Verb::Cycle, c.change = Change::Cycle;
    return c;
  }
  if (o.type == OptionType::Bool) {
    if (arg != "on" && arg != "off") bad(why);
    c.verb = Verb::Set, c.change = Change::Set, c.arg = arg == "on" ? "1" : "0";
    return c;
  }
  if (o.type != OptionType::Choice && signedStep(w[1], name, c)) {
    c.verb = Verb::Add, c.change = Change::Add;
    return c;
  }
  try {
    parseOptionValue(o, arg);
  } catch (const std::invalid_argument&) {
    bad(why);
  }
  c.verb = Verb::Set, c.change = Change::Set, c.arg = arg;
  return c;
}

void filterNameArg(const std::vector<std::string_view>& w, const std::string& name, Command& c) {
  const std::string why = name + " must be " + filterNames(", ") + ", none or cycle";
  if (w.size() != 2) bad(why);
  const std::string v = lower(w[1]);
  if (v == "cycle") {
    c.change = Change::Cycle;
    return;
  }
  if (v != "none" && !findFilter(v)) bad(why);
  c.change = Change::Set, c.arg = v;
}

void vfArgs(const std::vector<std::string_view>& w, std::string_view rest, Command& c) {
  const char* usage = "vf takes set CHAIN, add FILTER, remove N|NAME or toggle N|NAME";
  if (w.size() < 2) bad(usage);
  const std::string op = lower(w[1]);
  if (op == "set") c.vf = VfOp::Set;
  else if (op == "add") c.vf = VfOp::Add;
  else if (op == "remove") c.vf = VfOp::Remove;
  else if (op == "toggle") c.vf = VfOp::Toggle;
  else bad(usage);
  c.change = Change::Set;
  c.arg = std::string(trim(rest.substr(w[1].size())));  // the chain may hold blanks (quoted values)
  if (c.vf == VfOp::Set) {
    if (c.arg.empty()) bad("vf set takes a chain (none: the empty chain)");
    return;
  }
  if (c.arg.empty() || w.size() != 3) bad("vf " + op + (c.vf == VfOp::Add ? " takes one filter" : " takes N or NAME"));
  if (c.vf != VfOp::Add) c.arg = lower(c.arg);
}

std::optional<Verb> verbNamed(const std::string& name) {
  for (const VerbInfo& v : verbTable())
    if (name == v.name) return v.verb;
  return std::nullopt;
}

const char* aliasFor(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  for (const CommandAlias& a : commandAliases())
    if (name == a.name) return a.command;
  return nullptr;
}

Command parseWords(const std::vector<std::string_view>& w, std::string_view rest) {
  Command c;
  const std::string word = lower(w[0]);
  const std::optional<Verb> verb = verbNamed(word);
  if (!verb) {
    if (const Shorthand* sh = findShorthand(word)) return shorthandCommand(*sh, w);
    const char* alias = aliasFor(word);
    if (!alias) bad("unknown command '" + std::string(w[0]) + "'");
    noArgs(w);
    std::string_view unused;
    return parseWords(words(alias, unused), unused);
  }
  c.verb = *verb;
  const VerbInfo& v = verbInfo(c.verb);
  const std::string name = v.name;
  switch (v.arg) {
    case ArgKind::None: noArgs(w); break;
    case ArgKind::NumberOrStep: numberArg(w, v.name, v.lo, v.hi, c); break;
    case ArgKind::Step:
      if (w.size() == 2 && !w[1].empty() && w[1].front() != '+' && w[1].front() != '-')
        bad(name + " takes a step: +N or -N");
      numberArg(w, v.name, v.lo, v.hi, c);
      break;
    case ArgKind::FilterName: filterNameArg(w, name, c); break;
    case ArgKind::OptionValue:
      if (w.size() != 3) bad(name + " takes [ELEMENT.]OPTION VALUE");
      targetArg(w[1], c);
      c.change = Change::Set, c.arg = std::string(w[2]);
      break;
    case ArgKind::OptionStep: {
      if (w.size() != 3) bad(name + " takes [ELEMENT.]OPTION +N|-N");
      targetArg(w[1], c);
      std::string_view s = w[2];
      if (!s.empty() && s.front() == '+') s.remove_prefix(1);
      const char* end = s.data() + s.size();
      const auto [ptr, ec] = std::from_chars(s.data(), end, c.step);
      if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(c.step)) bad(name + " step must be +N or -N");
      c.change = Change::Add;
      break;
    }
    case ArgKind::Option:
      if (w.size() != 2) bad(name + " takes [ELEMENT.]OPTION");
      targetArg(w[1], c);
      c.change = Change::Cycle;
      break;
    case ArgKind::OptionSwitch: {
      if (w.size() < 2 || w.size() > 3) bad(name + " takes [ELEMENT.]OPTION [on|off|toggle]");
      targetArg(w[1], c);
      onOffToggleArg({w[0], w.size() == 3 ? w[2] : std::string_view("on")}, name, c);
      break;
    }
    case ArgKind::VfArgs: vfArgs(w, rest, c); break;
    case ArgKind::Name:
      if (w.size() != 2) bad(name + " takes NAME or cycle");
      c.arg = lower(w[1]);
      c.change = c.arg == "cycle" ? Change::Cycle : Change::Set;
      break;
    case ArgKind::Compare: choiceArg<CompareMode>(w, name + " must be off, split, side or cycle", parseCompareMode, c); break;
    case ArgKind::OnOffToggle: onOffToggleArg(w, name, c); break;
    case ArgKind::Seconds: secondsArg(w, name, c); break;
    case ArgKind::Rest: c.path = std::string(rest); break;
  }
  return c;
}

}  // namespace

std::optional<Command> parseCommand(std::string_view text) {
  std::string_view rest;
  const std::vector<std::string_view> w = words(text, rest);
  if (w.empty() || w[0].front() == '#') return std::nullopt;
  Command c = parseWords(w, rest);
  // An alias stands for its command, which names it in logs and help.
  const std::string word = lower(w[0]);
  const char* alias = verbNamed(word) || findShorthand(word) ? nullptr : aliasFor(word);
  c.text = alias ? alias : std::string(trim(text));
  return c;
}

Command commandFrom(std::string_view text) {
  std::optional<Command> c = parseCommand(text);
  if (!c) throw std::invalid_argument("empty command");
  return *c;
}

bool isWindowCommand(const Command& c) {
  return c.verb == Verb::Fullscreen || c.verb == Verb::Hud || c.verb == Verb::Help;
}

bool isParamCommand(const Command& c) {
  switch (c.verb) {
    case Verb::Vf:
    case Verb::Set:
    case Verb::Add:
    case Verb::Cycle:
    case Verb::Auto:
    case Verb::Preset:
    case Verb::Compare:
    case Verb::Split:
    case Verb::Mode:
    case Verb::Param: return true;
    default: return false;
  }
}

bool repeats(const Command& c) {
  return (isParamCommand(c) && c.change == Change::Add) || c.verb == Verb::Step || c.verb == Verb::Seek ||
         (c.verb == Verb::Volume && c.change == Change::Add) || (c.verb == Verb::AudioDelay && c.change == Change::Add);
}

std::string describeParams(const ProcessParams& p) {
  std::string out = describeChain(p.chain);
  if (p.compare == CompareMode::Split)
    out += " | compare split " + std::to_string(int(std::lround(p.split * 100))) + " %";
  else if (p.compare == CompareMode::Side)
    out += " | compare side";
  return out;
}

std::string screenshotPath(const std::string& dir, int64_t index) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);  // localtime() shares a static buffer between threads
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return dir + "/vidproc-" + stamp + "-" + std::to_string(index) + ".png";
}

}  // namespace vp
