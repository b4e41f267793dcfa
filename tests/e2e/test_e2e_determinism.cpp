// The same input and options give the same output bytes on every run, whatever the
// timing, and the same as the CPU backend: K-means with its default warm starts on a
// clip with a scene cut every 12 frames, at --streams 1..4, software and NVDEC decoding,
// several runs each (the cut decision for frame n is made from frame n-1's result on
// both backends: gpu/filters/kmeans/kmeans_schedule.h). The cuda rows need a GPU; without
// one the CPU backend's own repeatability and the clip's cuts are still checked.
#include "support/clips.h"
#include "support/run_program.h"

#include "gpu/cuda/device_info.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace vp {
namespace {

using test::vidproc;

std::string readBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class E2EDeterminism : public ::testing::Test {
 protected:
  test::TempDir dir;

  // Runs vidproc on `in` with K-means k 8 (default warm starts) into an ffv1 file; returns
  // its bytes, and the frames re-initialised in `reinits`.
  std::string run(const std::string& in, const std::string& tag, const std::vector<std::string>& extra,
                  double* reinits = nullptr) {
    const std::string out = dir.file(tag + ".nut"), json = dir.file(tag + ".json");
    std::vector<std::string> args = {in, "--headless", "--no-progress", "-k", "8", "--codec", "ffv1", "-y",
                                     "-o", out, "--stats-json", json};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::ProgramRun r = test::runProgram(vidproc(), args, dir.path(), 300);
    EXPECT_EQ(r.exitCode, 0) << tag << ":\n" << r.err;
    if (reinits) {
      const nlohmann::json j = nlohmann::json::parse(readBytes(json));
      const nlohmann::json& row = j["chain"][0];
      *reinits = std::round(row["metrics"]["reinit"]["mean"].get<double>() * double(j["frames"]["processed"]));
    }
    return readBytes(out);
  }
};

TEST_F(E2EDeterminism, WarmKmeansAcrossSceneCutsIsTheSameOnEveryRunAndBackend) {
  test::ClipSpec spec;
  spec.width = 640, spec.height = 360, spec.frames = 96, spec.fps = 24;
  spec.codec = "libx264", spec.preset = "veryfast", spec.crf = 12;
  spec.sceneEvery = 12;  // 8 scenes, every second one noisy: 4 cuts the cost test sees
  const std::string in = test::makeClip(dir.file("cuts.mp4"), spec);

  double reinits = 0;
  const std::string reference = run(in, "cpu", {"--backend", "cpu"}, &reinits);
  ASSERT_GT(reference.size(), 10000u);
  // The first frame, and a re-initialisation at each cut into a noisy scene: the runs
  // below really cross scene cuts.
  EXPECT_GE(reinits, 5) << "the clip's scene cuts were not seen";
  EXPECT_EQ(run(in, "cpu2", {"--backend", "cpu"}), reference) << "two cpu runs differ";
  if (cudaDeviceCountOrZero() == 0) GTEST_SKIP() << "no CUDA device: the cuda rows run on the GPU machine";

  for (const char* hwdec : {"no", "auto"})
    for (int streams = 1; streams <= 4; ++streams)
      for (int rep = 0; rep < 3; ++rep) {
        const std::string tag = std::string("cuda-") + hwdec + "-s" + std::to_string(streams) + "-" + std::to_string(rep);
        double cudaReinits = 0;
        const std::string bytes = run(in, tag, {"--backend", "cuda", "--hwdec", hwdec, "--streams",
                                                std::to_string(streams)}, &cudaReinits);
        EXPECT_TRUE(bytes == reference) << tag << ": differs from the cpu backend's output";
        EXPECT_EQ(cudaReinits, reinits) << tag;
      }
}

}  // namespace
}  // namespace vp
