// README's "Keys and commands" table and config/default.toml's [keys] are written from
// the command tables (app/input/command_table.cpp); README's filter table,
// docs/filters.md and config/default.toml's filter list from the filters' option tables
// (gpu/filters/): these tests fail when a file drifts from them. VP_UPDATE_DOCS=1
// rewrites the files instead.
#include "app/input/command_table.h"
#include "app/input/filter_docs.h"
#include "app/options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace vp {
namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Checks (or, with VP_UPDATE_DOCS=1, rewrites) the text between `begin` and `end` in `path`.
void expectSection(const std::string& path, const std::string& begin, const std::string& end,
                   const std::string& expected) {
  std::string text = readText(path);
  const size_t b = text.find(begin);
  ASSERT_NE(b, std::string::npos) << path << " has no '" << begin << "'";
  const size_t from = b + begin.size();
  const size_t to = end.empty() ? text.size() : text.find(end, from);
  ASSERT_NE(to, std::string::npos) << path << " has no '" << end << "' after '" << begin << "'";
  const std::string got = text.substr(from, to - from);
  if (got == expected) return;
  const char* update = std::getenv("VP_UPDATE_DOCS");
  if (update && std::string(update) == "1") {
    text.replace(from, to - from, expected);
    std::ofstream(path) << text;
    return;
  }
  ADD_FAILURE() << path << " drifted from the command table; run with VP_UPDATE_DOCS=1 to rewrite it.\n"
                << "expected:\n" << expected << "\ngot:\n" << got;
}

TEST(CommandDocs, ReadmeTableIsTheCommandTable) {
  expectSection(VP_SOURCE_DIR "/README.md", "<!-- commands:begin -->\n", "<!-- commands:end -->",
                commandsMarkdown());
}

TEST(CommandDocs, DefaultTomlKeysAreTheDefaultBindings) {
  expectSection(VP_SOURCE_DIR "/config/default.toml", "[keys]\n", "", defaultKeysToml());
}

TEST(FilterDocs, ReadmeTableIsTheRegistry) {
  expectSection(VP_SOURCE_DIR "/README.md", "<!-- filters:begin -->\n", "<!-- filters:end -->", filtersReadmeTable());
}

TEST(FilterDocs, FiltersMarkdownIsTheRegistry) {
  expectSection(VP_SOURCE_DIR "/docs/filters.md", "<!-- filters:begin -->\n", "<!-- filters:end -->",
                filtersMarkdown());
}

TEST(FilterDocs, DefaultTomlListsTheFilters) {
  expectSection(VP_SOURCE_DIR "/config/default.toml", "# <filters>\n", "# </filters>", filtersToml());
}

// The config's [keys] entries parse and bind what the table says (the whole file is
// checked against the built-in defaults in test_options.cpp).
TEST(CommandDocs, DefaultTomlKeysParse) {
  Options o;
  applyConfigText(readText(VP_SOURCE_DIR "/config/default.toml"), o);
  size_t keys = 0;
  for (const KeyBinding& b : defaultKeyBindings())
    for (const char* c = b.keys; *c; ++c) keys += *c == ',';
  EXPECT_EQ(o.keys.size(), keys + defaultKeyBindings().size());
  EXPECT_EQ(o.keys.at("shift+k"), "k +1");
  EXPECT_EQ(o.keys.at("F1"), "help");
}

}  // namespace
}  // namespace vp
