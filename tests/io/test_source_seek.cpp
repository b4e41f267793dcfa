// FfmpegSource on clips encoded by the test itself: size changes, loop, seek (serials and
// landing), live inputs, stop at any moment.
#include "io/video/color_report.h"
#include "io/video/pixel_format_map.h"
#include "io/video/rotate.h"
#include "io/source.h"
#include "support/source_test_util.h"
#include "support/clips.h"
#include "support/images.h"

#include <gtest/gtest.h>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <thread>

namespace vp {
namespace {

using test::ClipSpec;
using test::DecodedClip;
using test::diff;
using test::Diff;
using test::expectSourceError;
using test::file;
using test::firstFresh;
using test::ptsOf;

TEST(Source, ResolutionChangeMidStream) {
  test::Watchdog dog(60, "resolution change");
  test::TempDir dir;
  for (const auto& [codec, ext] : {std::pair{"mjpeg", "avi"}, std::pair{"libx264", "ts"}}) {
    SCOPED_TRACE(codec);
    ClipSpec spec;
    spec.codec = codec;
    spec.frames = 10;
    spec.changeAt = 4;
    spec.changedWidth = 48;
    spec.changedHeight = 32;
    const std::string path = test::makeClip(dir.file(std::string("change.") + ext), spec);
    const DecodedClip d = test::decodeAll(path);
    EXPECT_TRUE(d.endOfStream);
    ASSERT_EQ(d.frames.size(), 10u);
    for (int i = 0; i < 10; ++i) {
      const FrameInfo& f = d.frames[size_t(i)].info;
      const int w = i < 4 ? 64 : 48, h = i < 4 ? 48 : 32;
      EXPECT_EQ(f.layout.width, w) << "frame " << i;
      EXPECT_EQ(f.layout.height, h) << "frame " << i;
      EXPECT_EQ(f.layout.bytes, frameLayout(f.layout.format, w, h).bytes);
      EXPECT_EQ(d.frames[size_t(i)].data.size(), f.layout.bytes);
      EXPECT_NEAR(double(f.ptsUs), double(ptsOf(i, spec.fps)), 1.0);
    }
    EXPECT_EQ(d.info.width, 48);  // info follows the latest frame
    EXPECT_EQ(d.info.height, 32);
  }
}

TEST(Source, LoopKeepsPtsIncreasing) {
  test::Watchdog dog(60, "loop");
  test::TempDir dir;
  ClipSpec spec;
  spec.frames = 5;
  const std::string path = test::makeClip(dir.file("loop.mkv"), spec);
  SourceOptions o;
  o.url = path;
  o.loop = true;
  const DecodedClip d = test::decodeAll(o, true, 17);
  ASSERT_EQ(d.frames.size(), 17u);
  EXPECT_FALSE(d.endOfStream);
  for (int i = 0; i < 17; ++i) {
    EXPECT_NEAR(double(d.frames[size_t(i)].info.ptsUs), double(ptsOf(i, spec.fps)), 1.0) << "frame " << i;
    EXPECT_EQ(d.frames[size_t(i)].data, d.frames[size_t(i % 5)].data) << "frame " << i;
  }
}

// Every pass of a loop gives the same frames at evenly spaced times, across a size
// change and after the decoder was drained at the end of each pass, with frame threads
// and with one decoder thread (the configuration of the hardware decoder).
TEST(Source, LoopAcrossASizeChangeRepeatsEachPass) {
  test::Watchdog dog(120, "loop across a size change");
  test::TempDir dir;
  for (const char* codec : {"libx264", "libx265"}) {
    ClipSpec spec;
    spec.codec = codec;
    spec.pixFmt = "yuv420p10le";
    spec.width = 66;
    spec.height = 38;
    spec.frames = 8;
    spec.changeAt = 4;
    spec.changedWidth = 34;
    spec.changedHeight = 22;
    const std::string path = test::makeClip(dir.file(std::string(codec) + ".ts"), spec);
    for (int threads : {0, 1}) {
      SCOPED_TRACE(std::string(codec) + ", decoder threads " + std::to_string(threads));
      SourceOptions o = file(path);
      o.loop = true;
      o.decoderThreads = threads;
      const DecodedClip d = test::decodeAll(o, true, 20);
      ASSERT_EQ(d.frames.size(), 20u);
      for (size_t i = 0; i < d.frames.size(); ++i) {
        const FrameInfo& f = d.frames[i].info;
        EXPECT_NEAR(double(f.ptsUs), double(ptsOf(int(i), spec.fps)), 1.0) << "frame " << i;
        EXPECT_EQ(f.layout.width, i % 8 < 4 ? 66 : 34) << "frame " << i;
        EXPECT_TRUE(d.frames[i].data == d.frames[i % 8].data) << "frame " << i;
      }
    }
  }
}


// Seeks land on their target in indexed containers and in MPEG-TS (no index; its
// timestamp search can land past the keyframe the target needs).
TEST(Source, SeekBumpsSerialAndLandsOnTarget) {
  test::Watchdog dog(120, "seek");
  test::TempDir dir;
  for (const auto& [codec, ext] : {std::pair{"libx264", "mp4"}, std::pair{"libx265", "mkv"},
                                   std::pair{"libx264", "ts"}, std::pair{"libx265", "ts"}}) {
    SCOPED_TRACE(std::string(codec) + " in ." + ext);
    ClipSpec spec;
    spec.codec = codec;
    spec.frames = 50;
    spec.gop = 12;
    const std::string path = test::makeClip(dir.file(std::string("seek.") + ext), spec);
    FrameQueue q(3, HostAllocator::plain());  // outlives src
    std::unique_ptr<Source> src = openSource(file(path));
    src->start(q);
    for (int i = 0; i < 2; ++i) {
      ASSERT_NE(q.peekReadable(), nullptr);
      q.pop();
    }
    for (const auto& [target, serial] :
         {std::pair{1'400'000, 1u}, std::pair{200'000, 2u}, std::pair{1'000'000, 3u}, std::pair{1'840'000, 4u}}) {
      SCOPED_TRACE("seek to " + std::to_string(target));
      ASSERT_TRUE(src->seek(target));
      EXPECT_EQ(src->serial(), serial);
      const HostFrame* f = firstFresh(q, *src);
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(f->info.serial, serial);
      EXPECT_FALSE(f->info.endOfStream);
      EXPECT_NEAR(double(f->info.ptsUs), target, 1.0);  // accurate: decoded up to the target
      const std::vector<uint8_t> expected = test::clipFrameRaw(spec, target / 40000);
      EXPECT_LE(diff(std::vector<uint8_t>(f->data(), f->data() + f->info.layout.bytes), expected).mean, 2.0);
      q.pop();
    }
    // Seek after the end of the stream: the decode thread waits for it.
    for (;;) {
      HostFrame* f = q.peekReadable();
      ASSERT_NE(f, nullptr);
      const bool eos = f->info.endOfStream;
      q.pop();
      if (eos) break;
    }
    ASSERT_TRUE(src->seek(0));
    const HostFrame* f = firstFresh(q, *src);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->info.ptsUs, 0);
    src->stop();
  }
}

TEST(Source, NothingDecodableIsAnErrorAndSeeksStillEnd) {
  test::Watchdog dog(60, "nothing decodable");
  test::TempDir dir;
  const std::string path = test::makeClaimedSize(dir.file("junk.mkv"), 64, 48);
  FrameQueue q(2, HostAllocator::plain());  // outlives src
  std::unique_ptr<Source> src = openSource(file(path));
  src->start(q);
  for (int round = 0; round < 3; ++round) {
    HostFrame* f = q.peekReadable();
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->info.endOfStream) << "round " << round;
    EXPECT_EQ(f->info.serial, src->serial());
    q.pop();
    EXPECT_NE(src->fatalError().find("'" + path + "': no frame could be decoded ("), std::string::npos)
        << src->fatalError();
    ASSERT_TRUE(src->seek(0));
  }
  src->stop();
}

// Found by fuzzing: seeking past the end of a stream that had ended with an
// error made the decode thread exit without an end-of-stream marker, and the
// consumer waited forever. Every seek, however often, ends with its marker.
TEST(Source, SeekNeverLosesTheFreshEndOfStream) {
  test::Watchdog dog(120, "seek past the end");
  test::TempDir dir;
  ClipSpec spec;
  spec.frames = 2;
  spec.width = 8;
  spec.height = 8;
  FrameQueue q(2, HostAllocator::plain());  // outlives src
  std::unique_ptr<Source> src = openSource(file(test::makeClip(dir.file("short.mkv"), spec)));
  src->start(q);
  for (int round = 0; round < 300; ++round) {
    ASSERT_TRUE(src->seek(5'000'000 + round));  // past the end: no frame, only the marker
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    bool end = false;
    while (!end && std::chrono::steady_clock::now() < deadline) {
      HostFrame* f = q.tryPeekReadable();
      if (!f) {
        std::this_thread::yield();
        continue;
      }
      end = f->info.endOfStream && f->info.serial == src->serial();
      q.pop();
    }
    ASSERT_TRUE(end) << "no end-of-stream marker after seek " << round;
  }
  src->stop();
}

TEST(Source, LiveInputsAreNotSeekable) {
  test::TempDir dir;
  const std::string path = test::makeClip(dir.file("live.mkv"), ClipSpec{});
  SourceOptions o;
  o.url = path;
  o.latency = LatencyMode::Low;
  std::unique_ptr<Source> src = openSource(o);
  EXPECT_FALSE(src->info().seekable);
  EXPECT_FALSE(src->seek(0));
  EXPECT_EQ(src->serial(), 0u);
}

TEST(Source, StopAtRandomMomentsNeverHangs) {
  test::Watchdog dog(60, "stop at random moments");
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = "libx264";
  spec.frames = 40;
  const std::string path = test::makeClip(dir.file("stop.mp4"), spec);
  test::SplitMix64 rng(7);
  for (int round = 0; round < 25; ++round) {
    FrameQueue q(1 + int(rng.next() % 3), HostAllocator::plain(), rng.next() % 4 == 0);  // outlives src
    std::unique_ptr<Source> src = openSource(file(path));
    src->start(q);
    const int consume = int(rng.next() % 50);  // may be past the end: then wait at EOS
    for (int i = 0; i < consume; ++i) {
      HostFrame* f = q.tryPeekReadable();
      if (f) q.pop();
      if (rng.next() % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng.next() % 500));
    }
    if (round % 5 == 1) src->seek(int64_t(rng.next() % 1'600'000));
    if (round % 2) src->stop();
    if (round % 4 == 3) src->stop();  // twice
  }  // the destructor stops the rest
}

TEST(Source, OpenedButNeverStartedIsDestroyedCleanly) {
  test::TempDir dir;
  const std::string path = test::makeClip(dir.file("idle.mkv"), ClipSpec{});
  std::unique_ptr<Source> src = openSource(file(path));
  src->stop();
}
}  // namespace
}  // namespace vp
