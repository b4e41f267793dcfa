// Help and documentation written from the filters' option tables (gpu/filters/): --help's
// filter list, --vf NAME=help, docs/filters.md and config/default.toml's filter section.
// Tests fail when the files drift from the tables (VP_UPDATE_DOCS=1 rewrites them).
#pragma once

#include "gpu/filters/filter.h"

#include <string>

namespace vp {

// --help's footer part: the chain syntax and each filter with its options (plain text).
std::string filtersHelpText();
// --vf NAME=help: one filter, every option with type, bounds, default and help.
std::string filterHelp(const FilterInfo& filter);
// README's filter table (Markdown): one row per filter with its options and defaults.
std::string filtersReadmeTable();
// docs/filters.md's generated part (Markdown).
std::string filtersMarkdown();
// config/default.toml's filter section: commented lines.
std::string filtersToml();

}  // namespace vp
