// The bad-input matrix of the real vidproc binary: every way an input or an
// output can be wrong, one case each. A user expects, for each: exit code 1 (not
// a signal, no core dump), exactly one line on stderr, "vidproc: " + the input or
// output named + the reason, within a few seconds, and nothing already on disk
// changed or left behind (no partial output, no temp file).
//
// Damaged but readable files are not errors: like ffmpeg, vidproc decodes what
// it can, exits 0 and reports the damage as decode errors in its summary and
// --stats-json. That holds when the container still describes the stream (a
// Matroska file cut short, bit flips past the headers); when the damage takes
// the index or headers with it (an MP4 cut before its moov atom, a file missing
// its head) nothing is decodable and it is an error like the others.
#include "support/clips.h"
#include "support/run_program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace vp {
namespace {

namespace fs = std::filesystem;
// "Within a few seconds" for a user; the limit allows for a loaded 2-core machine running
// the suite under AddressSanitizer with ctest -j (a hang still ends at the 60 s hard limit).
constexpr double kMaxSeconds = 15;

using test::backend;
using test::vidproc;

// Every file under `dir` (recursively) with its bytes: what must not change.
std::map<std::string, std::vector<uint8_t>> snapshot(const std::string& dir) {
  std::map<std::string, std::vector<uint8_t>> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    files[e.path().string()] =
        e.is_regular_file() ? test::readFileBytes(e.path().string()) : std::vector<uint8_t>{};
  return files;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

test::ClipSpec goodSpec(const std::string& codec) {
  test::ClipSpec spec;
  spec.codec = codec;
  spec.frames = 20;
  spec.width = 96;
  spec.height = 64;
  return spec;
}

// One case: makes its files in `dir` and returns vidproc's arguments.
struct Invocation {
  std::vector<std::string> args;
  std::string named;  // the input or output the message must name
  bool skip = false;  // this libavcodec decodes everything (unsupported codec)
};
struct BadCase {
  const char* name;
  Invocation (*make)(const std::string& dir);
  std::vector<std::string> reasons;  // one of these is in the line
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

Invocation input(const std::string& path) { return {{path}, fs::path(path).filename().string()}; }
std::string good(const std::string& dir, const std::string& ext, const std::string& codec) {
  return test::makeClip(dir + "/good." + ext, goodSpec(codec));
}
Invocation output(const std::string& dir, const std::string& out) {
  return {{good(dir, "mkv", "ffv1"), "--codec", "ffv1", "-o", out}, out};
}

const BadCase kBadCases[] = {
    {"missing",
     [](const std::string& d) { return input(d + "/missing.mp4"); },
     {"No such file or directory"}},
    {"directory",
     [](const std::string& d) {
       fs::create_directory(d + "/clips.mp4");
       return input(d + "/clips.mp4");
     },
     {"is a directory"}},
    {"empty",
     [](const std::string& d) { return input(test::textFile(d + "/empty.mp4", "")); },
     {"file is empty"}},
    {"random_bytes",
     [](const std::string& d) { return input(test::randomBytesFile(d + "/random.mp4", 5000, 3)); },
     {"not a video"}},
    {"text", [](const std::string& d) { return input(test::textFile(d + "/notes.txt")); }, {"not a video"}},
    {"truncated_head",
     [](const std::string& d) {
       return input(test::truncatedCopy(good(d, "mkv", "ffv1"), d + "/head.mkv", 0.7, false));
     },
     {"not a video", "cannot read stream information"}},
    {"truncated_tail_mp4",  // the moov atom (the index) is at the end
     [](const std::string& d) {
       return input(test::truncatedCopy(good(d, "mp4", "libx264"), d + "/tail.mp4", 0.6, true));
     },
     {"not a video"}},
    {"audio_only",
     [](const std::string& d) { return input(test::makeAudioOnly(d + "/tone.wav")); },
     {"no video stream"}},
    {"unsupported_codec",
     [](const std::string& d) {
       Invocation s = input(d + "/undecodable.mkv");
       s.skip = test::makeUndecodable(d + "/undecodable.mkv").empty();
       return s;
     },
     {"unsupported codec"}},
    {"absurd_dimensions",  // a header claiming 12000x9000: refused before anything is allocated
     [](const std::string& d) { return input(test::makeClaimedSize(d + "/huge.mkv", 12000, 9000)); },
     {"frame too large: 12000x9000"}},
    {"nothing_decodable",  // a sound header, then only junk packets
     [](const std::string& d) { return input(test::makeClaimedSize(d + "/junk.mkv", 64, 48)); },
     {"no frame could be decoded"}},
    {"absent_device",
     [](const std::string&) {
       return Invocation{{"--webcam", "/dev/video97"}, "/dev/video97"};
     },
     {"no such capture device", "built without capture-device"}},
    {"output_in_missing_folder",
     [](const std::string& d) { return output(d, d + "/no-such-folder/out.mkv"); },
     {"cannot write", "No such file or directory"}},
    {"output_under_a_file",
     [](const std::string& d) { return output(d, test::textFile(d + "/notes.txt") + "/out.mkv"); },
     {"Not a directory"}},
    {"output_in_proc",
     [](const std::string& d) { return output(d, "/proc/vidproc-test.mkv"); },
     {"cannot write"}},
    {"output_exists_without_y",
     [](const std::string& d) { return output(d, test::textFile(d + "/precious.mkv", "precious\n")); },
     {"exists (use -y to overwrite)"}},
};

class BadInputs : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInputs, OneClearLineExitOneNothingTouched) {
  const BadCase& c = GetParam();
  test::TempDir dir;
  const Invocation s = c.make(dir.path());
  if (s.skip) GTEST_SKIP() << "every video codec Matroska holds is decodable here";
  std::vector<std::string> args = {"--headless", "--no-progress", "--backend", backend()};
  args.insert(args.end(), s.args.begin(), s.args.end());
  const auto before = snapshot(dir.path());
  const test::ProgramRun r = test::runProgram(vidproc(), args, dir.path(), 60);

  EXPECT_FALSE(r.timedOut);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << (r.coreDumped ? " (core dumped)" : "");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_LT(r.seconds, kMaxSeconds);
  const std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].rfind("vidproc: ", 0), 0u) << err[0];
  EXPECT_NE(err[0].find(s.named), std::string::npos) << err[0];
  bool reason = false;
  for (const std::string& why : c.reasons) reason |= err[0].find(why) != std::string::npos;
  EXPECT_TRUE(reason) << err[0];
  EXPECT_TRUE(snapshot(dir.path()) == before) << "files changed, appeared or vanished in " << dir.path();
}

INSTANTIATE_TEST_SUITE_P(Matrix, BadInputs, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

// Damaged but readable: decoded as far as it goes, exit 0, damage counted. The count
// comes from the software decoders (--hwdec no): NVDEC conceals damage inside a slice
// without a word (FFmpeg's hwaccel reports only what its CPU-side header parsing finds),
// so with the cuda backend the hardware path is checked to play the file through.
struct DamagedCase {
  const char* name;
  std::string (*make)(const std::string& dir);  // returns the damaged file
  bool allFrames;                               // every frame still arrives (bit flips) or fewer (cut short)
};
void PrintTo(const DamagedCase& c, std::ostream* os) { *os << c.name; }

const DamagedCase kDamagedCases[] = {
    {"truncated_tail_mkv",
     [](const std::string& d) {
       return test::truncatedCopy(good(d, "mkv", "ffv1"), d + "/cut.mkv", 0.6, true);
     },
     false},
    {"bit_flipped_h264",
     [](const std::string& d) {
       const std::string g = good(d, "mkv", "libx264");
       return test::bitFlippedCopy(g, d + "/flipped.mkv", 40, 9, test::readFileBytes(g).size() / 8);
     },
     true},
};

class DamagedInputs : public ::testing::TestWithParam<DamagedCase> {};

TEST_P(DamagedInputs, DecodeWhatDecodesExitZeroErrorsCounted) {
  const DamagedCase& c = GetParam();
  test::TempDir dir, out;
  const std::string path = c.make(dir.path());
  const std::string json = out.file("stats.json");
  const auto before = snapshot(dir.path());
  const test::ProgramRun r = test::runProgram(
      vidproc(), {"--headless", "--no-progress", "--backend", backend(), "--hwdec", "no", path, "--stats-json", json},
      dir.path(), 60);
  EXPECT_FALSE(r.timedOut);
  EXPECT_EQ(r.signal, 0);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_LT(r.seconds, kMaxSeconds);
  EXPECT_EQ(r.err.find("vidproc: "), std::string::npos) << r.err;
  std::ifstream f(json);
  const nlohmann::json j = nlohmann::json::parse(f);
  const int64_t processed = j["frames"]["processed"];
  EXPECT_GT(processed, 0);
  if (c.allFrames)
    EXPECT_EQ(processed, 20);
  else
    EXPECT_LT(processed, 20);
  EXPECT_GT(j["frames"]["decode_errors"].get<int64_t>(), 0) << r.out;
  EXPECT_NE(r.out.find("decode errors"), std::string::npos) << r.out;
  EXPECT_TRUE(snapshot(dir.path()) == before);
  if (backend() != "cuda") return;
  const test::ProgramRun hw = test::runProgram(
      vidproc(), {"--headless", "--no-progress", "--backend", "cuda", "--hwdec", "auto", path, "--stats-json", json},
      dir.path(), 60);
  EXPECT_FALSE(hw.timedOut);
  EXPECT_EQ(hw.signal, 0);
  ASSERT_EQ(hw.exitCode, 0) << hw.err;
  std::ifstream g(json);
  const int64_t hwProcessed = nlohmann::json::parse(g)["frames"]["processed"];
  EXPECT_GT(hwProcessed, 0) << hw.out;
  EXPECT_LE(hwProcessed, 20) << hw.out;
}

INSTANTIATE_TEST_SUITE_P(Matrix, DamagedInputs, ::testing::ValuesIn(kDamagedCases),
                         [](const ::testing::TestParamInfo<DamagedCase>& i) {
                           return std::string(i.param.name);
                         });

TEST(BadOptions, UsageErrorsExitTwo) {
  test::TempDir dir;
  const test::ProgramRun r = test::runProgram(
      vidproc(), {"--headless", "--backend", backend(), "-k", "99", "x.mp4"}, dir.path(), 30);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err.rfind("vidproc: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace vp
