// The chain commands (vf, set, add, cycle, preset, mode, the shorthands, compare, split)
// as parseCommand reads them and ChainEditor carries them out, and the --vf / preset /
// compare options as parseOptions builds them.
#include "app/input/chain_editor.h"
#include "app/input/commands.h"
#include "app/options.h"
#include "support/chains.h"

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace vp {
namespace {

// An editor and the params it edits, starting from `chain`.
struct Editing {
  ChainEditor editor;
  ProcessParams p;
  explicit Editing(const char* chain, std::vector<Preset> presets = ChainEditor::defaultPresets())
      : editor(nullptr, std::move(presets)) {
    p.chain = parseChain(chain);
    editor.start(p.chain);
  }
  std::optional<std::string> apply(const char* text) { return editor.apply(commandFrom(text), p); }
  std::string chain() const { return describeChain(p.chain); }
};

std::string error(Editing& e, const char* text) {
  try {
    e.apply(text);
  } catch (const std::invalid_argument& bad) {
    return bad.what();
  }
  return "(no error)";
}

TEST(ChainCommands, ParseVerbs) {
  Command c = commandFrom("set 2.k 5");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.target, "2");
  EXPECT_EQ(c.option, "k");
  EXPECT_EQ(c.arg, "5");
  c = commandFrom("add kmeans#2.k -3");
  EXPECT_EQ(c.verb, Verb::Add);
  EXPECT_EQ(c.target, "kmeans#2");
  EXPECT_EQ(c.step, -3);
  EXPECT_EQ(commandFrom("add r +1.5").step, 1.5);
  c = commandFrom("cycle border");
  EXPECT_EQ(c.verb, Verb::Cycle);
  EXPECT_EQ(c.target, "");
  EXPECT_EQ(c.option, "border");
  c = commandFrom("vf set blur=r=3, kmeans='6'");
  EXPECT_EQ(c.vf, VfOp::Set);
  EXPECT_EQ(c.arg, "blur=r=3, kmeans='6'");  // the rest of the line, blanks kept
  EXPECT_EQ(commandFrom("VF Toggle Blur").arg, "blur");
  EXPECT_EQ(commandFrom("vf remove 2").vf, VfOp::Remove);
  EXPECT_EQ(commandFrom("preset cycle").change, Change::Cycle);
  EXPECT_EQ(commandFrom("preset cartoon").arg, "cartoon");
  EXPECT_EQ(CompareMode(commandFrom("compare side").value), CompareMode::Side);
  EXPECT_EQ(commandFrom("split -5").change, Change::Add);
  for (const char* bad : {"set k", "set k 1 2", "add k", "add k x", "add k +", "cycle", "vf", "vf set",
                          "vf drop 1", "vf add", "vf remove", "vf toggle 1 2", "preset", "compare up",
                          "split 101", "mode sharpen", "set .k 3"})
    EXPECT_THROW(commandFrom(bad), std::invalid_argument) << bad;
}

TEST(ChainCommands, SetAddCycleAddressElements) {
  Editing e("blur=r=3,kmeans=k=4,kmeans=k=6");
  EXPECT_EQ(e.apply("set k 5"), "kmeans#2 k=5");  // the first element with k
  EXPECT_EQ(e.apply("set 3.k 9"), "kmeans#3 k=9");
  EXPECT_EQ(e.apply("set kmeans#3.k 10"), "kmeans#3 k=10");
  EXPECT_EQ(e.apply("add kmeans.k -1"), "kmeans#2 k=4");
  EXPECT_EQ(e.apply("add blur.r +2"), "blur#1 r=5");
  EXPECT_EQ(e.apply("cycle border"), "blur#1 border=reflect");
  EXPECT_EQ(e.apply("cycle 2.warm"), "kmeans#2 warm=0");
  EXPECT_EQ(e.apply("cycle passes"), "blur#1 passes=2");
  EXPECT_EQ(e.apply("set epsilon 0.5"), "kmeans#2 epsilon=0.5");
  EXPECT_EQ(e.apply("set 2.init uniform"), "kmeans#2 init=uniform");
  EXPECT_FALSE(e.apply("set 2.k 4"));  // already 4: nothing changes
  // describeChain names what differs from the defaults (r=5 is blur's default).
  EXPECT_EQ(e.chain(), "blur=passes=2:border=reflect,kmeans=k=4:epsilon=0.5:init=uniform:warm=0,kmeans=k=10");
  EXPECT_EQ(error(e, "set 1.k 3"), "blur#1 has no option 'k'");
  EXPECT_EQ(error(e, "set kmeans#1.k 3"), "element 1 is blur, not kmeans");
  EXPECT_EQ(error(e, "set 4.k 3"), "no element 4 in the chain (it has 3)");
  EXPECT_EQ(error(e, "set k 40"), "k must be 1..32");
  EXPECT_EQ(error(e, "set border mirror"), "border must be zero, replicate, reflect or wrap");
  EXPECT_EQ(error(e, "add r 0.5"), "r steps by whole numbers");
  EXPECT_EQ(error(e, "cycle epsilon"), "epsilon is a number: use set or add, not cycle");
  EXPECT_EQ(error(e, "set q 1"), "no filter of the chain has option 'q'");
}

TEST(ChainCommands, StepsStayWithinBounds) {
  Editing e("kmeans=k=3,blur=r=1");
  e.apply("add k -5");
  EXPECT_EQ(e.p.chain[0].intValue(kmeans_option::K), 2);  // steps stay at 2 or above
  e.apply("k 1");
  EXPECT_EQ(e.p.chain[0].intValue(kmeans_option::K), 1);  // set takes 1
  e.apply("add k +100");
  EXPECT_EQ(e.p.chain[0].intValue(kmeans_option::K), 32);
  e.apply("radius -9");
  EXPECT_EQ(e.p.chain[1].intValue(blur_option::Radius), 0);
  e.apply("add r +1000");
  EXPECT_EQ(e.p.chain[1].intValue(blur_option::Radius), kMaxBlurRadius);
  e.apply("passes 3");
  e.apply("passes cycle");
  EXPECT_EQ(e.p.chain[1].intValue(blur_option::Passes), 1);
}

TEST(ChainCommands, VfVerbs) {
  Editing e("none");
  EXPECT_EQ(e.apply("vf add blur=r=2"), "chain: blur=r=2");
  EXPECT_EQ(e.apply("vf add kmeans=6"), "chain: blur=r=2,kmeans=k=6");
  EXPECT_EQ(e.apply("vf toggle 1"), "chain: blur=r=2 (off),kmeans=k=6");
  EXPECT_FALSE(e.p.chain[0].enabled());
  EXPECT_EQ(e.apply("vf toggle blur"), "chain: blur=r=2,kmeans=k=6");
  EXPECT_EQ(e.apply("vf remove kmeans"), "chain: blur=r=2");
  EXPECT_EQ(e.apply("vf set kmeans=k=3,blur"), "chain: kmeans=k=3,blur=r=2");  // blur as it last was
  EXPECT_EQ(e.apply("vf remove 1"), "chain: blur=r=2");
  EXPECT_EQ(e.apply("vf set none"), "chain: none");
  EXPECT_FALSE(e.apply("vf set none"));
  EXPECT_EQ(error(e, "vf remove blur"), "no blur in the chain");
  EXPECT_NE(error(e, "vf set blur=q=1").find("at 5: unknown option 'q' of blur"), std::string::npos);
  EXPECT_NE(error(e, "vf add blur,kmeans").find("one filter was expected"), std::string::npos);
  for (int i = 0; i < kMaxChainLength; ++i) e.apply("vf add blur");
  EXPECT_NE(error(e, "vf add blur").find("at most 8"), std::string::npos);
}

TEST(ChainCommands, ShorthandsAndRememberedValues) {
  Editing e("kmeans");
  e.apply("k 5");
  e.apply("iterations 7");
  EXPECT_EQ(e.apply("mode blur"), "chain: blur");
  // Aimed at a filter that is not in the chain: its remembered values change.
  EXPECT_EQ(e.apply("k 9"), "kmeans is not in the chain: k=9 kept for it");
  EXPECT_EQ(e.chain(), "blur");
  e.apply("radius 3");
  EXPECT_EQ(e.apply("mode kmeans"), "chain: kmeans=k=9:iterations=7");
  EXPECT_EQ(e.apply("mode blur"), "chain: blur=r=3");
  EXPECT_EQ(e.apply("param +2"), "blur#1 r=5");  // the first element's main option
  EXPECT_EQ(e.apply("mode none"), "chain: none");
  EXPECT_FALSE(e.apply("param +1"));  // nothing to step
}

TEST(ChainCommands, PresetsCycleInOrder) {
  Editing e("kmeans", {{"soft", "blur=r=2"}, {"cartoon", "blur=r=2,kmeans=k=6"}, {"plain", "none"}});
  EXPECT_EQ(e.editor.presetIndex(), -1);  // the start matched none of them
  EXPECT_EQ(e.apply("preset cycle"), "preset soft: blur=r=2");
  EXPECT_EQ(e.apply("mode cycle"), "preset cartoon: blur=r=2,kmeans=k=6");  // mode cycle = preset cycle
  EXPECT_EQ(e.apply("preset cycle"), "preset plain: none");
  EXPECT_EQ(e.apply("preset cycle"), "preset soft: blur=r=2");
  EXPECT_EQ(e.apply("preset cartoon"), "preset cartoon: blur=r=2,kmeans=k=6");
  EXPECT_EQ(error(e, "preset fancy"), "no preset 'fancy'");
  Editing d("blur");  // the default presets: kmeans, blur, none, as the modes cycled
  EXPECT_EQ(d.apply("preset cycle"), "preset none: none");
  EXPECT_EQ(d.apply("preset cycle"), "preset kmeans: kmeans");
}

TEST(ChainCommands, CompareAndSplit) {
  Editing e("kmeans");
  EXPECT_EQ(e.apply("compare cycle"), "kmeans | compare split 50 %");
  EXPECT_EQ(e.apply("split 30"), "kmeans | compare split 30 %");
  EXPECT_EQ(e.apply("split -40"), "kmeans | compare split 0 %");
  EXPECT_FALSE(e.apply("split -1"));  // already at the edge
  EXPECT_EQ(e.apply("compare side"), "kmeans | compare side");
  EXPECT_EQ(e.apply("compare cycle"), "kmeans");
  EXPECT_EQ(e.p.compare, CompareMode::Off);
}

// --vf and its shorthands, presets and the compare options as parseOptions builds them.
bool parse(std::vector<const char*> args, Options& o, int& code) {
  args.insert(args.begin(), "vidproc");
  return parseOptions(int(args.size()), args.data(), o, code);
}

TEST(ChainOptions, VfAndShorthands) {
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({"--vf", "blur=r=3,kmeans", "-k", "6", "--no-warm"}, o, code));
  EXPECT_EQ(describeChain(o.process.chain), "blur=r=3,kmeans=k=6:warm=0");  // shorthands: the elements' defaults
  Options given;
  ASSERT_TRUE(parse({"--vf", "kmeans=k=4", "-k", "6"}, given, code));
  EXPECT_EQ(describeChain(given.process.chain), "kmeans=k=4");  // the chain's own value wins
  Options none;
  ASSERT_TRUE(parse({"--vf", "none"}, none, code));
  EXPECT_TRUE(none.process.chain.empty());
  Options view;
  ASSERT_TRUE(parse({"--compare", "split", "--split", "25", "--output-view", "shown"}, view, code));
  EXPECT_EQ(view.process.compare, CompareMode::Split);
  EXPECT_FLOAT_EQ(view.process.split, 0.25f);
  EXPECT_EQ(view.outputView, "shown");
  for (std::vector<const char*> bad :
       {std::vector<const char*>{"--vf", "kmeans=q=1"}, {"--vf", "blur", "--mode", "kmeans"}, {"--compare", "up"},
        {"--split", "101"}, {"--output-view", "both"}, {"-r", "129"}, {"--epsilon", "-1"}}) {
    Options b;
    EXPECT_FALSE(parse(bad, b, code)) << bad[0] << " " << bad[1];
    EXPECT_EQ(code, kExitUsage) << bad[0] << " " << bad[1];
  }
}

TEST(ChainOptions, ConfigVfPresetsAndCommandLine) {
  Options o;
  applyConfigText("vf = \"blur=r=2\"\n[presets]\nzz = \"kmeans=k=3\"\naa = \"none\"\n", o);
  EXPECT_EQ(describeChain(o.process.chain), "blur=r=2");
  ASSERT_EQ(o.presets.size(), 2u);
  EXPECT_EQ(o.presets[0].name, "zz");  // the file's order, not the names'
  EXPECT_EQ(o.presets[1].name, "aa");
  EXPECT_THROW(applyConfigText("[presets]\nbad = \"kmeans=k=99\"\n", o), std::runtime_error);
  EXPECT_THROW(applyConfigText("[presets]\nbad = 3\n", o), std::runtime_error);
  // The command line's --mode wins over the config's vf.
  const std::string path = ::testing::TempDir() + "vidproc_chain_config.toml";
  { std::ofstream(path) << "vf = \"blur=r=2\"\n"; }
  Options cli;
  int code = -1;
  ASSERT_TRUE(parse({"--config", path.c_str(), "--mode", "kmeans"}, cli, code));
  EXPECT_EQ(describeChain(cli.process.chain), "kmeans");
}

}  // namespace
}  // namespace vp
