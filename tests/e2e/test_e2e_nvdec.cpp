// End-to-end exactness of hardware decoding: vidproc --hwdec nvdec writes the same
// lossless ffv1 file (NUT: no random IDs or dates), byte for byte, as --hwdec no, for
// K-means and blur, on H.264 8-bit
// and HEVC 8- and 10-bit clips at an odd size (1918x1078), across a resolution change
// and across the seeks of --loop; and --hwdec nvdec on an input NVDEC cannot decode is
// a one-line error with exit code 1. Needs the cuda backend: skips without a GPU.
// The binary is $VP_VIDPROC (on the GPU machine ".gpuNN/run build-server/vidproc").
#include "support/clips.h"
#include "support/gpu_test.h"
#include "support/run_program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace vp {
namespace {

using test::vidproc;

struct RunResult {
  int exitCode = -1;
  std::string output;  // stdout + stderr
  std::string err;     // stderr alone
};

RunResult runVidproc(const std::string& args, const std::string& errFile, const std::string& backend = "cuda") {
  const std::string cmd = "timeout 120 " + vidproc() + " --headless --no-progress --backend " + backend + " " + args +
                          " 2>" + errFile;
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream e(errFile);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  r.output += r.err;
  return r;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::string readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Which decoded frames of two outputs differ, and how (for failure messages): each
// differing frame as "index: pts a/b, size a/b, pixels same|differ".
std::string describeDifference(const std::string& a, const std::string& b) {
  const test::DecodedClip x = test::decodeAll(a), y = test::decodeAll(b);
  std::ostringstream os;
  os << x.frames.size() << " vs " << y.frames.size() << " frames";
  int differing = 0;
  std::ostringstream each;
  for (size_t i = 0; i < std::min(x.frames.size(), y.frames.size()); ++i) {
    const auto& p = x.frames[i];
    const auto& q = y.frames[i];
    const bool pixels = p.data == q.data;
    if (pixels && p.info.ptsUs == q.info.ptsUs) continue;
    ++differing;
    each << "\n  " << i << ": pts " << p.info.ptsUs << "/" << q.info.ptsUs << ", " << p.info.layout.width << "x"
         << p.info.layout.height << "/" << q.info.layout.width << "x" << q.info.layout.height << ", pixels "
         << (pixels ? "same" : "differ");
  }
  os << ", " << differing << " differ:" << each.str();
  return os.str();
}

// The lines of `text` that contain any of `words`.
std::string linesWith(const std::string& text, std::initializer_list<const char*> words) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    for (const char* w : words)
      if (line.find(w) != std::string::npos) {
        out += "\n  " + line;
        break;
      }
  return out;
}

struct ClipCase {
  const char* name;
  const char* codec;
  const char* pixFmt;
  const char* ext;
  int changeAt;  // -1: one size throughout
};

class E2ENvdec : public ::testing::TestWithParam<ClipCase> {
 protected:
  test::TempDir dir;
};

TEST_P(E2ENvdec, LosslessOutputEqualsSoftwareDecodingByteForByte) {
  VP_REQUIRE_GPU();
  const ClipCase& c = GetParam();
  test::ClipSpec spec;
  spec.codec = c.codec;
  spec.pixFmt = c.pixFmt;
  spec.width = 1918;
  spec.height = 1078;
  spec.frames = 12;
  spec.preset = "veryfast";
  spec.crf = 24;
  spec.changeAt = c.changeAt;
  spec.changedWidth = 1278;
  spec.changedHeight = 718;
  const std::string in = test::makeClip(dir.file(std::string("in.") + c.ext), spec);
  struct Mode {
    const char* name;
    const char* args;
  };
  // --loop --frames 30: two and a half passes, each restart a seek to the start. K-means
  // with its default warm starts: frame n starts from frame n-1's centres, or
  // re-initialises by frame n-1's cost, whatever the timing (kmeans_schedule.h).
  for (const Mode m : {Mode{"kmeans", "--mode kmeans -k 6 --loop --frames 30"},
                       Mode{"blur", "--mode blur -r 15"}}) {
    SCOPED_TRACE(m.name);
    std::string files[2];
    for (int hw = 0; hw < 2; ++hw) {
      const std::string tag = std::string(m.name) + (hw ? "_nvdec" : "_sw");
      files[hw] = dir.file(tag + ".nut");
      const RunResult r = runVidproc(quote(in) + " " + m.args + " --hwdec " + (hw ? "nvdec" : "no") +
                                         " --codec ffv1 -o " + quote(files[hw]) + " --stats-json " +
                                         quote(dir.file(tag + ".json")),
                                     dir.file(tag + ".err"));
      ASSERT_EQ(r.exitCode, 0) << r.output;
      const nlohmann::json j = nlohmann::json::parse(readAll(dir.file(tag + ".json")));
      EXPECT_EQ(j["decode"]["path"], hw ? "nvdec" : "software") << r.output;
      EXPECT_GT(j["cpu"]["ms_per_frame"].get<double>(), 0.0);
    }
    const std::string a = readAll(files[0]), b = readAll(files[1]);
    EXPECT_GT(a.size(), 1000u);
    if (a == b) continue;
    ADD_FAILURE() << "outputs differ: " << a.size() << " vs " << b.size() << " bytes; " << describeDifference(files[0], files[1]);
    // Tell a decode difference from a pipeline that differs between runs anyway, and
    // show what each path's decoder said about passes, seeks and surfaces.
    const std::string again = dir.file(std::string(m.name) + "_sw2.nut");
    runVidproc(quote(in) + " " + m.args + " --hwdec no --codec ffv1 -o " + quote(again), dir.file("again.err"));
    ADD_FAILURE() << "a second software run " << (readAll(again) == a ? "equals" : "differs from") << " the first: "
                  << describeDifference(files[0], again);
    for (int hw = 0; hw < 2; ++hw) {
      const RunResult r = runVidproc(quote(in) + " " + m.args + " --hwdec " + (hw ? "nvdec" : "no") +
                                         " --log-level debug --codec ffv1 -o " + quote(dir.file("debug.nut")),
                                     dir.file("debug.err"));
      ADD_FAILURE() << (hw ? "nvdec" : "software") << " run's log:"
                    << linesWith(r.output, {"loop", "seek", "slots configured", "decod", "opened"});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Clips, E2ENvdec,
                         ::testing::Values(ClipCase{"h264_8bit", "libx264", "yuv420p", "mp4", -1},
                                           ClipCase{"hevc_8bit", "libx265", "yuv420p", "mkv", -1},
                                           ClipCase{"hevc_10bit", "libx265", "yuv420p10le", "mkv", -1},
                                           ClipCase{"h264_size_change", "libx264", "yuv420p", "ts", 6},
                                           ClipCase{"hevc_8bit_size_change", "libx265", "yuv420p", "ts", 6},
                                           ClipCase{"hevc_10bit_size_change", "libx265", "yuv420p10le", "ts", 6}),
                         [](const ::testing::TestParamInfo<ClipCase>& i) { return std::string(i.param.name); });

// H.264 High 4:4:4: --hwdec nvdec is one line on stderr and exit 1; auto says why once
// and decodes in software.
TEST(E2ENvdecFallback, UnsupportedProfileIsOneLineErrorOrOneNotice) {
  VP_REQUIRE_GPU();
  test::TempDir dir;
  const std::string in = test::makeClip(dir.file("high444.mp4"), test::high444Spec());
  const RunResult required = runVidproc(quote(in) + " --hwdec nvdec --log-level error", dir.file("a.err"));
  EXPECT_EQ(required.exitCode, 1) << required.output;
  EXPECT_NE(required.err.find("--hwdec nvdec: NVDEC cannot decode this stream"), std::string::npos) << required.err;
  EXPECT_EQ(std::count(required.err.begin(), required.err.end(), '\n'), 1) << required.err;
  const RunResult fallback = runVidproc(quote(in) + " --hwdec auto --stats-json " + quote(dir.file("s.json")),
                                        dir.file("b.err"));
  EXPECT_EQ(fallback.exitCode, 0) << fallback.output;
  size_t notices = 0;
  for (size_t at = 0; (at = fallback.output.find("decoding in software", at)) != std::string::npos; ++at) ++notices;
  EXPECT_EQ(notices, 1u) << fallback.output;
  const nlohmann::json j = nlohmann::json::parse(readAll(dir.file("s.json")));
  EXPECT_EQ(j["decode"]["path"], "software");
  EXPECT_EQ(j["frames"]["processed"], 6);
}

// A hardware encoder this machine lacks (the H200 has no NVENC) is one clear line and
// exit code 1, not FFmpeg's generic error. Runs on any machine without NVENC.
TEST(E2ENvenc, MissingHardwareEncoderIsOneClearLine) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.frames = 3;
  const std::string in = test::makeClip(dir.file("in.mkv"), spec);
  const RunResult r = runVidproc(quote(in) + " --codec h264_nvenc -o " + quote(dir.file("out.mp4")) +
                                     " --log-level error",
                                 dir.file("err"), test::backend());
  if (r.exitCode == 0) GTEST_SKIP() << "this machine has NVENC";
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.err.find("cannot open the h264_nvenc encoder: no hardware encoder on this machine"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace vp
