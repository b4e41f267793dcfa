#include "app/input/chain_editor.h"

#include "gpu/filters/registry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vp {
namespace {

[[noreturn]] void bad(const std::string& why) { throw std::invalid_argument(why); }

// The option's next value for a set / add / cycle command (those the filters' words
// become included), or param's step (its whole-number value).
double nextValue(const OptionInfo& o, double old, const Command& c) {
  switch (c.change) {
    case Change::Set: return parseOptionValue(o, c.arg);
    case Change::Add: {
      const double step = c.verb == Verb::Param ? c.value : c.step;
      if (o.type != OptionType::Float && step != std::floor(step)) bad(std::string(o.name) + " steps by whole numbers");
      return std::clamp(old + step, o.stepLo, o.hi);
    }
    case Change::Cycle:
      switch (o.type) {
        case OptionType::Choice: return std::fmod(old + 1, o.hi + 1);
        case OptionType::Bool: return old != 0 ? 0 : 1;
        case OptionType::Int: return old + 1 > o.hi ? o.stepLo : old + 1;
        case OptionType::Float: bad(std::string(o.name) + " is a number: use set or add, not cycle");
      }
      break;
    default: break;
  }
  bad("no value");
}

std::string optionText(const FilterElement& e, int option) {
  const OptionInfo& o = e.filter().option(option);
  return std::string(o.name) + "=" + formatOptionValue(o, e.value(option));
}

}  // namespace

ChainEditor::ChainEditor(ElementDefaults base, std::vector<Preset> presets)
    : base_(std::move(base)), presets_(std::move(presets)) {
  for (const FilterInfo* f : filterRegistry()) memory_.push_back(base_ ? base_(*f) : FilterElement(*f));
}

std::vector<Preset> ChainEditor::defaultPresets() { return {{"kmeans", "kmeans"}, {"blur", "blur"}, {"none", "none"}}; }

FilterElement& ChainEditor::memory(const FilterInfo& filter) { return memory_[registryIndex(filter)]; }

FilterElement ChainEditor::remembered(const FilterInfo& filter) const {
  FilterElement e = memory_[registryIndex(filter)];
  e.setEnabled(true);
  return e;
}

void ChainEditor::remember(const FilterChain& chain) {
  for (const FilterElement& e : chain) memory(e.filter()) = e;
}

void ChainEditor::start(const FilterChain& chain) {
  remember(chain);
  preset_ = presetShowing(chain);
}

int ChainEditor::presetShowing(const FilterChain& chain) const {
  for (size_t i = 0; i < presets_.size(); ++i) {
    try {
      if (parseChain(presets_[i].chain, [this](const FilterInfo& f) { return remembered(f); }) == chain)
        return int(i);
    } catch (const std::invalid_argument&) {
    }
  }
  return -1;
}

std::optional<std::string> ChainEditor::apply(const Command& c, ProcessParams& p) {
  if (!isParamCommand(c)) return std::nullopt;
  switch (c.verb) {
    case Verb::Vf: return applyVf(c, p);
    case Verb::Preset: return applyPreset(c, p);
    case Verb::Mode:
      if (c.change == Change::Cycle) return applyPreset(c, p);
      {
        FilterChain chain;
        if (c.arg != "none") chain.add(remembered(*findFilter(c.arg)));
        std::optional<std::string> what = replaceChain(chain, p, "chain: ");
        preset_ = presetShowing(p.chain);  // the preset cycle goes on from what is shown
        return what;
      }
    case Verb::Compare:
    case Verb::Split: return applyView(c, p);
    case Verb::Param: {
      for (int i = 0; i < p.chain.size(); ++i) {
        FilterElement& e = p.chain[i];
        const int main = e.filter().mainOption;
        if (main < 0 || !e.enabled()) continue;
        const double v = nextValue(e.filter().option(main), e.value(main), c);
        if (v == e.value(main)) return std::nullopt;
        e.set(main, v);
        remember(p.chain);
        return elementLabel(p.chain, i) + " " + optionText(e, main);
      }
      return std::nullopt;
    }
    default: return setOption(c, p);
  }
}

std::optional<std::string> ChainEditor::setOption(const Command& c, ProcessParams& p) {
  int index = -1;
  try {
    index = resolveElement(p.chain, c.target, c.option);
  } catch (const std::invalid_argument& none) {
    // A filter that is not in the chain: its remembered values change, for when it is.
    const FilterInfo* filter = c.target.empty() ? nullptr : findFilter(c.target);
    for (const FilterInfo* f : filterRegistry())
      if (!filter && c.target.empty() && f->optionIndex(c.option) >= 0) filter = f;
    if (!filter || filter->optionIndex(c.option) < 0 || p.chain.find(filter->name) >= 0) throw;
    FilterElement& e = memory(*filter);
    const int option = filter->optionIndex(c.option);
    const double v = valueFor(e, option, c);
    if (v == e.value(option)) return std::nullopt;
    e.set(option, v);
    return std::string(filter->name) + " is not in the chain: " + optionText(e, option) + " kept for it";
  }
  FilterElement& e = p.chain[index];
  const int option = e.filter().optionIndex(c.option);
  const OptionInfo& o = e.filter().option(option);
  if (!o.runtime) bad(std::string(o.name) + " cannot change while playing");
  const double v = valueFor(e, option, c);
  if (v == e.value(option)) return std::nullopt;
  e.set(option, v);
  memory(e.filter()) = e;
  return elementLabel(p.chain, index) + " " + optionText(e, option);
}

double ChainEditor::valueFor(const FilterElement& e, int option, const Command& c) {
  const OptionInfo& o = e.filter().option(option);
  const double old = e.value(option);
  if (c.verb != Verb::Auto) {
    const double v = nextValue(o, old, c);
    if (o.zeroName && v == 0 && old != 0) beforeAuto_[&e.filter()] = old;
    return v;
  }
  // auto on: the option's zero word (k = auto); off: the value it had before.
  if (!o.zeroName) bad(std::string(o.name) + " has no automatic value");
  const bool automatic = c.change == Change::Toggle ? old != 0 : c.value != 0;
  if (automatic) {
    if (old != 0) beforeAuto_[&e.filter()] = old;
    return 0;
  }
  const auto fixed = beforeAuto_.find(&e.filter());
  return old != 0 ? old : fixed != beforeAuto_.end() ? fixed->second : o.def;
}

std::optional<std::string> ChainEditor::replaceChain(FilterChain chain, ProcessParams& p, const std::string& what) {
  if (chain == p.chain) return std::nullopt;
  p.chain = chain;
  remember(chain);
  return what + describeChain(chain);
}

std::optional<std::string> ChainEditor::applyPreset(const Command& c, ProcessParams& p) {
  if (presets_.empty()) bad("no presets: name chains in the config's [presets]");
  int next = 0;
  if (c.change == Change::Cycle) {
    next = (preset_ + 1) % int(presets_.size());
  } else {
    next = -1;
    for (size_t i = 0; i < presets_.size(); ++i)
      if (presets_[i].name == c.arg) next = int(i);
    if (next < 0) bad("no preset '" + c.arg + "'");
  }
  preset_ = next;
  const Preset& preset = presets_[size_t(next)];
  FilterChain chain = parseChain(preset.chain, [this](const FilterInfo& f) { return remembered(f); });
  return replaceChain(chain, p, "preset " + preset.name + ": ");
}

std::optional<std::string> ChainEditor::applyVf(const Command& c, ProcessParams& p) {
  const auto defaults = [this](const FilterInfo& f) { return remembered(f); };
  FilterChain chain = p.chain;
  switch (c.vf) {
    case VfOp::Set: chain = parseChain(c.arg, defaults); break;
    case VfOp::Add: chain.add(parseElement(c.arg, defaults)); break;
    case VfOp::Remove: chain.remove(resolveElement(chain, c.arg, "")); break;
    case VfOp::Toggle: {
      FilterElement& e = chain[resolveElement(chain, c.arg, "")];
      e.setEnabled(!e.enabled());
      break;
    }
  }
  preset_ = -1;
  return replaceChain(chain, p, "chain: ");
}

std::optional<std::string> ChainEditor::applyView(const Command& c, ProcessParams& p) {
  if (c.verb == Verb::Compare) {
    const CompareMode next = c.change == Change::Cycle ? CompareMode((int(p.compare) + 1) % kCompareModeCount)
                                                        : CompareMode(c.value);
    if (next == p.compare) return std::nullopt;
    p.compare = next;
  } else {
    const int now = int(std::lround(p.split * 100));
    const int percent = std::clamp(c.change == Change::Add ? now + c.value : c.value, 0, kMaxSplitPercent);
    if (percent == now && float(percent) / 100.f == p.split) return std::nullopt;
    p.split = float(percent) / 100.f;
  }
  return describeParams(p);
}

}  // namespace vp
