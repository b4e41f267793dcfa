#include "app/control.h"

#include "app/controls.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace vp {
namespace {

bool isBlank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

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
    if (out.size() == 1) {
      rest = line.substr(j);
      while (!rest.empty() && isBlank(rest.front())) rest.remove_prefix(1);
      while (!rest.empty() && isBlank(rest.back())) rest.remove_suffix(1);
    }
    i = j;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int intArg(const std::vector<std::string_view>& w, const char* name, int lo, int hi) {
  const std::string range = std::string(name) + " must be " + std::to_string(lo) + ".." + std::to_string(hi);
  if (w.size() != 2) throw std::invalid_argument(std::string(name) + " takes one number (" + range + ")");
  int v = 0;
  const char* end = w[1].data() + w[1].size();
  auto [ptr, ec] = std::from_chars(w[1].data(), end, v);
  if (ec != std::errc() || ptr != end || v < lo || v > hi) throw std::invalid_argument(range);
  return v;
}

// "12.5" (absolute) or "+5" / "-5" (relative), in seconds.
void seekArg(const std::vector<std::string_view>& w, ControlCommand& c) {
  if (w.size() != 2) throw std::invalid_argument("seek takes one time in seconds: S, +S or -S");
  std::string_view s = w[1];
  c.kind = ControlKind::SeekTo;
  double sign = 1;
  if (s.front() == '+' || s.front() == '-') {
    c.kind = ControlKind::SeekBy;
    sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  double seconds = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, seconds);
  if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(seconds) || seconds < 0 || seconds > 1e9)
    throw std::invalid_argument("seek time must be seconds: S, +S or -S");
  c.seekUs = static_cast<int64_t>(std::llround(sign * seconds * 1e6));
}

// Key actions that have a command of their own are turned into it, so the players
// handle pause, step, seek, screenshot and quit in one place each.
ControlCommand fromAction(Action a) {
  ControlCommand c;
  c.action = a;
  switch (a) {
    case Action::TogglePause:
      c.kind = ControlKind::TogglePause;
      break;
    case Action::Step:
      c.kind = ControlKind::Step;
      break;
    case Action::SeekBack5:
    case Action::SeekFwd5:
    case Action::SeekBack60:
    case Action::SeekFwd60:
      c.kind = ControlKind::SeekBy, c.seekUs = seekStepUs(a);
      break;
    case Action::Screenshot:
      c.kind = ControlKind::Screenshot;
      break;
    case Action::Quit:
      c.kind = ControlKind::Quit;
      break;
    default:
      c.kind = ControlKind::Key;
  }
  return c;
}

void noArgs(const std::vector<std::string_view>& w) {
  if (w.size() != 1) throw std::invalid_argument(std::string(w[0]) + " takes no argument");
}

}  // namespace

std::optional<ControlCommand> parseControlCommand(std::string_view line) {
  std::string_view rest;
  const std::vector<std::string_view> w = words(line, rest);
  if (w.empty() || w[0].front() == '#') return std::nullopt;
  const std::string verb = lower(w[0]);
  ControlCommand c;
  if (verb == "mode") {
    Mode m;
    if (w.size() != 2 || !parseMode(lower(w[1]), m))
      throw std::invalid_argument("mode must be kmeans, blur or none");
    c.kind = ControlKind::SetMode;
    c.value = int(m);
  } else if (verb == "border") {
    BorderMode b;
    if (w.size() != 2 || !parseBorderMode(lower(w[1]), b))
      throw std::invalid_argument("border must be zero, replicate, reflect or wrap");
    c.kind = ControlKind::SetBorder;
    c.value = int(b);
  } else if (verb == "k" || verb == "clusters") {
    c.kind = ControlKind::SetK;
    c.value = intArg(w, "k", 1, 32);
  } else if (verb == "radius") {
    c.kind = ControlKind::SetRadius;
    c.value = intArg(w, "radius", 0, 100);
  } else if (verb == "passes") {
    c.kind = ControlKind::SetPasses;
    c.value = intArg(w, "passes", 1, 3);
  } else if (verb == "iterations") {
    c.kind = ControlKind::SetIterations;
    c.value = intArg(w, "iterations", 0, 1000);
  } else if (verb == "pause" || verb == "resume") {
    noArgs(w);
    c.kind = verb == "pause" ? ControlKind::Pause : ControlKind::Resume;
  } else if (verb == "seek") {
    seekArg(w, c);
  } else if (verb == "screenshot") {
    c.kind = ControlKind::Screenshot;
    c.action = Action::Screenshot;
    c.path = std::string(rest);
  } else if (auto a = parseAction(verb)) {
    noArgs(w);
    c = fromAction(*a);
  } else {
    throw std::invalid_argument("unknown command '" + std::string(w[0]) + "'");
  }
  c.text = std::string(line.substr(0, line.find_last_not_of(" \t\r\n") + 1));
  return c;
}

bool isParamCommand(const ControlCommand& c) {
  switch (c.kind) {
    case ControlKind::SetMode:
    case ControlKind::SetK:
    case ControlKind::SetRadius:
    case ControlKind::SetPasses:
    case ControlKind::SetBorder:
    case ControlKind::SetIterations:
      return true;
    case ControlKind::Key:
      return isParamAction(c.action);
    default:
      return false;
  }
}

bool applyControlParams(const ControlCommand& c, ProcessParams& p) {
  auto set = [](auto& field, auto value) {
    if (field == value) return false;
    field = value;
    return true;
  };
  switch (c.kind) {
    case ControlKind::SetMode:
      return set(p.mode, Mode(c.value));
    case ControlKind::SetK:
      return set(p.kmeans.k, c.value);
    case ControlKind::SetRadius:
      return set(p.blur.radius, c.value);
    case ControlKind::SetPasses:
      return set(p.blur.passes, c.value);
    case ControlKind::SetBorder:
      return set(p.blur.border, BorderMode(c.value));
    case ControlKind::SetIterations:
      return set(p.kmeans.maxIterations, c.value);
    case ControlKind::Key:
      return applyParamAction(c.action, p);
    default:
      return false;
  }
}

}  // namespace vp
