// FfmpegSource on bad, damaged and in-memory inputs: clear errors, truncated and bit-flipped
// streams, memory input, frames too large.
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

TEST(Source, BadInputsAreClearErrors) {
  test::TempDir dir;
  expectSourceError(dir.file("missing.mp4"), "cannot open '" + dir.file("missing.mp4") + "': No such file or directory");
  expectSourceError(dir.path() + "/", "is a directory");
  expectSourceError(test::textFile(dir.file("empty.mp4"), ""), "file is empty");
  expectSourceError(test::randomBytesFile(dir.file("junk.bin"), 50000, 3), "");
  expectSourceError(test::randomBytesFile(dir.file("junk.mp4"), 4096, 4), "");
  expectSourceError(test::textFile(dir.file("notes.txt")), "not a video");
  expectSourceError(test::textFile(dir.file("notes.mkv"), std::string(2000, 'x')), "");
  expectSourceError(test::makeAudioOnly(dir.file("tone.wav")), "no video stream");
  expectSourceError(test::makeAudioOnly(dir.file("tone.mka")), "no video stream");

  ClipSpec spec;
  spec.codec = "libx264";
  spec.frames = 12;
  const std::string mp4 = test::makeClip(dir.file("good.mp4"), spec);
  expectSourceError(test::truncatedCopy(mp4, dir.file("head.mp4"), 0.5, true), "");  // moov is at the end
  expectSourceError(test::truncatedCopy(mp4, dir.file("tail.mp4"), 0.5, false), "");
  const std::string mkv = test::makeClip(dir.file("good.mkv"), ClipSpec{});
  expectSourceError(test::truncatedCopy(mkv, dir.file("tail.mkv"), 0.7, false), "");

  const std::string undecodable = dir.file("undecodable.mkv");
  const std::string codec = test::makeUndecodable(undecodable);
  if (!codec.empty()) expectSourceError(undecodable, "unsupported codec '" + codec + "'");

  SourceOptions o;
  o.url = dir.file("good.mkv");
  o.format = "no_such_format";
  expectSourceError(o, "unknown input format 'no_such_format'");
}

TEST(Source, BuiltWithoutDevicesSaysSo) {
  // vp_tests links vp_io_nodevices.
  SourceOptions v4l2;
  v4l2.url = "/dev/video9";
  v4l2.format = "v4l2";
  expectSourceError(v4l2, "built without capture-device/lavfi support");
  expectSourceError(defaultSourceOptions(), "built without capture-device/lavfi support");
  expectSourceError(file("/dev/video0"), "built without capture-device/lavfi support");
}

TEST(Source, DefaultInputIsALavfiGraph) {
  const SourceOptions o = defaultSourceOptions();
  EXPECT_EQ(o.format, "lavfi");
  EXPECT_NE(o.url.find("d=20"), std::string::npos);
  EXPECT_FALSE(o.loop);
}

// A truncated file decodes what is there and ends normally.
TEST(Source, TruncatedFileDecodesWhatIsThere) {
  test::Watchdog dog(60, "truncated");
  test::TempDir dir;
  ClipSpec spec;
  spec.frames = 20;
  spec.width = 96;
  spec.height = 64;
  const std::string mkv = test::makeClip(dir.file("t.mkv"), spec);
  const DecodedClip d = test::decodeAll(test::truncatedCopy(mkv, dir.file("half.mkv"), 0.6, true));
  EXPECT_TRUE(d.endOfStream);
  EXPECT_TRUE(d.fatalError.empty());
  EXPECT_GT(d.frames.size(), 5u);
  EXPECT_LT(d.frames.size(), 20u);
}

// Damaged streams: decode what decodes, count the errors, never crash or hang.
TEST(Source, BitFlippedStreamsDecodeWithErrorsCounted) {
  test::Watchdog dog(120, "bit flips");
  test::TempDir dir;
  struct Case {
    const char* codec;
    const char* ext;
  };
  for (const Case& c : {Case{"mpeg4", "avi"}, Case{"libx264", "mkv"}, Case{"mjpeg", "avi"}, Case{"ffv1", "nut"}}) {
    SCOPED_TRACE(c.codec);
    ClipSpec spec;
    spec.codec = c.codec;
    spec.frames = 24;
    spec.width = 96;
    spec.height = 64;
    const std::string good = test::makeClip(dir.file(std::string("good_") + c.codec + "." + c.ext), spec);
    const size_t size = test::readFileBytes(good).size();
    int64_t errors = 0, frames = 0;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const std::string bad = test::bitFlippedCopy(good, dir.file("bad." + std::string(c.ext)), 40, seed, size / 8);
      try {
        const DecodedClip d = test::decodeAll(bad, false, 100000, 20);
        EXPECT_TRUE(d.endOfStream);
        errors += d.stats.decodeErrors;
        frames += int64_t(d.frames.size());
      } catch (const SourceError& e) {  // damage in the headers: still a clean error
        EXPECT_NE(std::string(e.what()).find("bad."), std::string::npos);
      }
    }
    EXPECT_GT(frames, 0);
    EXPECT_GT(errors, 0);
  }
}

// Fuzzing found a stream whose colour matrix code (126) is outside AVColorSpace:
// such values read as unspecified (BT.601, limited range for YUV), never as
// undefined behaviour (the asan preset's UBSan checks the enum loads).
TEST(Source, MemoryInputGivesTheSameFramesAsTheFile) {
  test::Watchdog dog(60, "memory input");
  test::TempDir dir;
  struct Case {
    const char* codec;
    const char* pixFmt;
    const char* ext;
  };
  for (const Case& c : {Case{"libx264", "yuv420p", "mp4"}, Case{"ffv1", "yuv444p", "mkv"},
                        Case{"mjpeg", "yuv422p", "avi"}, Case{"rawvideo", "rgb24", "nut"}}) {
    SCOPED_TRACE(c.codec);
    ClipSpec spec;
    spec.codec = c.codec;
    spec.pixFmt = c.pixFmt;
    spec.width = 40;
    spec.height = 30;
    spec.frames = 6;
    const std::string path = test::makeClip(dir.file(std::string("m.") + c.ext), spec);
    SourceOptions mem;
    mem.url = "clip from memory";
    mem.memory = std::make_shared<const std::vector<uint8_t>>(test::readFileBytes(path));
    const DecodedClip fromFile = test::decodeAll(path), fromMemory = test::decodeAll(mem);
    EXPECT_TRUE(fromMemory.endOfStream);
    EXPECT_EQ(fromMemory.info.url, mem.url);
    EXPECT_EQ(fromMemory.info.codec, fromFile.info.codec);
    EXPECT_EQ(fromMemory.info.seekable, fromFile.info.seekable);
    EXPECT_EQ(fromMemory.stats.decodeErrors, 0);
    ASSERT_EQ(fromMemory.frames.size(), size_t(spec.frames));
    ASSERT_EQ(fromFile.frames.size(), size_t(spec.frames));
    for (size_t i = 0; i < fromFile.frames.size(); ++i) {
      EXPECT_EQ(fromMemory.frames[i].info.ptsUs, fromFile.frames[i].info.ptsUs) << "frame " << i;
      EXPECT_EQ(fromMemory.frames[i].info.layout.format, fromFile.frames[i].info.layout.format);
      EXPECT_EQ(fromMemory.frames[i].data, fromFile.frames[i].data) << "frame " << i;
    }
  }
}

TEST(Source, MemoryInputSeeks) {
  test::Watchdog dog(60, "memory seek");
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = "libx264";
  spec.frames = 30;
  spec.gop = 10;
  SourceOptions mem;
  mem.url = "memory.mp4";
  mem.memory = std::make_shared<const std::vector<uint8_t>>(
      test::readFileBytes(test::makeClip(dir.file("s.mp4"), spec)));
  FrameQueue q(3, HostAllocator::plain());  // outlives src
  std::unique_ptr<Source> src = openSource(mem);
  src->start(q);
  ASSERT_TRUE(src->seek(800'000));
  const HostFrame* f = firstFresh(q, *src);
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(double(f->info.ptsUs), 800'000, 1.0);
  EXPECT_LE(
      diff(std::vector<uint8_t>(f->data(), f->data() + f->info.layout.bytes), test::clipFrameRaw(spec, 20))
          .mean,
      2.0);
  src->stop();
}

TEST(Source, BadMemoryInputsAreClearErrors) {
  test::TempDir dir;
  SourceOptions o;
  o.url = "bytes";
  o.memory = std::make_shared<const std::vector<uint8_t>>();
  expectSourceError(o, "input is empty");
  o.memory = std::make_shared<const std::vector<uint8_t>>(test::randomBytes(5000, 11));
  expectSourceError(o, "");
  // A playlist naming a real file: a memory input may not open other files.
  ClipSpec spec;
  spec.codec = "libx264";
  const std::string ts = test::makeClip(dir.file("segment.ts"), spec);
  ASSERT_EQ(test::decodeAll(ts, false).frames.size(), size_t(spec.frames));
  const std::string m3u8 = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n" + ts + "\n#EXT-X-ENDLIST\n";
  o.url = "list.m3u8";
  o.memory = std::make_shared<const std::vector<uint8_t>>(m3u8.begin(), m3u8.end());
  expectSourceError(o, "");
}

// A header announcing a huge picture is refused up front; larger frames later in
// the stream are decode errors, never allocated.
TEST(Source, TooLargeFramesAreRefused) {
  test::Watchdog dog(60, "too large");
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = "mjpeg";
  spec.frames = 8;
  spec.changeAt = 4;
  spec.changedWidth = 96;
  spec.changedHeight = 64;
  const std::string path = test::makeClip(dir.file("grow.avi"), spec);
  SourceOptions o = file(path);
  o.maxPixels = 64 * 48 - 1;
  expectSourceError(o, "frame too large: 64x48 (at most 3071 pixels)");
  o.maxPixels = 64 * 48;
  const DecodedClip d = test::decodeAll(o);
  EXPECT_TRUE(d.endOfStream);
  EXPECT_TRUE(d.fatalError.empty()) << d.fatalError;
  ASSERT_EQ(d.frames.size(), 4u);
  for (const test::DecodedFrame& f : d.frames) EXPECT_EQ(f.info.layout.width, 64);
  EXPECT_GE(d.stats.decodeErrors, 4);
}

}  // namespace
}  // namespace vp
