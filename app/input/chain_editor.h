// Carries out the processing commands (commands.h: vf, set, add, cycle, preset, mode, the
// parameter shorthands, compare, split) on the ProcessParams the session submits.
//
// It remembers each filter's latest values: an element a command brings in without
// options (`vf add kmeans`, `mode kmeans`, a preset "blur,kmeans") takes them, so K
// survives a trip through `mode blur` as it always did. A shorthand or `set` aimed at a
// filter that is not in the chain changes those remembered values (and says so).
#pragma once

#include "app/input/commands.h"
#include "gpu/filters/chain.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vp {

struct Preset {
  std::string name;   // "cartoon"
  std::string chain;  // "blur=r=2,kmeans=k=6"
};

class ChainEditor {
 public:
  // `base`: each filter's starting values (the registry's defaults, or with the command
  // line's shorthands applied); `presets`: the named chains `preset` and the m key cycle.
  explicit ChainEditor(ElementDefaults base = nullptr, std::vector<Preset> presets = defaultPresets());

  // Applies a processing command (isParamCommand) to `params`. Returns a line for the
  // status ("kmeans#1 k=9", "chain: blur=r=3,kmeans") when it changed something, nullopt
  // when nothing changed or the command is not a processing one. Throws std::invalid_argument with a reason for the user (no such
  // element, value out of bounds, a bad chain: ChainError names the position).
  std::optional<std::string> apply(const Command& command, ProcessParams& params);

  // Call once with the chain a run starts with: its filters' values are remembered, and
  // the preset cycle continues from the preset it matches.
  void start(const FilterChain& chain);

  // The element `filter` is brought in with: its latest values.
  FilterElement remembered(const FilterInfo& filter) const;
  const std::vector<Preset>& presets() const { return presets_; }
  int presetIndex() const { return preset_; }  // -1: the chain came from elsewhere

  // kmeans, blur, none: the modes of earlier versions, in their order.
  static std::vector<Preset> defaultPresets();

 private:
  std::optional<std::string> replaceChain(FilterChain chain, ProcessParams& params, const std::string& what);
  std::optional<std::string> setOption(const Command& c, ProcessParams& params);
  // The value `c` gives option `option` of `e` (auto: the zero word, or the value before it).
  double valueFor(const FilterElement& e, int option, const Command& c);
  std::optional<std::string> applyPreset(const Command& c, ProcessParams& params);
  std::optional<std::string> applyVf(const Command& c, ProcessParams& params);
  std::optional<std::string> applyView(const Command& c, ProcessParams& params);
  void remember(const FilterChain& chain);
  int presetShowing(const FilterChain& chain) const;  // the preset whose chain this is, or -1
  FilterElement& memory(const FilterInfo& filter);

  ElementDefaults base_;
  std::vector<Preset> presets_;
  int preset_ = -1;
  std::vector<FilterElement> memory_;  // per registered filter, in registry order
  std::map<const FilterInfo*, double> beforeAuto_;  // the value an option with a zero word (k) had before it
};

}  // namespace vp
