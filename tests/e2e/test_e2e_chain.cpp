// The filter chain through the real vidproc binary: vf commands mid-run change the frames
// exactly where they apply, a bad --vf exits 2 with one line, --vf NAME=help, the JSON's
// chain rows, the compare view in files, and every registered filter on both backends.
// Clips are made in-process (no ffmpeg CLI needed); VP_VIDPROC / VP_E2E_BACKEND as for the
// other end-to-end suites.
#include "gpu/color/color_convert.h"
#include "gpu/color/compare_view.h"
#include "gpu/cuda/device_info.h"
#include "gpu/filters/registry.h"
#include "support/clips.h"
#include "support/run_program.h"
#include "support/running_vidproc.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace vp {
namespace {

using namespace std::chrono_literals;
using test::backend;
using test::readFile;
using test::Running;
using test::vidproc;
using test::waitForFile;

struct E2EChain : ::testing::Test {
  test::TempDir dir;
  std::string still;  // one frame: played with --loop, every frame is the same picture
  std::string clip;   // 12 moving frames
  void SetUp() override {
    test::ClipSpec spec;
    spec.width = 96;
    spec.height = 64;
    spec.frames = 1;
    still = test::makeClip(dir.file("still.mkv"), spec);
    spec.frames = 12;
    spec.seed = 3;
    clip = test::makeClip(dir.file("clip.mkv"), spec);
  }

  // vidproc headless on the backend under test; args are quoted one by one.
  test::ProgramRun run(std::vector<std::string> args, bool withBackend = true) {
    std::vector<std::string> all = {"--headless", "--no-progress", "--log-level", "warn"};
    if (withBackend) all.insert(all.end(), {"--backend", backend()});
    all.insert(all.end(), args.begin(), args.end());
    return test::runProgram(vidproc(), all, dir.path(), 120);
  }

  // The frames of a lossless output as RGBA (through the CPU converter).
  std::vector<HostImage> frames(const std::string& path) {
    std::vector<HostImage> out;
    for (const test::DecodedFrame& f : test::decodeAll(path).frames) {
      const FrameLayout& l = f.info.layout;
      out.emplace_back(l.width, l.height);
      convertToRgbaCpu(planarView(l, f.data.data()), out.back().view(), f.info.color);
    }
    return out;
  }
};

// Largest |difference| of R, G, B over columns [x0, x1) of two frames of one height.
int maxDiff(const HostImage& a, int ax, const HostImage& b, int bx, int width) {
  int worst = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < width; ++x) {
      const uchar4 p = a.at(ax + x, y), q = b.at(bx + x, y);
      worst = std::max({worst, std::abs(p.x - q.x), std::abs(p.y - q.y), std::abs(p.z - q.z)});
    }
  return worst;
}

// Each vf command while paused, then one frame stepped and saved (headless screenshots
// take the next frame processed): that frame must be what a run started with the
// resulting chain shows. The still clip makes every frame the same picture, and K-means
// re-initialises each frame (warm=0) and runs to its fixed point (epsilon 0), so a frame
// depends on its chain alone, not on when it was taken or on the frames before it.
TEST_F(E2EChain, VfCommandsApplyFromTheNextFrame) {
  const std::string kmeans = "kmeans=k=3:iterations=100:epsilon=0:warm=0";
  struct Phase {
    std::string command;  // sent while paused
    std::string chain;    // the chain it leaves
  };
  const std::vector<Phase> phases = {
      {"vf set blur=r=2", "blur=r=2"},
      {"vf add " + kmeans, "blur=r=2," + kmeans},
      {"vf toggle 2", "blur=r=2"},
      {"vf toggle kmeans", "blur=r=2," + kmeans},
      {"set 1.r 4", "blur=r=4," + kmeans},
      {"vf remove kmeans", "blur=r=4"},
      {"vf toggle blur", "none"},
      {"vf set none", "none"},
  };
  Running vp(dir, "'" + still + "' --loop --vf none");
  ASSERT_TRUE(vp.send("pause\nscreenshot " + dir.file("start.png") + "\nstep\n"));
  ASSERT_TRUE(waitForFile(dir.file("start.png"), 20s)) << vp.log();
  std::vector<std::vector<uint8_t>> shots;
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string shot = dir.file("phase" + std::to_string(i) + ".png");
    ASSERT_TRUE(vp.send(phases[i].command + "\nscreenshot " + shot + "\nstep\n"));
    ASSERT_TRUE(waitForFile(shot, 20s)) << phases[i].command << "\n" << vp.log();
    shots.push_back(test::readFileBytes(shot));
  }
  ASSERT_TRUE(vp.send("quit\n"));
  ASSERT_EQ(vp.wait(20s), 0) << vp.log();

  // References: each chain from the start, its first frame saved the same way.
  std::map<std::string, std::vector<uint8_t>> reference;
  for (const Phase& p : phases) {
    if (reference.count(p.chain)) continue;
    test::TempDir refDir;
    const std::string shot = refDir.file("ref.png");
    Running ref(refDir, "'" + still + "' --loop --vf '" + p.chain + "'");
    ASSERT_TRUE(ref.send("pause\nscreenshot " + shot + "\nstep\n"));
    ASSERT_TRUE(waitForFile(shot, 20s)) << p.chain << "\n" << ref.log();
    ASSERT_TRUE(ref.send("quit\n"));
    ASSERT_EQ(ref.wait(20s), 0) << ref.log();
    reference[p.chain] = test::readFileBytes(shot);
  }
  for (size_t i = 0; i < phases.size(); ++i)
    EXPECT_EQ(shots[i], reference[phases[i].chain]) << "after '" << phases[i].command << "' (" << phases[i].chain << ")";
  EXPECT_NE(reference["blur=r=2"], reference["none"]);  // the phases do change the picture
  EXPECT_NE(reference["blur=r=2," + kmeans], reference["blur=r=2"]);
  const std::string log = vp.log();
  EXPECT_EQ(log.find("ignoring"), std::string::npos) << log;
}

TEST_F(E2EChain, BadChainExitsTwoWithOneLine) {
  const test::ProgramRun r = run({clip, "--vf", "blur=r=3,kmeans=q=6"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("at 16: unknown option 'q' of kmeans"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const char* bad : {"blur=r=999", "sharpen", "blur,,kmeans", "kmeans=k=3:k=4"}) {
    const test::ProgramRun b = run({clip, "--vf", bad});
    EXPECT_EQ(b.exitCode, 2) << bad << ": " << b.err;
    EXPECT_NE(b.err.find("--vf"), std::string::npos) << bad << ": " << b.err;
  }
  const test::ProgramRun both = run({clip, "--vf", "blur", "--mode", "kmeans"});
  EXPECT_EQ(both.exitCode, 2) << both.err;
}

TEST_F(E2EChain, FilterHelpListsTheOptions) {
  for (const FilterInfo* f : filterRegistry()) {
    const test::ProgramRun r = run({"--vf", std::string(f->name) + "=help"}, false);
    EXPECT_EQ(r.exitCode, 0) << f->name << ": " << r.err;
    for (int i = 0; i < f->optionCount; ++i)
      EXPECT_NE(r.out.find(std::string("  ") + f->option(i).name + " <"), std::string::npos) << f->name << "\n" << r.out;
  }
  const test::ProgramRun help = run({"--help"}, false);
  EXPECT_NE(help.out.find("Filters (--vf CHAIN"), std::string::npos) << help.out;
}

TEST_F(E2EChain, StatsJsonHasOneRowPerElement) {
  const std::string stats = dir.file("stats.json");
  const test::ProgramRun r = run({clip, "--vf", "blur=r=2,kmeans=k=4", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(readFile(stats));
  ASSERT_EQ(j["chain"].size(), 2u) << j.dump();
  EXPECT_EQ(j["chain"][0]["label"], "blur#1");
  EXPECT_EQ(j["chain"][1]["label"], "kmeans#2");
  EXPECT_EQ(j["chain"][0]["ms"]["frames"], 12);
  EXPECT_EQ(j["chain"][1]["ms"]["frames"], 12);
  EXPECT_GT(j["chain"][1]["metrics"]["iterations"]["mean"].get<double>(), 0);
  EXPECT_EQ(j["params"]["vf"], formatChain(parseChain("blur=r=2,kmeans=k=4")));
  EXPECT_NE(r.out.find("kmeans#2"), std::string::npos) << r.out;  // the summary's row
}

// -o keeps the processed frame unless --output-view shown asks for the comparison.
TEST_F(E2EChain, CompareViewInFiles) {
  const auto encode = [&](const std::string& name, std::vector<std::string> args) {
    const std::string out = dir.file(name);
    args.insert(args.begin(), clip);
    args.insert(args.end(), {"--codec", "ffv1", "-y", "-o", out});
    const test::ProgramRun r = run(args);
    EXPECT_EQ(r.exitCode, 0) << name << ": " << r.err;
    return frames(out);
  };
  const auto original = encode("none.mkv", {"--vf", "none"});
  const auto processed = encode("blur.mkv", {"--vf", "blur=r=3"});
  const auto kept = encode("kept.mkv", {"--vf", "blur=r=3", "--compare", "split"});
  const auto split = encode("split.mkv", {"--vf", "blur=r=3", "--compare", "split", "--split", "40",
                                          "--output-view", "shown"});
  const auto side = encode("side.mkv", {"--vf", "blur=r=3", "--compare", "side", "--output-view", "shown"});
  ASSERT_EQ(original.size(), 12u);
  ASSERT_EQ(processed.size(), 12u);
  ASSERT_EQ(kept.size(), 12u);
  ASSERT_EQ(split.size(), 12u);
  ASSERT_EQ(side.size(), 12u);
  const int w = original[0].width(), column = splitColumn(0.4f, w);
  for (size_t i = 0; i < original.size(); ++i) {
    EXPECT_EQ(maxDiff(kept[i], 0, processed[i], 0, w), 0) << "frame " << i;
    EXPECT_LE(maxDiff(split[i], 0, original[i], 0, column - 1), 1) << "frame " << i;
    EXPECT_LE(maxDiff(split[i], column + 1, processed[i], column + 1, w - column - 1), 1) << "frame " << i;
    ASSERT_EQ(side[i].width(), 2 * w);
    EXPECT_LE(maxDiff(side[i], 0, original[i], 0, w), 1) << "frame " << i;
    EXPECT_LE(maxDiff(side[i], w, processed[i], 0, w), 1) << "frame " << i;
  }
  EXPECT_GT(maxDiff(processed[0], 0, original[0], 0, w), 10);  // the two halves do differ
}

// One row per registered filter: the cuda backend writes the same frames as the cpu one.
TEST_F(E2EChain, EveryFilterSameOnBothBackends) {
  if (cudaDeviceCountOrZero() == 0) GTEST_SKIP() << "no CUDA device: runs on the GPU machine";
  for (const FilterInfo* f : filterRegistry()) {
    std::vector<std::vector<HostImage>> out;
    for (const char* be : {"cpu", "cuda"}) {
      const std::string file = dir.file(std::string(f->name) + "-" + be + ".mkv");
      const test::ProgramRun r =
          run({clip, "--vf", f->name, "--backend", be, "--codec", "ffv1", "-y", "-o", file}, false);
      ASSERT_EQ(r.exitCode, 0) << f->name << " " << be << ": " << r.err;
      out.push_back(frames(file));
    }
    ASSERT_EQ(out[0].size(), 12u) << f->name;
    ASSERT_EQ(out[1].size(), out[0].size()) << f->name;
    for (size_t i = 0; i < out[0].size(); ++i)
      EXPECT_EQ(maxDiff(out[0][i], 0, out[1][i], 0, out[0][i].width()), 0) << f->name << " frame " << i;
  }
}

}  // namespace
}  // namespace vp
