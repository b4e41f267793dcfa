// Latency bookkeeping (app/player/latency.h, stats): parts add up to the total and are
// never negative; the summary and --stats-json carry the figures; options that steer
// live handling and the window parse as documented.
#include "app/options.h"
#include "app/player/latency.h"
#include "app/player/stats.h"
#include "io/source.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <numeric>

namespace vp {
namespace {

TEST(Latency, PartsAddUpToTheTotal) {
  FrameTrip t;
  t.arrivalUs = 1'000'000;
  t.decodedUs = 1'004'000;
  t.submittedUs = 1'004'500;
  t.processedUs = 1'010'000;
  t.presentedUs = 1'010'200;
  LatencySample s;
  ASSERT_TRUE(latencySample(t, 1'020'000, s));
  EXPECT_DOUBLE_EQ(s.totalMs, 20.0);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Decode)], 4.0);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Queue)], 0.5);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Process)], 5.5);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Wait)], 0.2);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Present)], 9.8);
}

TEST(Latency, MissingOrDisorderedStampsNeverGoNegative) {
  FrameTrip t;
  t.arrivalUs = 500;
  t.decodedUs = 400;      // before arrival (clock read on another thread): clamped
  t.processedUs = 2'500;  // submitted unknown: counts as decoded
  LatencySample s;
  ASSERT_TRUE(latencySample(t, 3'000, s));
  for (double ms : s.partMs) EXPECT_GE(ms, 0.0);
  EXPECT_NEAR(std::accumulate(s.partMs.begin(), s.partMs.end(), 0.0), s.totalMs, 1e-12);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Process)], 2.0);
  EXPECT_DOUBLE_EQ(s.partMs[size_t(LatencyPart::Present)], 0.5);  // presented unknown: from processed
  FrameTrip unknown;  // synthetic input: no arrival, no sample
  EXPECT_FALSE(latencySample(unknown, 3'000, s));
}

TEST(Latency, SummaryAndJsonCarryPercentilesAndBreakdown) {
  RunStats r;
  r.live = true;
  for (int i = 1; i <= 100; ++i) {
    FrameTrip t;
    t.arrivalUs = 1'000'000 * int64_t(i);
    t.decodedUs = t.arrivalUs + 2'000;
    t.submittedUs = t.decodedUs;
    t.processedUs = t.submittedUs + 3'000;
    t.presentedUs = t.processedUs;
    ASSERT_DOUBLE_EQ(r.addLatency(t, t.presentedUs + 1'000 * i), 5.0 + i);  // present 1..100 ms
  }
  EXPECT_EQ(r.latencyMs.count(), 100);
  const nlohmann::json j = nlohmann::json::parse(statsJson(r));
  ASSERT_TRUE(j.contains("latency"));
  const nlohmann::json& l = j["latency"];
  EXPECT_EQ(l["frames"], 100);
  EXPECT_NEAR(double(l["p50_ms"]), 55.0, 55 * 0.012);
  EXPECT_NEAR(double(l["p95_ms"]), 100.0, 100 * 0.012);
  EXPECT_NEAR(double(l["p99_ms"]), 104.0, 104 * 0.012);
  EXPECT_DOUBLE_EQ(double(l["max_ms"]), 105.0);
  EXPECT_TRUE(l["live"]);
  EXPECT_NEAR(double(l["breakdown_ms"]["decode"]["mean_ms"]), 2.0, 1e-9);
  EXPECT_NEAR(double(l["breakdown_ms"]["process"]["mean_ms"]), 3.0, 1e-9);
  EXPECT_NEAR(double(l["breakdown_ms"]["present"]["mean_ms"]), 50.5, 1e-9);
  const std::string summary = formatSummary(r);
  EXPECT_NE(summary.find("latency    p50 "), std::string::npos) << summary;
  EXPECT_NE(summary.find("decode 2.00"), std::string::npos) << summary;
  RunStats none;  // no frame with a known arrival: no latency block
  EXPECT_FALSE(nlohmann::json::parse(statsJson(none)).contains("latency"));
}

TEST(LiveInput, NetworkStreamsAreKnownByTheirScheme) {
  EXPECT_EQ(liveStreamKind("udp://127.0.0.1:23000"), "udp");
  EXPECT_EQ(liveStreamKind("UDP://@239.0.0.1:1234"), "udp");
  EXPECT_EQ(liveStreamKind("rtsp://camera/stream1"), "rtsp");
  EXPECT_EQ(liveStreamKind("srt://host:9000?mode=caller"), "srt");
  EXPECT_EQ(liveStreamKind("rtmp://host/live/key"), "rtmp");
  EXPECT_EQ(liveStreamKind("session.sdp"), "sdp");
  EXPECT_EQ(liveStreamKind("clip.mp4"), "");
  EXPECT_EQ(liveStreamKind("http://host/clip.mp4"), "");  // http(s) is live only as an open-ended HLS
  EXPECT_EQ(liveStreamKind("file:udp://x"), "");
  EXPECT_EQ(liveStreamKind(""), "");
  LatencyMode m = LatencyMode::Auto;
  EXPECT_TRUE(parseLatencyMode("low", m));
  EXPECT_EQ(m, LatencyMode::Low);
  EXPECT_TRUE(parseLatencyMode("normal", m));
  EXPECT_EQ(m, LatencyMode::Normal);
  EXPECT_FALSE(parseLatencyMode("fast", m));
  EXPECT_EQ(m, LatencyMode::Normal);
}

TEST(WindowGeometry, ParsesMpvSpellings) {
  WindowGeometry g;
  ASSERT_TRUE(parseGeometry("1280x720", g));
  EXPECT_EQ(g.width, 1280);
  EXPECT_EQ(g.height, 720);
  EXPECT_FALSE(g.placed);
  ASSERT_TRUE(parseGeometry("640X360+10+20", g));
  EXPECT_EQ(g.width, 640);
  EXPECT_TRUE(g.placed);
  EXPECT_EQ(g.x, 10);
  EXPECT_EQ(g.y, 20);
  ASSERT_TRUE(parseGeometry("+0+0", g));
  EXPECT_EQ(g.width, 0);
  EXPECT_TRUE(g.placed);
  for (const char* bad : {"", "x", "1280", "1280x", "x720", "0x720", "1280x0", "1280x720+5", "1280x720-5-5",
                          "+1+", "1280x720+1+2+3", "99999x720", "12a0x720", "1280x720 "}) {
    WindowGeometry before;
    before.width = 7;
    EXPECT_FALSE(parseGeometry(bad, before)) << bad;
    EXPECT_EQ(before.width, 7) << bad;
  }
}

bool parse(std::vector<const char*> args, Options& o, int& code) {
  args.insert(args.begin(), "vidproc");
  return parseOptions(int(args.size()), args.data(), o, code);
}

TEST(WindowGeometry, OptionsTakeLatencyGeometryAndHud) {
  Options o;
  int code = -1;
  ASSERT_TRUE(parse({"udp://127.0.0.1:1", "--latency", "normal", "--geometry", "800x450+3+4", "--no-hud"}, o, code));
  EXPECT_EQ(o.latency, LatencyMode::Normal);
  EXPECT_EQ(o.geometry.width, 800);
  EXPECT_EQ(o.geometry.height, 450);
  EXPECT_EQ(o.geometry.x, 3);
  EXPECT_FALSE(o.hud);
  Options d;
  ASSERT_TRUE(parse({}, d, code));
  EXPECT_EQ(d.latency, LatencyMode::Auto);
  EXPECT_EQ(d.geometry.width, 0);
  EXPECT_TRUE(d.hud);
  Options bad;
  testing::internal::CaptureStderr();
  EXPECT_FALSE(parse({"--geometry", "big"}, bad, code));
  EXPECT_EQ(code, kExitUsage);
  EXPECT_FALSE(parse({"--latency", "fast"}, bad, code));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("expected WxH, WxH+X+Y or +X+Y, got 'big'"), std::string::npos) << err;
}

}  // namespace
}  // namespace vp
