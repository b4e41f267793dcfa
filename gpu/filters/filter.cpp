#include "gpu/filters/filter.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace vp {
namespace {

std::vector<std::string_view> choiceNames(const OptionInfo& o) {
  std::vector<std::string_view> out;
  std::string_view s = o.choices ? o.choices : "";
  while (!s.empty()) {
    const size_t bar = s.find('|');
    out.push_back(s.substr(0, bar));
    if (bar == std::string_view::npos) break;
    s.remove_prefix(bar + 1);
  }
  return out;
}

// The shortest text that reads back as v; whole numbers without an exponent.
std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e16) return std::to_string(static_cast<long long>(v));
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return ec == std::errc() ? std::string(text, end) : std::to_string(v);
}

}  // namespace

void ElementResult::set(const char* name, double value) {
  for (FilterMetric& m : metrics)
    if (!m.name || std::string_view(m.name) == name) {
      m.name = name;
      m.value = value;
      return;
    }
}

double ElementResult::get(std::string_view name, double fallback) const {
  for (const FilterMetric& m : metrics)
    if (m.name && name == m.name) return m.value;
  return fallback;
}

int FilterInfo::optionIndex(std::string_view name) const {
  for (int i = 0; i < optionCount; ++i)
    if (name == options[i].name) return i;
  return -1;
}

FilterElement::FilterElement(const FilterInfo& filter) : filter_(&filter) {
  for (int i = 0; i < filter.optionCount; ++i) values_[size_t(i)] = filter.options[i].def;
}

bool optionAccepts(const OptionInfo& o, double v) {
  if (v == 0 && o.zeroName) return true;
  return std::isfinite(v) && v >= o.lo && v <= o.hi && (o.type == OptionType::Float || v == std::floor(v));
}

void FilterElement::set(int option, double v) {
  const OptionInfo& o = filter_->options[option];
  if (!optionAccepts(o, v)) throw std::invalid_argument(optionBounds(o));
  values_[size_t(option)] = v;
}

std::string optionBounds(const OptionInfo& o) {
  std::string out = std::string(o.name) + " must be ";
  switch (o.type) {
    case OptionType::Int:
    case OptionType::Float:
      return out + (o.zeroName ? std::string(o.zeroName) + " or " : "") + number(o.lo) + ".." + number(o.hi);
    case OptionType::Bool: return out + "0 or 1";
    case OptionType::Choice: {
      const std::vector<std::string_view> names = choiceNames(o);
      for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
      return out;
    }
  }
  return out;
}

std::string optionRange(const OptionInfo& o) {
  if (o.type == OptionType::Choice) return o.choices;
  if (o.type == OptionType::Bool) return "0|1";
  return (o.zeroName ? std::string(o.zeroName) + "|" : "") + number(o.lo) + ".." + number(o.hi);
}

std::string formatOptionValue(const OptionInfo& o, double v) {
  if (o.type == OptionType::Choice) {
    const std::vector<std::string_view> names = choiceNames(o);
    const size_t i = size_t(v);
    return i < names.size() ? std::string(names[i]) : number(v);
  }
  if (v == 0 && o.zeroName) return o.zeroName;
  return number(v);
}

double parseOptionValue(const OptionInfo& o, std::string_view text) {
  if (o.type == OptionType::Choice) {
    const std::vector<std::string_view> names = choiceNames(o);
    for (size_t i = 0; i < names.size(); ++i)
      if (text == names[i]) return double(i);
    throw std::invalid_argument(optionBounds(o));
  }
  if (o.type == OptionType::Bool) {
    if (text == "1" || text == "yes" || text == "on" || text == "true") return 1;
    if (text == "0" || text == "no" || text == "off" || text == "false") return 0;
    throw std::invalid_argument(optionBounds(o));
  }
  if (o.zeroName && text == o.zeroName) return 0;
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !optionAccepts(o, v) || (o.zeroName && v == 0))
    throw std::invalid_argument(optionBounds(o));
  return v;
}

}  // namespace vp
