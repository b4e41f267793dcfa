// The filter chain through the real vidproc binary: vf commands sent mid-run change the
// output file exactly from the frame they apply to, a bad --vf exits 2 with one line
// naming the position, --vf NAME=help, the JSON's chain rows, the compare view in -o
// files, and every registered filter the same on both backends.
//
// Clips are made in-process (support/clips.h) and outputs are lossless ffv1 read back
// through the project's own decoder: no ffmpeg CLI needed. The binary is $VP_VIDPROC or
// the one built beside the tests; VP_E2E_BACKEND picks the backend (cpu).
#include "gpu/color/color_convert.h"
#include "gpu/color/compare_view.h"
#include "gpu/color/pixel_format.h"
#include "gpu/cuda/device_info.h"
#include "gpu/filters/chain.h"
#include "gpu/filters/registry.h"
#include "support/clips.h"
#include "support/run_program.h"
#include "support/running_vidproc.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace vp {
namespace {

using namespace std::chrono_literals;
using test::backend;
using test::readFile;
using test::Running;
using test::vidproc;
using test::waitForFile;

constexpr int kClipFrames = 24;

// One frame of an output file: the decoded bytes as stored and the picture as RGBA.
struct Frame {
  std::vector<uint8_t> raw;
  HostImage rgba;
};

// The frames of a (lossless) video file, decoded by the project's own source and
// converted to RGBA by the CPU converter.
std::vector<Frame> readFrames(const std::string& path) {
  std::vector<Frame> out;
  test::DecodedClip clip = test::decodeAll(path);
  for (test::DecodedFrame& f : clip.frames) {
    const FrameLayout& l = f.info.layout;
    Frame frame{std::move(f.data), HostImage(l.width, l.height)};
    convertToRgbaCpu(planarView(l, frame.raw.data()), frame.rgba.view(), f.info.color);
    out.push_back(std::move(frame));
  }
  return out;
}

// Largest |difference| of R, G, B over columns [ax, ax + width) of `a` and [bx, bx + width)
// of `b` (one height); 0 for an empty range.
int maxDiff(const HostImage& a, int ax, const HostImage& b, int bx, int width) {
  int worst = 0;
  for (int y = 0; y < std::min(a.height(), b.height()); ++y)
    for (int x = 0; x < width; ++x) {
      const uchar4 p = a.at(ax + x, y), q = b.at(bx + x, y);
      worst = std::max({worst, std::abs(p.x - q.x), std::abs(p.y - q.y), std::abs(p.z - q.z)});
    }
  return worst;
}

// Waits until the process has used no CPU for 300 ms: paused with nothing in flight.
bool waitForIdle(const Running& vp, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  double before = vp.cpuSeconds();
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(300ms);
    const double now = vp.cpuSeconds();
    if (now - before < 0.005) return true;
    before = now;
  }
  return false;
}

bool samePicture(const HostImage& a, const HostImage& b) {
  return a.width() == b.width() && a.height() == b.height() && maxDiff(a, 0, b, 0, a.width()) == 0;
}

struct E2EChain : ::testing::Test {
  test::TempDir dir;
  std::string clip;  // 96x64, kClipFrames moving frames, lossless
  void SetUp() override {
    test::ClipSpec spec;
    spec.width = 96;
    spec.height = 64;
    spec.frames = kClipFrames;
    spec.seed = 3;
    spec.codec = "ffv1";
    clip = test::makeClip(dir.file("clip.mkv"), spec);
  }

  // vidproc headless on the backend under test (withBackend); args are quoted one by one.
  test::ProgramRun run(std::vector<std::string> args, bool withBackend = true) {
    std::vector<std::string> all = {"--headless", "--no-progress", "--log-level", "warn"};
    if (withBackend) all.insert(all.end(), {"--backend", backend()});
    all.insert(all.end(), args.begin(), args.end());
    return test::runProgram(vidproc(), all, dir.path(), 120);
  }

  // The clip through `args` into a lossless file `name`; its frames.
  std::vector<Frame> encode(const std::string& name, std::vector<std::string> args, bool withBackend = true) {
    const std::string out = dir.file(name);
    args.insert(args.begin(), clip);
    args.insert(args.end(), {"--codec", "ffv1", "-y", "-o", out});
    const test::ProgramRun r = run(args, withBackend);
    EXPECT_EQ(r.exitCode, 0) << name << ": " << r.err;
    return r.exitCode == 0 ? readFrames(out) : std::vector<Frame>{};
  }
};

// Commands sent while paused, each followed by two stepped frames, into an ffv1 file:
// every frame of the file must be the frame a one-shot run of the chain then in force
// writes for the same input frame, so the output changes exactly at the first frame
// stepped after each command, and stays changed. K-means re-initialises every frame
// (warm=0, a fixed seed), so every filter here depends on its input frame alone and a
// one-shot run is the reference for any frame of the looped input.
TEST_F(E2EChain, VfCommandsMidRunChangeTheOutputFromTheFrameTheyApplyTo) {
  const std::string km = "kmeans=k=3:warm=0";
  struct Phase {
    std::string command;  // sent while paused
    std::string oneShot;  // the --vf whose one-shot run writes the same frames
  };
  const std::vector<Phase> phases = {
      {"vf set blur=r=2", "blur=r=2"},
      {"vf add " + km, "blur=r=2," + km},
      {"vf toggle 1", km},  // blur switched off passes its input through
      {"vf toggle blur", "blur=r=2," + km},
      {"vf remove kmeans", "blur=r=2"},
      {"set 1.r 4", "blur=r=4"},
      {"vf add median=r=2", "blur=r=4,median=r=2"},
      {"vf set none", "none"},
  };
  constexpr int kSteps = 2;  // frames stepped after each command

  const std::string out = dir.file("out.mkv");
  {
    Running vp(dir, "'" + clip + "' --loop --vf none --codec ffv1 -o '" + out + "'");
    // Frames before the pause (and the one stepped here) run the starting chain, none.
    // Once idle nothing is in flight, so each screenshot below comes from its step's frame.
    ASSERT_TRUE(vp.send("pause\n"));
    ASSERT_TRUE(waitForIdle(vp, 30s)) << vp.log();
    ASSERT_TRUE(vp.send("screenshot " + dir.file("paused.png") + "\nstep\n"));
    ASSERT_TRUE(waitForFile(dir.file("paused.png"), 20s)) << vp.log();
    int shot = 0;
    for (const Phase& p : phases)
      for (int s = 0; s < kSteps; ++s) {
        // The screenshot is saved from the frame the step processes: once it is there,
        // that frame has been written and the next command can go.
        const std::string file = dir.file("step" + std::to_string(shot++) + ".png");
        ASSERT_TRUE(vp.send((s == 0 ? p.command + "\n" : std::string()) + "screenshot " + file + "\nstep\n"));
        ASSERT_TRUE(waitForFile(file, 20s)) << p.command << "\n" << vp.log();
      }
    ASSERT_TRUE(vp.send("quit\n"));
    ASSERT_EQ(vp.wait(20s), 0) << vp.log();
    const std::string log = vp.log();
    EXPECT_EQ(log.find("ignoring"), std::string::npos) << log;  // every command was taken
  }

  // The references: each chain from the start, one frame per input frame.
  std::map<std::string, std::vector<Frame>> reference;
  reference["none"] = encode("ref0.mkv", {"--vf", "none"});
  for (const Phase& p : phases)
    if (!reference.count(p.oneShot))
      reference[p.oneShot] = encode("ref" + std::to_string(reference.size()) + ".mkv", {"--vf", p.oneShot});
  for (const auto& [chain, frames] : reference) ASSERT_EQ(frames.size(), size_t(kClipFrames)) << chain;

  const std::vector<Frame> got = readFrames(out);
  const size_t stepped = phases.size() * kSteps;
  ASSERT_GT(got.size(), stepped) << "the file lacks the stepped frames";
  const size_t first = got.size() - stepped;  // frames written before the first command
  RecordProperty("frames_before_the_commands", std::to_string(first));
  for (size_t j = 0; j < first; ++j)
    ASSERT_TRUE(samePicture(got[j].rgba, reference["none"][j % kClipFrames].rgba))
        << "frame " << j << " (before any command) is not the input frame " << j % kClipFrames;
  for (size_t i = 0; i < phases.size(); ++i)
    for (int s = 0; s < kSteps; ++s) {
      const size_t j = first + i * kSteps + size_t(s);
      const auto& want = reference[phases[i].oneShot][j % kClipFrames].rgba;
      EXPECT_TRUE(samePicture(got[j].rgba, want))
          << "frame " << j << ", step " << s + 1 << " after '" << phases[i].command << "': not what --vf '"
          << phases[i].oneShot << "' writes (largest difference "
          << (got[j].rgba.width() == want.width() ? maxDiff(got[j].rgba, 0, want, 0, want.width()) : -1) << ")";
    }
  for (size_t i = 0; i < phases.size(); ++i) {
    // Each command does change the first frame it applies to: the checks above have teeth.
    const size_t j = first + i * kSteps;
    const std::string before = i == 0 ? "none" : phases[i - 1].oneShot;
    EXPECT_FALSE(samePicture(reference[phases[i].oneShot][j % kClipFrames].rgba,
                             reference[before][j % kClipFrames].rgba))
        << "'" << phases[i].command << "' does not change frame " << j;
  }
}

TEST_F(E2EChain, BadVfExitsTwoWithOneLineNamingThePosition) {
  const std::string out = dir.file("never.mkv");
  // Without --log-level: what a user sees.
  const test::ProgramRun r = test::runProgram(
      vidproc(), {"--headless", "--backend", backend(), clip, "--vf", "blur=r=3,kmeans=q=6", "-o", out}, dir.path(), 60);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err,
            "vidproc: --vf: 'blur=r=3,kmeans=q=6' at 16: unknown option 'q' of kmeans (k, iterations, epsilon, "
            "init, warm, seed, view, spatial, kmin, kmax) (see --help)\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(out));  // nothing was started
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"blur=r=999", "at 7: blur: r must be 0..128, not '999'"},
      {"sharpen", "at 0: unknown filter 'sharpen'"},
      {"blur,,kmeans", "at 5: a filter name was expected"},
      {"kmeans=k=3:k=4", "at 11: option 'k' is given twice"},
      {"median=r=0", "at 9: median: r must be 1..15, not '0'"},
  };
  for (const auto& [vf, why] : bad) {
    const test::ProgramRun b = run({clip, "--vf", vf});
    EXPECT_EQ(b.exitCode, 2) << vf << ": " << b.err;
    EXPECT_NE(b.err.find("--vf: '" + vf + "' " + why), std::string::npos) << vf << ": " << b.err;
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << vf << ": " << b.err;
  }
  const test::ProgramRun both = run({clip, "--vf", "blur", "--mode", "kmeans"});
  EXPECT_EQ(both.exitCode, 2) << both.err;
  EXPECT_NE(both.err.find("--vf gives the chain; drop --mode"), std::string::npos) << both.err;
  EXPECT_EQ(std::count(both.err.begin(), both.err.end(), '\n'), 1) << both.err;
}

TEST_F(E2EChain, FilterHelpListsTheOptions) {
  const test::ProgramRun km = run({"--vf", "kmeans=help"}, false);
  EXPECT_EQ(km.exitCode, 0) << km.err;
  EXPECT_EQ(km.err, "");
  EXPECT_NE(km.out.find("k <integer> auto|1..32"), std::string::npos) << km.out;
  EXPECT_NE(km.out.find("default 8"), std::string::npos) << km.out;
  for (const FilterInfo* f : filterRegistry()) {
    const test::ProgramRun r = run({"--vf", std::string(f->name) + "=help"}, false);
    EXPECT_EQ(r.exitCode, 0) << f->name << ": " << r.err;
    EXPECT_EQ(r.out.rfind(std::string(f->name) + ": ", 0), 0u) << r.out;  // starts with the filter's line
    for (int i = 0; i < f->optionCount; ++i)
      EXPECT_NE(r.out.find(std::string("  ") + f->option(i).name + " <"), std::string::npos) << f->name << "\n" << r.out;
  }
  const test::ProgramRun all = run({"--vf", "help"}, false);
  EXPECT_EQ(all.exitCode, 0) << all.err;
  for (const FilterInfo* f : filterRegistry())
    EXPECT_NE(all.out.find(std::string("  ") + f->name + ": "), std::string::npos) << all.out;
  const test::ProgramRun unknown = run({"--vf", "sharpen=help"}, false);
  EXPECT_EQ(unknown.exitCode, 2) << unknown.err;
  const test::ProgramRun help = run({"--help"}, false);
  EXPECT_NE(help.out.find("Filters (--vf CHAIN"), std::string::npos) << help.out;
}

TEST_F(E2EChain, StatsJsonHasOneChainRowPerElement) {
  const std::string stats = dir.file("stats.json");
  const std::string vf = "blur=r=2,kmeans=k=4,kmeans=k=3:warm=0,median";
  const test::ProgramRun r =
      run({clip, "--vf", vf, "--compare", "split", "--split", "30", "--stats-json", stats});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(readFile(stats));
  const nlohmann::json& chain = j["chain"];
  ASSERT_EQ(chain.size(), 4u) << j.dump();
  const char* labels[] = {"blur#1", "kmeans#2", "kmeans#3", "median#4"};
  const char* names[] = {"blur", "kmeans", "kmeans", "median"};
  for (size_t i = 0; i < 4; ++i) {
    const nlohmann::json& row = chain[i];
    EXPECT_EQ(row["label"], labels[i]) << row.dump();
    EXPECT_EQ(row["name"], names[i]) << row.dump();
    EXPECT_EQ(row["enabled"], true) << row.dump();
    ASSERT_TRUE(row.contains("ms")) << row.dump();
    EXPECT_EQ(row["ms"]["frames"], kClipFrames) << row.dump();
    EXPECT_GE(row["ms"]["mean_ms"].get<double>(), 0) << row.dump();
    EXPECT_GE(row["ms"]["max_ms"].get<double>(), row["ms"]["mean_ms"].get<double>()) << row.dump();
    ASSERT_TRUE(row.contains("metrics")) << row.dump();
    if (row["name"] == "kmeans") {
      const nlohmann::json& it = row["metrics"]["iterations"];
      ASSERT_TRUE(it.is_object()) << row.dump();
      EXPECT_GT(it["mean"].get<double>(), 0) << row.dump();
      EXPECT_GE(it["max"].get<double>(), it["mean"].get<double>()) << row.dump();
      EXPECT_GT(it["last"].get<double>(), 0) << row.dump();
      EXPECT_LE(it["max"].get<double>(), 20) << row.dump();  // iterations=20 at most
    } else {
      EXPECT_FALSE(row["metrics"].contains("iterations")) << row.dump();
    }
  }
  EXPECT_EQ(chain[0]["options"]["r"], 2);
  EXPECT_EQ(chain[0]["options"]["passes"], 1);
  EXPECT_EQ(chain[0]["options"]["border"], "replicate");
  EXPECT_EQ(chain[1]["options"]["k"], 4);
  EXPECT_EQ(chain[1]["options"]["warm"], 1);
  EXPECT_EQ(chain[1]["options"]["init"], "kmeans++");
  EXPECT_EQ(chain[2]["options"]["k"], 3);
  EXPECT_EQ(chain[2]["options"]["warm"], 0);
  EXPECT_EQ(chain[3]["options"]["r"], 1);
  EXPECT_EQ(j["params"]["vf"], formatChain(parseChain(vf)));
  EXPECT_EQ(j["params"]["compare"], "split");
  EXPECT_NEAR(j["params"]["split"].get<double>(), 0.3, 1e-6);
  for (const char* label : labels) EXPECT_NE(r.out.find(label), std::string::npos) << r.out;  // the summary's rows

  // The empty chain: no rows, "none".
  const test::ProgramRun none = run({clip, "--vf", "none", "--stats-json", stats});
  ASSERT_EQ(none.exitCode, 0) << none.err;
  const nlohmann::json n = nlohmann::json::parse(readFile(stats));
  EXPECT_TRUE(n["chain"].is_array() && n["chain"].empty()) << n["chain"].dump();
  EXPECT_EQ(n["params"]["vf"], "none");
  EXPECT_EQ(n["params"]["compare"], "off");
}

// -o keeps the processed frame unless --output-view shown asks for the comparison: split
// is the original left of the line, the processed frame right of it, the two columns of
// the line 255; side is twice as wide.
TEST_F(E2EChain, CompareViewInFiles) {
  const auto original = encode("none.mkv", {"--vf", "none"});
  const auto processed = encode("blur.mkv", {"--vf", "blur=r=3"});
  const auto kept = encode("kept.mkv", {"--vf", "blur=r=3", "--compare", "split"});
  const auto keptSide = encode("kept-side.mkv", {"--vf", "blur=r=3", "--compare", "side"});
  const auto split = encode("split.mkv", {"--vf", "blur=r=3", "--compare", "split", "--split", "40",
                                          "--output-view", "shown"});
  const auto side = encode("side.mkv", {"--vf", "blur=r=3", "--compare", "side", "--output-view", "shown"});
  for (const auto* v : {&original, &processed, &kept, &keptSide, &split, &side})
    ASSERT_EQ(v->size(), size_t(kClipFrames));
  const int w = original[0].rgba.width(), h = original[0].rgba.height(), column = splitColumn(0.4f, w);
  ASSERT_EQ(column, 38);  // round(0.4 * 96)
  for (size_t i = 0; i < original.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const HostImage &o = original[i].rgba, &p = processed[i].rgba;
    EXPECT_TRUE(samePicture(kept[i].rgba, p));
    EXPECT_TRUE(samePicture(keptSide[i].rgba, p));
    const HostImage& s = split[i].rgba;
    ASSERT_EQ(s.width(), w);
    ASSERT_EQ(s.height(), h);
    EXPECT_LE(maxDiff(s, 0, o, 0, column - 1), 1);
    EXPECT_EQ(maxDiff(s, column + 1, p, column + 1, w - column - 1), 0);
    for (int y = 0; y < h; ++y)
      for (int x : {column - 1, column}) {
        const uchar4 line = s.at(x, y);
        ASSERT_TRUE(line.x == kCompareLine && line.y == kCompareLine && line.z == kCompareLine)
            << "line pixel (" << x << ", " << y << ") is " << int(line.x) << "," << int(line.y) << "," << int(line.z);
      }
    const HostImage& d = side[i].rgba;
    ASSERT_EQ(d.width(), 2 * w);
    ASSERT_EQ(d.height(), h);
    EXPECT_LE(maxDiff(d, 0, o, 0, w), 1);
    EXPECT_EQ(maxDiff(d, w, p, 0, w), 0);
  }
  EXPECT_GT(maxDiff(processed[0].rgba, 0, original[0].rgba, 0, w), 10);  // the two sides do differ
}

// One row per registered filter: the cuda backend writes the same bytes as the cpu one.
struct E2EChainBackends : E2EChain, ::testing::WithParamInterface<const FilterInfo*> {};

TEST_P(E2EChainBackends, CpuAndCudaWriteTheSameFrames) {
  const FilterInfo& f = *GetParam();
  if (cudaDeviceCountOrZero() == 0) GTEST_SKIP() << "no CUDA device: " << f.name << " cpu = cuda runs on the GPU machine";
  std::vector<std::vector<Frame>> out;
  for (const char* be : {"cpu", "cuda"})
    out.push_back(encode(std::string(f.name) + "-" + be + ".mkv", {"--vf", f.name, "--backend", be}, false));
  ASSERT_EQ(out[0].size(), size_t(kClipFrames));
  ASSERT_EQ(out[1].size(), out[0].size());
  for (size_t i = 0; i < out[0].size(); ++i)
    EXPECT_TRUE(out[0][i].raw == out[1][i].raw)
        << f.name << " frame " << i << ": largest difference "
        << maxDiff(out[0][i].rgba, 0, out[1][i].rgba, 0, out[0][i].rgba.width());
}

INSTANTIATE_TEST_SUITE_P(E2EChain, E2EChainBackends, ::testing::ValuesIn(filterRegistry()),
                         [](const ::testing::TestParamInfo<const FilterInfo*>& info) {
                           return std::string(info.param->name);
                         });

}  // namespace
}  // namespace vp
