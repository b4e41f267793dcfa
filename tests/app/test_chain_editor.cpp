// The chain commands (vf, set, add, cycle, preset, mode, the shorthands, compare, split)
// as parseCommand reads them and ChainEditor carries them out (the options that build the
// chain: test_chain_options.cpp).
#include "app/input/chain_editor.h"
#include "app/input/commands.h"
#include "app/options.h"
#include "gpu/filters/blur/blur_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/median/median_filter.h"
#include "gpu/filters/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vp {
namespace {

// An editor and the params it edits, starting from `chain` as a run would (start()).
struct Editing {
  ChainEditor editor;
  ProcessParams p;
  explicit Editing(const char* chain, std::vector<Preset> presets = ChainEditor::defaultPresets(),
                   ElementDefaults base = nullptr)
      : editor(std::move(base), std::move(presets)) {
    p.chain = parseChain(chain);
    editor.start(p.chain);
  }
  std::optional<std::string> apply(const std::string& text) { return editor.apply(commandFrom(text), p); }
  std::string chain() const { return describeChain(p.chain); }
  int value(int element, const char* option) const {
    const FilterElement& e = p.chain[element];
    return e.intValue(e.filter().optionIndex(option));
  }
};

// The registered filters' names, "kmeans, blur, median" (as the messages list them).
std::string filterNames() {
  std::string out;
  for (const FilterInfo* f : filterRegistry()) out += (out.empty() ? "" : ", ") + std::string(f->name);
  return out;
}

// The reason apply() gives for refusing `text` ("(no error)" when it does not refuse).
std::string editError(Editing& e, const std::string& text) {
  try {
    e.apply(text);
  } catch (const std::invalid_argument& bad) {
    return bad.what();
  }
  return "(no error)";
}

// The reason parseCommand gives for refusing `text`.
std::string parseError(const std::string& text) {
  try {
    parseCommand(text);
  } catch (const std::invalid_argument& bad) {
    return bad.what();
  }
  return "(no error)";
}

// ---- parseCommand ----------------------------------------------------------------

TEST(ChainEditor, ParsesTheChainVerbs) {
  Command c = commandFrom("set 2.k 5");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.target, "2");
  EXPECT_EQ(c.option, "k");
  EXPECT_EQ(c.arg, "5");
  c = commandFrom("set kmeans#2.k 5");
  EXPECT_EQ(c.target, "kmeans#2");
  EXPECT_EQ(c.option, "k");
  c = commandFrom("SET Blur.Border WRAP");  // words match case-insensitively
  EXPECT_EQ(c.target, "blur");
  EXPECT_EQ(c.option, "border");
  c = commandFrom("add blur.r -1");
  EXPECT_EQ(c.verb, Verb::Add);
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.target, "blur");
  EXPECT_EQ(c.option, "r");
  EXPECT_EQ(c.step, -1);
  EXPECT_EQ(commandFrom("add k +3").step, 3);
  EXPECT_EQ(commandFrom("add epsilon 0.5").step, 0.5);  // a bare number steps up
  c = commandFrom("cycle border");
  EXPECT_EQ(c.verb, Verb::Cycle);
  EXPECT_EQ(c.change, Change::Cycle);
  EXPECT_EQ(c.target, "");
  EXPECT_EQ(c.option, "border");
  c = commandFrom("cycle kmeans.warm");
  EXPECT_EQ(c.target, "kmeans");
  EXPECT_EQ(c.option, "warm");

  c = commandFrom("vf set blur=r=3, kmeans='6'");
  EXPECT_EQ(c.verb, Verb::Vf);
  EXPECT_EQ(c.vf, VfOp::Set);
  EXPECT_EQ(c.arg, "blur=r=3, kmeans='6'");  // the rest of the line, blanks kept
  c = commandFrom("vf add kmeans=k=3");
  EXPECT_EQ(c.vf, VfOp::Add);
  EXPECT_EQ(c.arg, "kmeans=k=3");
  c = commandFrom("VF Toggle Blur");
  EXPECT_EQ(c.vf, VfOp::Toggle);
  EXPECT_EQ(c.arg, "blur");
  c = commandFrom("vf remove 2");
  EXPECT_EQ(c.vf, VfOp::Remove);
  EXPECT_EQ(c.arg, "2");

  c = commandFrom("preset cycle");
  EXPECT_EQ(c.verb, Verb::Preset);
  EXPECT_EQ(c.change, Change::Cycle);
  c = commandFrom("preset Cartoon");
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.arg, "cartoon");
  c = commandFrom("mode blur");
  EXPECT_EQ(c.verb, Verb::Mode);
  EXPECT_EQ(c.arg, "blur");
  EXPECT_EQ(commandFrom("mode none").arg, "none");
  EXPECT_EQ(commandFrom("mode cycle").change, Change::Cycle);

  // The shorthands name the option they act on.
  for (const auto& [text, target, option] : std::vector<std::tuple<const char*, const char*, const char*>>{
           {"k 5", "kmeans", "k"},
           {"radius +2", "blur", "r"},
           {"passes cycle", "blur", "passes"},
           {"border reflect", "blur", "border"},
           {"iterations 9", "kmeans", "iterations"},
           {"median-r 2", "median", "r"},
           {"sigma 2.5", "gauss", "sigma"},
           {"edges-t -10", "edges", "t"},
           {"edges-overlay", "edges", "overlay"}}) {
    c = commandFrom(text);
    EXPECT_EQ(c.target, target) << text;
    EXPECT_EQ(c.option, option) << text;
  }
  c = commandFrom("k -1");
  EXPECT_EQ(c.verb, Verb::Add);
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.step, -1);
  c = commandFrom("k 1");
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.arg, "1");
  c = commandFrom("k auto");
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.arg, "auto");
  c = commandFrom("param +2");
  EXPECT_EQ(c.verb, Verb::Param);
  EXPECT_EQ(c.value, 2);

  c = commandFrom("compare side");
  EXPECT_EQ(c.verb, Verb::Compare);
  EXPECT_EQ(CompareMode(c.value), CompareMode::Side);
  EXPECT_EQ(commandFrom("compare cycle").change, Change::Cycle);
  EXPECT_EQ(CompareMode(commandFrom("compare off").value), CompareMode::Off);
  c = commandFrom("split -5");
  EXPECT_EQ(c.verb, Verb::Split);
  EXPECT_EQ(c.change, Change::Add);
  EXPECT_EQ(c.value, -5);
  c = commandFrom("split 30");
  EXPECT_EQ(c.change, Change::Set);
  EXPECT_EQ(c.value, 30);

  // They are processing commands, for ChainEditor; the player's are not.
  for (const char* text : {"vf set none", "set k 3", "add k +1", "cycle border", "preset cycle", "mode blur", "k 3",
                           "radius 2", "param +1", "passes 2", "border wrap", "iterations 3", "compare split",
                           "split 20"})
    EXPECT_TRUE(isParamCommand(commandFrom(text))) << text;
  for (const char* text : {"pause", "step", "screenshot", "quit", "seek +5"})
    EXPECT_FALSE(isParamCommand(commandFrom(text))) << text;
}

TEST(ChainEditor, RefusesBadCommandTextsSayingWhy) {
  const std::string modes = "mode must be " + filterNames() + ", none or cycle";
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"set k", "set takes [ELEMENT.]OPTION VALUE"},
      {"set k 1 2", "set takes [ELEMENT.]OPTION VALUE"},
      {"set .k 3", "an element (N, NAME or NAME#N) was expected before '.k'"},
      {"set 2. 3", "an option name was expected after '2.'"},
      {"add k", "add takes [ELEMENT.]OPTION +N|-N"},
      {"add k x", "add step must be +N or -N"},
      {"add k +", "add step must be +N or -N"},
      {"cycle", "cycle takes [ELEMENT.]OPTION"},
      {"cycle k 2", "cycle takes [ELEMENT.]OPTION"},
      {"vf", "vf takes set CHAIN, add FILTER, remove N|NAME or toggle N|NAME"},
      {"vf drop 1", "vf takes set CHAIN, add FILTER, remove N|NAME or toggle N|NAME"},
      {"vf set", "vf set takes a chain (none: the empty chain)"},
      {"vf add", "vf add takes one filter"},
      {"vf remove", "vf remove takes N or NAME"},
      {"vf toggle 1 2", "vf toggle takes N or NAME"},
      {"preset", "preset takes NAME or cycle"},
      {"mode sharpen", modes},
      {"mode", modes},
      {"k 0", "k must be auto|1..32, +N or -N"},
      {"k 33", "k must be auto|1..32, +N or -N"},
      {"k +x", "k step must be +N or -N"},
      {"radius 129", "radius must be 0..128, +N or -N"},
      {"radius", "radius takes one number (radius must be 0..128, +N or -N)"},
      {"passes 4", "passes must be 1..3, +N or -N"},
      {"k-auto maybe", "k-auto takes on, off or toggle"},
      {"auto kmeans.k maybe", "auto takes on, off or toggle"},
      {"auto", "auto takes [ELEMENT.]OPTION [on|off|toggle]"},
      {"border mirror", "border must be zero, replicate, reflect, wrap or cycle"},
      {"param 0", "param takes a step: +N or -N"},
      {"compare up", "compare must be off, split, side or cycle"},
      {"split 101", "split must be 0..100"},
      {"split", "split takes one number (split must be 0..100, +N or -N)"},
      {"sigma", "sigma takes one number (sigma must be 0.3..50, +N or -N)"},
      {"sigma 0.2", "sigma must be 0.3..50, +N or -N"},
      {"sigma 51", "sigma must be 0.3..50, +N or -N"},
      {"sigma wide", "sigma must be 0.3..50, +N or -N"},
      {"sigma +x", "sigma step must be +N or -N"},
      {"sigma +-1", "sigma step must be +N or -N"},
      {"edges-t 256", "edges-t must be 0..255, +N or -N"},
      {"edges-t 2.5", "edges-t must be 0..255, +N or -N"},
      {"edges-overlay maybe", "edges-overlay takes on, off or toggle"},
  };
  for (const auto& [text, why] : cases) EXPECT_EQ(parseError(text), why) << text;
  EXPECT_FALSE(parseCommand("   "));
  EXPECT_FALSE(parseCommand("# vf set none"));
}

// param only steps: a number without a sign must say so, not give an empty range.
TEST(ChainEditor, ParamWithoutASignSaysItTakesAStep) {
  EXPECT_EQ(parseError("param 3"), "param takes a step: +N or -N");
}

// ---- set / add / cycle and element addressing ---------------------------------------

TEST(ChainEditor, SetAddCycleAddressElements) {
  Editing e("blur=r=3,kmeans=k=4,kmeans=k=6");
  EXPECT_EQ(e.apply("set 2.k 5"), "kmeans#2 k=5");
  EXPECT_EQ(e.apply("set kmeans#3.k 5"), "kmeans#3 k=5");
  EXPECT_EQ(e.apply("set kmeans#2.k 7"), "kmeans#2 k=7");
  EXPECT_EQ(e.apply("set k 4"), "kmeans#2 k=4");  // no element: the first that has k
  EXPECT_EQ(e.apply("set kmeans.k 3"), "kmeans#2 k=3");  // a name: the first of that filter
  EXPECT_EQ(e.apply("add blur.r -1"), "blur#1 r=2");
  EXPECT_EQ(e.apply("add 1.r +2"), "blur#1 r=4");
  EXPECT_EQ(e.apply("add kmeans#3.k +1"), "kmeans#3 k=6");
  // cycle: a choice goes round, a switch toggles, a whole number wraps to its lowest step.
  EXPECT_EQ(e.apply("cycle border"), "blur#1 border=reflect");
  EXPECT_EQ(e.apply("cycle border"), "blur#1 border=wrap");
  EXPECT_EQ(e.apply("cycle border"), "blur#1 border=zero");
  EXPECT_EQ(e.apply("cycle border"), "blur#1 border=replicate");
  EXPECT_EQ(e.apply("cycle kmeans.warm"), "kmeans#2 warm=0");
  EXPECT_EQ(e.apply("cycle kmeans.warm"), "kmeans#2 warm=1");
  EXPECT_EQ(e.apply("cycle 3.warm"), "kmeans#3 warm=0");
  EXPECT_EQ(e.apply("cycle kmeans#3.init"), "kmeans#3 init=warm");
  EXPECT_EQ(e.apply("cycle kmeans#3.init"), "kmeans#3 init=uniform");
  EXPECT_EQ(e.apply("cycle passes"), "blur#1 passes=2");
  EXPECT_EQ(e.apply("cycle passes"), "blur#1 passes=3");
  EXPECT_EQ(e.apply("cycle passes"), "blur#1 passes=1");
  EXPECT_EQ(e.apply("set epsilon 0.5"), "kmeans#2 epsilon=0.5");
  EXPECT_EQ(e.apply("add epsilon +0.25"), "kmeans#2 epsilon=0.75");
  EXPECT_EQ(e.apply("set 2.init uniform"), "kmeans#2 init=uniform");
  EXPECT_EQ(e.apply("set blur.border wrap"), "blur#1 border=wrap");
  EXPECT_EQ(e.apply("set 2.warm off"), "kmeans#2 warm=0");
  EXPECT_EQ(e.apply("set 3.seed 7"), "kmeans#3 seed=7");
  // describeChain names what differs from the defaults.
  EXPECT_EQ(e.chain(),
            "blur=r=4:border=wrap,kmeans=k=3:epsilon=0.75:init=uniform:warm=0,kmeans=k=6:init=uniform:warm=0:seed=7");

  EXPECT_EQ(editError(e, "set 1.k 3"), "blur#1 has no option 'k'");
  EXPECT_EQ(editError(e, "set blur.k 3"), "blur#1 has no option 'k'");
  EXPECT_EQ(editError(e, "set kmeans#1.k 3"), "element 1 is blur, not kmeans");
  EXPECT_EQ(editError(e, "set 4.k 3"), "no element 4 in the chain (it has 3)");
  EXPECT_EQ(editError(e, "set 0.k 3"), "no element 0 in the chain (it has 3)");
  EXPECT_EQ(editError(e, "set kmeans#.k 3"), "a position was expected after 'kmeans#'");
  EXPECT_EQ(editError(e, "set q 1"), "no filter of the chain has option 'q'");
  EXPECT_EQ(editError(e, "set k 40"), "k must be auto or 1..32");
  EXPECT_EQ(editError(e, "set k 2.5"), "k must be auto or 1..32");
  EXPECT_EQ(editError(e, "set k 0"), "k must be auto or 1..32");
  EXPECT_EQ(editError(e, "set border mirror"), "border must be zero, replicate, reflect or wrap");
  EXPECT_EQ(editError(e, "set warm maybe"), "warm must be 0 or 1");
  EXPECT_EQ(editError(e, "add r 0.5"), "r steps by whole numbers");
  EXPECT_EQ(editError(e, "cycle epsilon"), "epsilon is a number: use set or add, not cycle");
  // A refused command leaves the chain as it was.
  EXPECT_EQ(e.chain(),
            "blur=r=4:border=wrap,kmeans=k=3:epsilon=0.75:init=uniform:warm=0,kmeans=k=6:init=uniform:warm=0:seed=7");
}

TEST(ChainEditor, StepsStayWithinBoundsSetTakesTheWholeRange) {
  Editing e("kmeans=k=3,blur=r=1");
  EXPECT_EQ(e.apply("add k -5"), "kmeans#1 k=2");  // steps stay within 2..32
  EXPECT_FALSE(e.apply("k -1"));                    // already at the lowest step
  EXPECT_EQ(e.apply("k 1"), "kmeans#1 k=1");        // set takes 1
  EXPECT_EQ(e.apply("set k 1"), std::nullopt);
  EXPECT_EQ(e.apply("k +1"), "kmeans#1 k=2");
  EXPECT_EQ(e.apply("add k +100"), "kmeans#1 k=32");
  EXPECT_FALSE(e.apply("k +1"));
  EXPECT_FALSE(e.apply("add kmeans.k +5"));
  EXPECT_EQ(e.apply("cycle k"), "kmeans#1 k=2");  // cycle wraps at 32 to the lowest step
  EXPECT_EQ(e.apply("radius -9"), "blur#2 r=0");
  EXPECT_FALSE(e.apply("radius -1"));
  EXPECT_EQ(e.apply("add r +1000"), "blur#2 r=" + std::to_string(kMaxBlurRadius));
  EXPECT_EQ(e.apply("passes 3"), "blur#2 passes=3");
  EXPECT_FALSE(e.apply("add passes +1"));
  EXPECT_EQ(e.apply("passes cycle"), "blur#2 passes=1");
  EXPECT_FALSE(e.apply("add passes -1"));
  EXPECT_EQ(e.apply("iterations 0"), "kmeans#1 iterations=0");
  EXPECT_EQ(e.apply("add iterations +5000"), "kmeans#1 iterations=1000");
  EXPECT_EQ(e.apply("add epsilon -7"), "kmeans#1 epsilon=0");
  EXPECT_EQ(editError(e, "set epsilon -1"), "epsilon must be 0..1000000");
  EXPECT_EQ(editError(e, "set r 129"), "r must be 0..128");
  EXPECT_EQ(editError(e, "set passes 0"), "passes must be 1..3");
  EXPECT_EQ(e.value(0, "k"), 2);
  EXPECT_EQ(e.value(1, "r"), kMaxBlurRadius);
}

// ---- vf verbs -----------------------------------------------------------------------

TEST(ChainEditor, VfSetAddRemoveToggle) {
  Editing e("none");
  EXPECT_EQ(e.apply("vf add blur=r=2"), "chain: blur=r=2");
  EXPECT_EQ(e.apply("vf add kmeans=6"), "chain: blur=r=2,kmeans=k=6");  // a bare value fills k
  EXPECT_EQ(e.apply("vf add median"), "chain: blur=r=2,kmeans=k=6,median");
  // toggle by position and by name: off passes its input through, and stays addressable.
  EXPECT_EQ(e.apply("vf toggle 1"), "chain: blur=r=2 (off),kmeans=k=6,median");
  EXPECT_FALSE(e.p.chain[0].enabled());
  EXPECT_EQ(e.p.chain.enabledCount(), 2);
  EXPECT_EQ(e.apply("set blur.r 3"), "blur#1 r=3");
  EXPECT_FALSE(e.p.chain[0].enabled());
  EXPECT_EQ(e.apply("vf toggle blur"), "chain: blur=r=3,kmeans=k=6,median");
  EXPECT_TRUE(e.p.chain[0].enabled());
  EXPECT_EQ(e.apply("vf toggle kmeans"), "chain: blur=r=3,kmeans=k=6 (off),median");
  EXPECT_EQ(e.apply("vf toggle 2"), "chain: blur=r=3,kmeans=k=6,median");
  // remove by name (the first of it) and by position.
  EXPECT_EQ(e.apply("vf remove kmeans"), "chain: blur=r=3,median");
  EXPECT_EQ(e.apply("vf remove 2"), "chain: blur=r=3");
  // set replaces the whole chain; a filter named without options comes as it last was.
  EXPECT_EQ(e.apply("vf set kmeans=k=3,blur"), "chain: kmeans=k=3,blur=r=3");
  EXPECT_EQ(e.apply("vf set blur,blur=r=1"), "chain: blur=r=3,blur=r=1");
  EXPECT_EQ(e.apply("vf remove blur"), "chain: blur=r=1");  // the first blur
  EXPECT_EQ(e.apply("vf remove 1"), "chain: none");
  EXPECT_TRUE(e.p.chain.empty());
  EXPECT_EQ(e.apply("vf set blur=r=2,kmeans=k=4"), "chain: blur=r=2,kmeans=k=4");
  EXPECT_EQ(e.apply("vf set none"), "chain: none");

  EXPECT_EQ(editError(e, "vf remove blur"), "no blur in the chain");
  EXPECT_EQ(editError(e, "vf toggle 1"), "no element 1 in the chain (it has 0)");
  EXPECT_EQ(editError(e, "vf set blur=q=1"),
            "at 5: unknown option 'q' of blur (r, passes, border)");  // the position in the chain text
  EXPECT_EQ(editError(e, "vf set blur,sharpen"), "at 5: unknown filter 'sharpen' (filters: " + filterNames() + ")");
  EXPECT_EQ(editError(e, "vf add blur,kmeans"), "at 4: one filter was expected, not a chain");
  EXPECT_EQ(editError(e, "vf add blur=r=999"), "at 7: blur: r must be 0..128, not '999'");
  EXPECT_TRUE(e.p.chain.empty());
  for (int i = 0; i < kMaxChainLength; ++i) e.apply("vf add blur");
  EXPECT_EQ(editError(e, "vf add blur"), "a chain holds at most 8 filters");
  EXPECT_EQ(e.p.chain.size(), kMaxChainLength);
  EXPECT_EQ(editError(e, "vf remove 9"), "no element 9 in the chain (it has 8)");
}

// ---- shorthands and remembered values -------------------------------------------------

TEST(ChainEditor, ShorthandsActOnTheFirstElementOfTheirFilter) {
  Editing e("kmeans=k=4,blur=r=1,blur=r=2,kmeans=k=6,median");
  EXPECT_EQ(e.apply("k 5"), "kmeans#1 k=5");
  EXPECT_EQ(e.apply("k +2"), "kmeans#1 k=7");
  EXPECT_EQ(e.apply("iterations 9"), "kmeans#1 iterations=9");
  EXPECT_EQ(e.apply("radius 3"), "blur#2 r=3");
  EXPECT_EQ(e.apply("radius -1"), "blur#2 r=2");
  EXPECT_EQ(e.apply("passes 2"), "blur#2 passes=2");
  EXPECT_EQ(e.apply("passes cycle"), "blur#2 passes=3");
  EXPECT_EQ(e.apply("border wrap"), "blur#2 border=wrap");
  EXPECT_EQ(e.apply("border cycle"), "blur#2 border=zero");
  EXPECT_EQ(e.apply("median-r +1"), "median#5 r=2");
  EXPECT_EQ(e.apply("param +1"), "kmeans#1 k=8");  // the first element's main option
  EXPECT_EQ(e.chain(), "kmeans=iterations=9,blur=r=2:passes=3:border=zero,blur=r=2,kmeans=k=6,median=r=2");
  e.apply("vf toggle 1");
  EXPECT_EQ(e.apply("param -1"), "blur#2 r=1");  // the first element that runs
  EXPECT_EQ(e.apply("k 3"), "kmeans#1 k=3");     // a switched-off element is still the first kmeans
}

// sigma takes decimals (set and steps); edges-t steps within 0..255; edges-overlay switches.
TEST(ChainEditor, GaussAndEdgesShorthands) {
  Editing e("gauss,kmeans=k=6,edges");
  EXPECT_EQ(e.apply("sigma 2.5"), "gauss#1 sigma=2.5");
  EXPECT_EQ(e.apply("sigma +0.5"), "gauss#1 sigma=3");
  EXPECT_EQ(e.apply("sigma -10"), "gauss#1 sigma=0.5");  // steps stop at 0.5
  EXPECT_EQ(e.apply("sigma 0.3"), "gauss#1 sigma=0.3");  // set reaches the whole range
  EXPECT_EQ(e.apply("sigma +100"), "gauss#1 sigma=50");
  EXPECT_EQ(e.apply("edges-t +10"), "edges#3 t=90");
  EXPECT_EQ(e.apply("edges-t -200"), "edges#3 t=0");
  EXPECT_EQ(e.apply("edges-t 255"), "edges#3 t=255");
  EXPECT_EQ(e.apply("edges-overlay"), "edges#3 overlay=1");
  EXPECT_FALSE(e.apply("edges-overlay on"));
  EXPECT_EQ(e.apply("edges-overlay toggle"), "edges#3 overlay=0");
  EXPECT_EQ(e.apply("edges-overlay toggle"), "edges#3 overlay=1");
  EXPECT_EQ(e.apply("edges-overlay off"), "edges#3 overlay=0");
  EXPECT_EQ(e.chain(), "gauss=sigma=50,kmeans=k=6,edges=t=255");
  Editing none("blur");
  EXPECT_EQ(none.apply("sigma 4"), "gauss is not in the chain: sigma=4 kept for it");
  EXPECT_EQ(none.apply("vf add gauss"), "chain: blur,gauss=sigma=4");
}

TEST(ChainEditor, ShorthandForAFilterNotInTheChainChangesItsRememberedValues) {
  Editing e("blur=r=2");
  EXPECT_EQ(e.apply("k 9"), "kmeans is not in the chain: k=9 kept for it");
  EXPECT_EQ(e.chain(), "blur=r=2");  // the chain is left as it was
  EXPECT_FALSE(e.apply("k 9"));      // already kept
  EXPECT_EQ(e.apply("k +2"), "kmeans is not in the chain: k=11 kept for it");
  EXPECT_EQ(e.apply("iterations 7"), "kmeans is not in the chain: iterations=7 kept for it");
  EXPECT_EQ(e.apply("set kmeans.warm 0"), "kmeans is not in the chain: warm=0 kept for it");
  EXPECT_EQ(e.apply("median-r 3"), "median is not in the chain: r=3 kept for it");
  EXPECT_EQ(e.chain(), "blur=r=2");
  EXPECT_EQ(e.apply("vf add kmeans"), "chain: blur=r=2,kmeans=k=11:iterations=7:warm=0");
  EXPECT_EQ(e.apply("vf add median"), "chain: blur=r=2,kmeans=k=11:iterations=7:warm=0,median=r=3");
  // With no element named, the option's first filter that holds it, in the chain first.
  EXPECT_EQ(e.apply("set r 4"), "blur#1 r=4");
  Editing m("median");
  EXPECT_EQ(m.apply("radius 6"), "blur is not in the chain: r=6 kept for it");
  EXPECT_EQ(m.apply("set r 2"), "median#1 r=2");
  EXPECT_EQ(m.apply("border wrap"), "blur is not in the chain: border=wrap kept for it");
  EXPECT_EQ(m.apply("mode blur"), "chain: blur=r=6:border=wrap");
  // Out of bounds is refused for a remembered value too.
  EXPECT_EQ(editError(m, "set kmeans.k 40"), "k must be auto or 1..32");
  EXPECT_EQ(editError(m, "set kmeans#2.k 4"), "no element 2 in the chain (it has 1)");
}

TEST(ChainEditor, RememberedValuesSurviveModeSwitches) {
  Editing e("kmeans");
  EXPECT_EQ(e.apply("k 5"), "kmeans#1 k=5");
  EXPECT_EQ(e.apply("mode blur"), "chain: blur");
  EXPECT_EQ(e.apply("mode kmeans"), "chain: kmeans=k=5");
  EXPECT_EQ(e.value(0, "k"), 5);
  e.apply("iterations 7");
  e.apply("mode blur");
  e.apply("radius 3");
  EXPECT_EQ(e.apply("mode none"), "chain: none");
  EXPECT_FALSE(e.apply("param +1"));  // nothing to step
  EXPECT_EQ(e.apply("mode kmeans"), "chain: kmeans=k=5:iterations=7");
  EXPECT_EQ(e.apply("mode blur"), "chain: blur=r=3");
  EXPECT_EQ(e.apply("param +2"), "blur#1 r=5");
  // vf set and a preset bring filters in with their remembered values too.
  EXPECT_EQ(e.apply("vf set kmeans,blur"), "chain: kmeans=k=5:iterations=7,blur");
  EXPECT_EQ(e.apply("preset kmeans"), "preset kmeans: kmeans=k=5:iterations=7");
  // The remembered values start from the editor's base (the command line's shorthands).
  Editing based("none", ChainEditor::defaultPresets(), [](const FilterInfo& f) {
    FilterElement el(f);
    if (&f == &kKmeansFilter) el.set(kmeans_option::K, 6);
    return el;
  });
  EXPECT_EQ(based.apply("mode kmeans"), "chain: kmeans=k=6");
}

// ---- presets ------------------------------------------------------------------------

TEST(ChainEditor, PresetsCycleInTheirOrder) {
  Editing e("kmeans", {{"soft", "blur=r=2"}, {"cartoon", "blur=r=2,kmeans=k=6"}, {"plain", "none"}});
  EXPECT_EQ(e.editor.presetIndex(), -1);  // the start matched none of them
  EXPECT_EQ(e.apply("preset cycle"), "preset soft: blur=r=2");
  EXPECT_EQ(e.editor.presetIndex(), 0);
  EXPECT_EQ(e.apply("mode cycle"), "preset cartoon: blur=r=2,kmeans=k=6");  // mode cycle = preset cycle
  EXPECT_EQ(e.apply("preset cycle"), "preset plain: none");
  EXPECT_EQ(e.apply("preset cycle"), "preset soft: blur=r=2");  // wraps
  EXPECT_EQ(e.apply("preset cartoon"), "preset cartoon: blur=r=2,kmeans=k=6");
  EXPECT_FALSE(e.apply("preset cartoon"));  // the chain it gives is the chain already
  EXPECT_EQ(e.apply("preset cycle"), "preset plain: none");  // on from the preset named
  EXPECT_EQ(editError(e, "preset fancy"), "no preset 'fancy'");
  // A preset that names a filter bare takes its remembered values.
  EXPECT_EQ(e.apply("vf set kmeans=k=3"), "chain: kmeans=k=3");
  EXPECT_EQ(e.editor.presetIndex(), -1);  // vf set: the chain is no preset's
  Editing p("kmeans=k=3", {{"seg", "kmeans"}, {"off", "none"}});
  EXPECT_EQ(p.editor.presetIndex(), 0);  // the start matches "seg" with the start's own k
  EXPECT_EQ(p.apply("preset cycle"), "preset off: none");
  EXPECT_EQ(p.apply("preset cycle"), "preset seg: kmeans=k=3");

  // The default presets are the modes of earlier versions in their order: kmeans, blur, none.
  const std::vector<Preset> d = ChainEditor::defaultPresets();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].name, "kmeans");
  EXPECT_EQ(d[1].name, "blur");
  EXPECT_EQ(d[2].name, "none");
  Editing modes("kmeans");
  EXPECT_EQ(modes.editor.presetIndex(), 0);
  EXPECT_EQ(modes.apply("preset cycle"), "preset blur: blur");
  EXPECT_EQ(modes.apply("preset cycle"), "preset none: none");
  EXPECT_EQ(modes.apply("preset cycle"), "preset kmeans: kmeans");
  Editing none("kmeans", {});
  EXPECT_EQ(editError(none, "preset cycle"), "no presets: name chains in the config's [presets]");
}

// The m key (preset cycle) after a mode key goes on from the chain the mode gave, as the
// mode cycle of earlier versions did (kmeans -> blur -> none): after `mode blur` it gives
// none, it does not re-apply blur and change nothing.
TEST(ChainEditor, PresetCycleAfterModeGoesOnFromTheChainShown) {
  Editing e("kmeans");
  EXPECT_EQ(e.apply("mode blur"), "chain: blur");
  EXPECT_EQ(e.apply("preset cycle"), "preset none: none");
  EXPECT_EQ(e.apply("mode kmeans"), "chain: kmeans");
  EXPECT_EQ(e.apply("mode cycle"), "preset blur: blur");
}

// ---- compare and split --------------------------------------------------------------

TEST(ChainEditor, CompareAndSplit) {
  Editing e("kmeans");
  EXPECT_EQ(e.apply("compare cycle"), "kmeans | compare split 50 %");
  EXPECT_EQ(e.p.compare, CompareMode::Split);
  EXPECT_FALSE(e.apply("compare split"));  // already
  EXPECT_EQ(e.apply("split 30"), "kmeans | compare split 30 %");
  EXPECT_FLOAT_EQ(e.p.split, 0.30f);
  EXPECT_FALSE(e.apply("split 30"));
  EXPECT_EQ(e.apply("split +5"), "kmeans | compare split 35 %");
  EXPECT_EQ(e.apply("split -40"), "kmeans | compare split 0 %");  // clamped to 0..100
  EXPECT_FALSE(e.apply("split -1"));                               // already at the edge
  EXPECT_EQ(e.apply("split +250"), "kmeans | compare split 100 %");
  EXPECT_FALSE(e.apply("split +1"));
  EXPECT_EQ(e.apply("compare cycle"), "kmeans | compare side");
  EXPECT_EQ(e.apply("compare cycle"), "kmeans");
  EXPECT_EQ(e.p.compare, CompareMode::Off);
  EXPECT_EQ(e.apply("compare side"), "kmeans | compare side");
  EXPECT_EQ(e.apply("compare off"), "kmeans");
  EXPECT_FALSE(e.apply("compare off"));
  EXPECT_EQ(e.apply("split 50"), "kmeans");  // the line moves while the view is off
  EXPECT_FLOAT_EQ(e.p.split, 0.5f);
  EXPECT_EQ(e.chain(), "kmeans");  // the chain is untouched
}

// ---- nothing changes ------------------------------------------------------------------

TEST(ChainEditor, NothingChangesWhenACommandSetsTheCurrentValue) {
  Editing e("blur=r=3:border=wrap,kmeans=k=4:warm=0,median=r=2");
  e.apply("compare split");
  const ProcessParams before = e.p;
  for (const char* text :
       {"set 2.k 4", "set kmeans#2.k 4", "set k 4", "k 4", "set blur.r 3", "radius 3", "add r 0", "add k +0",
        "set border wrap", "border wrap", "passes 1", "set warm 0", "set 2.warm off", "iterations 20",
        "set epsilon 0.01", "median-r 2", "set 3.border replicate", "vf set blur=r=3:border=wrap,kmeans=k=4:warm=0,median=r=2",
        "compare split", "split 50", "split +0"}) {
    EXPECT_EQ(e.apply(text), std::nullopt) << text;
    EXPECT_EQ(e.p.chain, before.chain) << text;
    EXPECT_EQ(e.p.compare, before.compare) << text;
    EXPECT_EQ(e.p.split, before.split) << text;
  }
  Editing one("blur");
  EXPECT_FALSE(one.apply("mode blur"));
  EXPECT_FALSE(one.apply("preset blur"));
  EXPECT_FALSE(one.apply("vf set blur"));
  Editing empty("none");
  EXPECT_FALSE(empty.apply("mode none"));
  EXPECT_FALSE(empty.apply("vf set none"));
  EXPECT_FALSE(empty.apply("param +1"));
  // Not a processing command: not the editor's to carry out.
  EXPECT_FALSE(empty.apply("pause"));
  EXPECT_FALSE(empty.apply("screenshot"));
}


}  // namespace
}  // namespace vp
