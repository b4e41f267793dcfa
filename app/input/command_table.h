// The tables behind the command language (commands.h): one row per verb, the filters'
// command words and keys (from their FilterInfo), the program's default key bindings,
// and the aliases kept from earlier versions. --help, the HUD's help
// window, config/default.toml's [keys] and README's "Keys and commands" table are all
// written from these rows (tests fail when the files drift from them).
#pragma once

#include "app/input/commands.h"
#include "gpu/filters/filter.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace vp {

// What may follow a verb; parseCommand reads it as the verb's row says.
enum class ArgKind : uint8_t {
  None,           // nothing
  Step,           // +N or -N
  NumberOrStep,   // N within lo..hi, +N or -N
  FilterName,     // a registered filter | none | cycle
  OptionValue,    // [ELEMENT.]OPTION VALUE
  OptionStep,     // [ELEMENT.]OPTION +N|-N
  Option,         // [ELEMENT.]OPTION
  OptionSwitch,   // [ELEMENT.]OPTION [on|off|toggle]
  VfArgs,         // set CHAIN | add FILTER | remove N|NAME | toggle N|NAME
  Name,           // a word, or cycle
  Compare,        // off | split | side | cycle
  OnOffToggle,    // on (also no argument) | off | toggle
  Seconds,        // S | +S | -S, decimals allowed
  Rest,           // the rest of the text, blanks included (may be empty)
};

struct VerbInfo {
  Verb verb;
  const char* name;         // the first word: "seek"
  ArgKind arg;              // what follows it
  int lo, hi;               // NumberOrStep: the allowed values
  std::string syntax;       // "seek S|+S|-S"
  std::string description;  // "seek to S seconds, or by +-S"
};

// A filter's command word (OptionCommand in gpu/filters/filter.h) as the parser and help
// see it: `radius 5` is `set blur.r 5`, `radius +1` is `add blur.r +1`, `passes cycle` is
// `cycle blur.passes`, `k-auto on` is `auto kmeans.k on`.
struct Shorthand {
  std::vector<std::string> names;  // "k", then the other names it answers to ("clusters")
  std::string target;              // the element it acts on: the filter's name, "" when several declare it
  const OptionInfo* option;        // the option (of the first filter that declares the word)
  bool autoSwitch;                 // on | off | toggle of the option's automatic value
  std::string syntax;              // "radius N|+N|-N|cycle"
  std::string description;         // "the first blur's radius in pixels, 0..100"
};

struct CommandAlias {
  const char* name;     // "k_inc"
  const char* command;  // "k +1"
};

// Every verb, in Verb order.
const std::array<VerbInfo, kVerbCount>& verbTable();
const VerbInfo& verbInfo(Verb verb);
// The registered filters' command words, in registry order (a word several filters
// declare once); the word `name`, or nullptr.
const std::vector<Shorthand>& shorthandTable();
const Shorthand* findShorthand(std::string_view name);
// The default key bindings, in help order: the program's first keys, each registered
// filter's (FilterInfo::keys), then the program's others.
const std::vector<KeyBinding>& defaultKeyBindings();
// Names accepted for a whole command (earlier versions' key actions, resume, clusters).
const std::vector<CommandAlias>& commandAliases();

// What a binding's command does, for help: the default binding's description when the
// text is a default binding's, else the verb's.
std::string describeCommand(const Command& command);

// --help's footer part: keys, then control commands (plain text, wrapped).
std::string commandsHelpText();
// README's table (Markdown): key, command, what it does; then the verbs.
std::string commandsMarkdown();
// config/default.toml's [keys] body: "key" = "command" lines with comments.
std::string defaultKeysToml();

}  // namespace vp
