// The command words and keys the filters declare (FilterInfo::commands, keys) become the
// program's commands: each word is the generic command it stands for, no word or key is
// taken twice, and the key help lists every filter's keys.
#include "app/input/command_table.h"
#include "gpu/filters/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace vp {
namespace {

// "q, escape" -> {"q", "escape"}.
std::vector<std::string> keyNames(const char* keys) {
  std::vector<std::string> out(1);
  for (const char* c = keys; *c; ++c) {
    if (*c == ',') out.emplace_back();
    else if (*c != ' ') out.back() += *c;
  }
  return out;
}

TEST(CommandTable, EveryDefaultKeyIsBoundOnce) {
  std::set<std::string> seen;
  for (const KeyBinding& b : defaultKeyBindings()) {
    for (const std::string& key : keyNames(b.keys)) EXPECT_TRUE(seen.insert(key).second) << key << " bound twice";
    EXPECT_NO_THROW(commandFrom(b.command)) << b.command;
  }
}

TEST(CommandTable, EveryFilterKeyIsADefaultKey) {
  for (const FilterInfo* f : filterRegistry())
    for (int i = 0; i < f->keyCount; ++i) {
      bool found = false;
      for (const KeyBinding& b : defaultKeyBindings()) found |= std::string(b.command) == f->keys[i].command;
      EXPECT_TRUE(found) << f->name << ": " << f->keys[i].command;
    }
}

TEST(CommandTable, FilterWordsShadowNoVerbOrAlias) {
  std::set<std::string> verbs;
  for (const VerbInfo& v : verbTable()) verbs.insert(v.name);
  for (const CommandAlias& a : commandAliases()) verbs.insert(a.name);
  std::set<std::string> words;
  for (const Shorthand& sh : shorthandTable())
    for (const std::string& name : sh.names) {
      EXPECT_EQ(verbs.count(name), 0u) << name;
      EXPECT_TRUE(words.insert(name).second) << name << " listed twice";
      EXPECT_EQ(findShorthand(name), &sh);
    }
}

// Each word is the set / add / cycle / auto command on its option, whatever the filter.
TEST(CommandTable, EachWordIsTheGenericCommandOnItsOption) {
  ASSERT_FALSE(shorthandTable().empty());
  for (const Shorthand& sh : shorthandTable()) {
    const OptionInfo& o = *sh.option;
    const std::string word = sh.names[0];
    const std::string path = (sh.target.empty() ? "" : sh.target + ".") + o.name;
    SCOPED_TRACE(word);
    EXPECT_EQ(sh.syntax.rfind(word + " ", 0), 0u) << sh.syntax;
    EXPECT_NE(sh.description.find("the first "), std::string::npos) << sh.description;
    if (sh.autoSwitch) {
      ASSERT_NE(o.zeroName, nullptr);
      EXPECT_EQ(commandFrom(word + " off"), commandFrom("auto " + path + " off"));
      EXPECT_EQ(commandFrom(word + " toggle"), commandFrom("auto " + path + " toggle"));
      continue;
    }
    const std::string def = formatOptionValue(o, o.def);
    if (o.type == OptionType::Bool) {
      EXPECT_EQ(commandFrom(word + " on"), commandFrom("set " + path + " 1"));
      EXPECT_EQ(commandFrom(word + " toggle"), commandFrom("cycle " + path));
      continue;
    }
    EXPECT_EQ(commandFrom(word + " " + def), commandFrom("set " + path + " " + def));
    if (o.type == OptionType::Float) {
      EXPECT_EQ(commandFrom(word + " +0.5"), commandFrom("add " + path + " +0.5"));
      EXPECT_THROW(commandFrom(word + " cycle"), std::invalid_argument);
    } else {
      EXPECT_EQ(commandFrom(word + " cycle"), commandFrom("cycle " + path));
    }
    if (o.type == OptionType::Int) {
      EXPECT_EQ(commandFrom(word + " -2"), commandFrom("add " + path + " -2"));
      if (o.hi < 1e9) {
        EXPECT_THROW(commandFrom(word + " " + formatOptionValue(o, o.hi + 1)), std::invalid_argument);
      }
    }
  }
}

}  // namespace
}  // namespace vp
