// The real binary on a live UDP stream: it says it runs in low-latency mode, reports
// each frame's latency in the summary and --stats-json, and a stream that never sends
// is a clear one-line error, not a hang.
#include "support/clips.h"
#include "support/run_program.h"
#include "support/stream_pump.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace vp {
namespace {

using test::backend;
using test::vidproc;

TEST(E2ELive, UdpStreamReportsItsLatency) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.width = 320;
  spec.height = 180;
  spec.frames = 90;
  spec.fps = 30;
  spec.codec = "libx264";
  spec.gop = 15;
  test::PumpSpec pump;
  pump.path = test::makeClip(dir.file("stream.ts"), spec);
  pump.seconds = 3;
  pump.passes = 4;
  pump.port = test::freeLocalPort(false);
  test::StreamPump sender(pump);
  const std::string json = dir.file("stats.json");
  const test::ProgramRun run =
      test::runProgram(vidproc(), {"udp://127.0.0.1:" + std::to_string(pump.port), "--headless", "--no-progress",
                                   "--backend", backend(), "--vf", "none", "--frames", "60", "--stats-json", json},
                       dir.path(), 60);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE((run.out + run.err).find("live input (udp stream): low latency"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("latency    p50 "), std::string::npos) << run.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("latency")) << j.dump(2);
  const nlohmann::json& l = j["latency"];
  EXPECT_EQ(l["frames"], 60);
  EXPECT_TRUE(l["live"]);
  EXPECT_GT(double(l["p50_ms"]), 0.0);
  // Decode and a passthrough of 320x180 take milliseconds; a second would mean buffering.
  EXPECT_LT(double(l["p99_ms"]), 1000.0) << l.dump(2);
  EXPECT_LE(double(l["p50_ms"]), double(l["p95_ms"]));
  EXPECT_LE(double(l["p95_ms"]), double(l["p99_ms"]));
  EXPECT_LE(double(l["p99_ms"]), double(l["max_ms"]));
  for (const char* part : {"decode", "queue", "process", "wait", "present"})
    EXPECT_TRUE(l["breakdown_ms"].contains(part)) << part;
}

TEST(E2ELive, SilentStreamIsAClearError) {
  test::TempDir dir;
  const std::string url = "udp://127.0.0.1:" + std::to_string(test::freeLocalPort(false));
  // The default open timeout (10 s), as users get it.
  const test::ProgramRun run = test::runProgram(vidproc(), {url, "--headless", "--backend", backend()}, dir.path(), 40);
  EXPECT_EQ(run.exitCode, 1) << run.err;
  EXPECT_NE(run.err.find("vidproc: '" + url + "': no data for 10 s"), std::string::npos) << run.err;
}

TEST(E2ELive, CtrlCEndsAnOpenWaitingForAStream) {
  test::TempDir dir;
  const std::string url = "udp://127.0.0.1:" + std::to_string(test::freeLocalPort(false));
  const test::ProgramRun run =
      test::runProgram(vidproc(), {url, "--headless", "--backend", backend()}, dir.path(), 30, 2.0);
  EXPECT_FALSE(run.timedOut);
  EXPECT_LT(run.seconds, 8.0);  // the open gives up at once, not after its 10 s
  EXPECT_EQ(run.exitCode, 130) << run.err;
  EXPECT_EQ(run.signal, 0);
  EXPECT_NE(run.err.find("vidproc: interrupted"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace vp
