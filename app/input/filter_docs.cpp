#include "app/input/filter_docs.h"

#include "gpu/filters/chain.h"
#include "gpu/filters/registry.h"

namespace vp {
namespace {

const char* typeName(const OptionInfo& o) {
  switch (o.type) {
    case OptionType::Int: return "integer";
    case OptionType::Float: return "number";
    case OptionType::Choice: return "choice";
    case OptionType::Bool: return "switch";
  }
  return "";
}

std::string exampleChain() { return "blur=r=3,kmeans=k=6"; }

}  // namespace

std::string filtersHelpText() {
  std::string out = "Filters (--vf CHAIN, ffmpeg's syntax: NAME=KEY=VALUE:KEY=VALUE,NAME...; e.g. --vf \"" +
                    exampleChain() + "\"; none: no filter; --vf NAME=help lists one filter's options):\n";
  for (const FilterInfo* f : filterRegistry()) {
    out += std::string("  ") + f->name + ": " + f->summary + "\n    ";
    for (int i = 0; i < f->optionCount; ++i) {
      const OptionInfo& o = f->option(i);
      out += std::string(i ? ", " : "") + o.name + "=" + optionRange(o) + " (" + formatOptionValue(o, o.def) + ")";
    }
    out += "\n";
  }
  return out;
}

std::string filterHelp(const FilterInfo& f) {
  std::string out = std::string(f.name) + ": " + f.summary + "\n";
  if (f.temporal) out += "Each frame starts from the previous frame's result (per element).\n";
  out += "Options (" + std::string(f.name) + "=KEY=VALUE:KEY=VALUE; bare values fill them in this order):\n";
  for (int i = 0; i < f.optionCount; ++i) {
    const OptionInfo& o = f.option(i);
    std::string head = std::string("  ") + o.name + " <" + typeName(o) + "> " + optionRange(o);
    if (head.size() < 40) head.resize(40, ' ');
    out += head + " default " + formatOptionValue(o, o.def) + ": " + o.help + "\n";
  }
  return out;
}

std::string filtersReadmeTable() {
  std::string out = "| filter | what it does | options (default) |\n|---|---|---|\n";
  for (const FilterInfo* f : filterRegistry()) {
    std::string options;
    for (int i = 0; i < f->optionCount; ++i) {
      const OptionInfo& o = f->option(i);
      options += std::string(i ? ", " : "") + "`" + o.name + "` (" + formatOptionValue(o, o.def) + ")";
    }
    out += "| `" + std::string(f->name) + "` | " + f->summary + " | " + options + " |\n";
  }
  return out;
}

std::string filtersMarkdown() {
  std::string out = "Chain syntax: `NAME=KEY=VALUE:KEY=VALUE,NAME...` (ffmpeg's, for a linear chain), e.g. `--vf \"" +
                    exampleChain() +
                    "\"`. A bare value fills the next option in the order below (`kmeans=6` is `kmeans=k=6`); "
                    "`none` is the empty chain; a value in `'...'` may hold `,` `:` `=`. Elements are "
                    "labelled by filter and position (`blur#1`, `kmeans#2`) in the HUD, the summary and "
                    "`--stats-json`; commands address them as `N`, `NAME` or `NAME#N` (`set 2.k 5`).\n";
  for (const FilterInfo* f : filterRegistry()) {
    out += "\n## `" + std::string(f->name) + "`\n\n" + f->summary + ".";
    if (f->temporal) out += " Each frame starts from the previous frame's result of the same element.";
    out += "\n\n| option | type | range | default | what it does |\n|---|---|---|---|---|\n";
    for (int i = 0; i < f->optionCount; ++i) {
      const OptionInfo& o = f->option(i);
      std::string r = optionRange(o);
      std::string escaped;
      for (char c : r) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
      out += "| `" + std::string(o.name) + "` | " + typeName(o) + " | " + escaped + " | " +
             formatOptionValue(o, o.def) + " | " + o.help + " |\n";
    }
  }
  return out;
}

std::string filtersToml() {
  std::string out;
  for (const FilterInfo* f : filterRegistry()) {
    out += "#   " + std::string(f->name) + ": " + f->summary + "\n";
    for (int i = 0; i < f->optionCount; ++i) {
      const OptionInfo& o = f->option(i);
      std::string line = "#     " + std::string(o.name) + "=" + formatOptionValue(o, o.def);
      if (line.size() < 28) line.resize(28, ' ');
      out += line + " " + optionRange(o) + ": " + o.help + "\n";
    }
  }
  return out;
}

}  // namespace vp
