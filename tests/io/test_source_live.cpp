// Live network inputs (--latency, --reconnect): a UDP MPEG-TS stream is taken as live
// (short probe, unseekable, frames stamped with their packet's arrival), a silent stream
// fails with a clear message instead of hanging, Ctrl-C ends a waiting open, a UDP stream
// plays on after a silence, and a stream that ends (a TCP connection closed) is reopened
// with --reconnect.
#include "io/source.h"
#include "support/clips.h"
#include "support/source_test_util.h"
#include "support/stream_pump.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace vp {
namespace {

using test::ClipSpec;

// 2 s of 320x240 H.264 at 30 fps, a keyframe every 10 frames, in MPEG-TS.
std::string makeStreamClip(test::TempDir& dir) {
  ClipSpec spec;
  spec.width = 320;
  spec.height = 240;
  spec.frames = 60;
  spec.fps = 30;
  spec.codec = "libx264";
  spec.gop = 10;
  return test::makeClip(dir.file("stream.ts"), spec);
}

// The clip sent `passes` times over `protocol` ("udp" or "tcp"), each pass in `seconds`,
// with `pauseS` of silence between passes, to a free local port; `url` names it for the source.
struct Stream {
  test::PumpSpec pump;
  std::string url;
};
Stream stream(test::TempDir& dir, const std::string& protocol, double seconds, int passes, double pauseS = 0) {
  Stream s;
  s.pump.path = makeStreamClip(dir);
  s.pump.seconds = seconds;
  s.pump.passes = passes;
  s.pump.pauseS = pauseS;
  s.pump.tcp = protocol == "tcp";
  s.pump.port = test::freeLocalPort(s.pump.tcp);
  s.url = protocol + "://127.0.0.1:" + std::to_string(s.pump.port) + (s.pump.tcp ? "?listen=1" : "");
  return s;
}

// Frames read until `seconds` pass or `most` arrive; checks each frame's stamps.
int readFrames(FrameQueue& q, double seconds, int most) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int frames = 0;
  while (frames < most && std::chrono::steady_clock::now() < until) {
    HostFrame* f = q.tryPeekReadable();
    if (!f) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (f->info.endOfStream) {
      q.pop();
      break;
    }
    EXPECT_GT(f->info.arrivalUs, 0);
    EXPECT_GE(f->info.decodedUs, f->info.arrivalUs);
    EXPECT_LT(f->info.decodedUs - f->info.arrivalUs, 1'000'000) << "decoded a second after its packet";
    q.pop();
    ++frames;
  }
  return frames;
}

TEST(LiveSource, UdpStreamIsLiveUnseekableAndStampedOnArrival) {
  test::Watchdog dog(60, "udp stream");
  test::TempDir dir;
  const Stream udp = stream(dir, "udp", 2, 3);
  ASSERT_GT(udp.pump.port, 0);
  SourceOptions o;
  o.url = udp.url;
  test::StreamPump sender(udp.pump);
  std::unique_ptr<Source> src = openSource(o);  // waits for the sender's first keyframe
  const SourceInfo info = src->info();
  EXPECT_TRUE(info.live);
  EXPECT_EQ(info.liveReason, "udp stream");
  EXPECT_FALSE(info.seekable);
  EXPECT_FALSE(src->seek(0));
  EXPECT_EQ(info.width, 320);
  FrameQueue q(2, HostAllocator::plain(), true);
  src->start(q);
  EXPECT_GE(readFrames(q, 10, 45), 45);
  src->stop();
  EXPECT_FALSE(sender.failed());
}

TEST(LiveSource, LatencyNormalBuffersAStreamLikeAFile) {
  test::Watchdog dog(60, "udp stream, --latency normal");
  test::TempDir dir;
  const Stream udp = stream(dir, "udp", 2, 3);
  SourceOptions o;
  o.url = udp.url;
  o.latency = LatencyMode::Normal;
  test::StreamPump sender(udp.pump);
  std::unique_ptr<Source> src = openSource(o);
  EXPECT_FALSE(src->info().live);
  EXPECT_EQ(src->info().liveReason, "");
}

TEST(LiveSource, SilentStreamFailsWithAClearMessage) {
  test::Watchdog dog(30, "silent udp stream");
  SourceOptions o;
  o.url = "udp://127.0.0.1:" + std::to_string(test::freeLocalPort(false));
  o.openTimeoutUs = 300'000;
  const auto t0 = std::chrono::steady_clock::now();
  test::expectSourceError(o, "no data for 0.3 s");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(LiveSource, CancelEndsAnOpenThatWaitsForData) {
  test::Watchdog dog(30, "cancelled open");
  SourceOptions o;
  o.url = "udp://127.0.0.1:" + std::to_string(test::freeLocalPort(false));
  const auto t0 = std::chrono::steady_clock::now();
  o.cancel = [t0] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(200); };
  EXPECT_THROW(openSource(o), SourceError);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

// A TCP stream whose connection closes after each pass: with --reconnect the source
// listens again and plays the next pass; without, the stream ends after the first.
int framesOverReconnects(bool reconnect) {
  test::TempDir dir;
  const Stream tcp = stream(dir, "tcp", 1, 2, 0.5);
  SourceOptions o;
  o.url = tcp.url;
  o.latency = LatencyMode::Low;
  o.reconnect = reconnect;
  o.stallTimeoutUs = 2'000'000;
  test::StreamPump sender(tcp.pump);
  std::unique_ptr<Source> src = openSource(o);
  FrameQueue q(8, HostAllocator::plain(), false);  // every frame, to count them
  src->start(q);
  const int frames = readFrames(q, reconnect ? 8 : 4, 120);
  src->stop();
  return frames;
}

TEST(LiveSource, UdpStreamPlaysOnAfterASilence) {
  test::Watchdog dog(60, "udp pause");
  test::TempDir dir;
  // The silence is longer than the stall timeout: a connection would be reopened, udp reads on.
  const Stream udp = stream(dir, "udp", 1, 2, 1.5);
  SourceOptions o;
  o.url = udp.url;
  o.reconnect = true;
  o.stallTimeoutUs = 500'000;
  test::StreamPump sender(udp.pump);
  std::unique_ptr<Source> src = openSource(o);
  FrameQueue q(8, HostAllocator::plain(), false);
  src->start(q);
  const int frames = readFrames(q, 8, 110);
  src->stop();
  EXPECT_GE(frames, 100) << "both passes, the second after the silence";
  EXPECT_EQ(src->fatalError(), "");
}

TEST(LiveSource, ReconnectReopensAStreamThatEnded) {
  test::Watchdog dog(60, "tcp reconnect");
  const int once = framesOverReconnects(false);
  const int twice = framesOverReconnects(true);
  EXPECT_GE(once, 50);
  EXPECT_LE(once, 60);
  EXPECT_GE(twice, once + 50) << "the second pass after the reconnect";
}

}  // namespace
}  // namespace vp
