// The tables behind the command language (commands.h): one row per verb, the default
// key bindings, and the aliases kept from earlier versions. --help, the HUD's help
// window, config/default.toml's [keys] and README's "Keys and commands" table are all
// written from these rows (tests fail when the files drift from them).
#pragma once

#include "app/input/commands.h"

#include <array>
#include <string>
#include <vector>

namespace vp {

// What may follow a verb; parseCommand reads it as the verb's row says.
enum class ArgKind : uint8_t {
  None,           // nothing
  Number,         // N within lo..hi
  Step,           // +N or -N
  NumberOrStep,   // N within lo..hi, +N or -N
  NumberOrCycle,  // N within lo..hi, or cycle
  OptionNumber,   // N | +N | -N on the shorthand's option, its own type (decimals for a Float) and bounds
  FilterName,     // a registered filter | none | cycle
  Choice,         // one of the shorthand's option's choices (border: zero | replicate | ...), or cycle
  OptionValue,    // [ELEMENT.]OPTION VALUE
  OptionStep,     // [ELEMENT.]OPTION +N|-N
  Option,         // [ELEMENT.]OPTION
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
  int lo, hi;               // Number*: the allowed values (filter options: from their tables)
  std::string syntax;       // "seek S|+S|-S"
  std::string description;  // "seek to S seconds, or by +-S"
  const char* option;       // a filter option's shorthand (k, radius, ...): "kmeans.k"; else nullptr
};

struct KeyBinding {
  const char* keys;         // one or more key names, comma separated: "q, escape"
  const char* command;      // command text: "quit"
  const char* description;  // "quit"
};

struct CommandAlias {
  const char* name;     // "k_inc"
  const char* command;  // "k +1"
};

// Every verb, in Verb order.
const std::array<VerbInfo, kVerbCount>& verbTable();
const VerbInfo& verbInfo(Verb verb);
// The default key bindings, in help order.
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
