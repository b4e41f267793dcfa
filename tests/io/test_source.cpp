// FfmpegSource on clips encoded by the test itself: formats, timing, pixels,
// size changes, loop, seek, stop, bad and damaged inputs.
#include "io/color_report.h"
#include "io/pixel_format_map.h"
#include "io/rotate.h"
#include "io/source.h"
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

SourceOptions file(const std::string& path) {
  SourceOptions o;
  o.url = path;
  return o;
}

int64_t ptsOf(int i, int fps) { return int64_t(std::llround(double(i) * 1e6 / fps)); }

// Max and mean absolute difference of two byte buffers of the same size.
struct Diff {
  int max = 0;
  double mean = 0;
};
Diff diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  Diff d;
  if (a.size() != b.size() || a.empty()) return {256, 256};
  int64_t sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int e = std::abs(int(a[i]) - int(b[i]));
    d.max = std::max(d.max, e);
    sum += e;
  }
  d.mean = double(sum) / double(a.size());
  return d;
}

struct FormatCase {
  const char* name;
  const char* codec;
  const char* pixFmt;
  const char* ext;
  int width, height, fps;
  PixelFormat expected;
  ColorRange range;
  const char* comparePixFmt;  // what to compare the decoded planes with
  int maxError;               // 0 = exact
  double maxMeanError;
};

void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.name; }

// yuyv422 of an odd width carries one Y sample past the right edge in every
// row: not part of the picture, codecs need not keep it.
void clearYuyvPadding(std::vector<uint8_t>& data, const FrameLayout& l) {
  if (l.format != PixelFormat::Yuyv422 || l.width % 2 == 0) return;
  for (int y = 0; y < l.height; ++y) data[l.plane[0].offset + size_t(y) * l.plane[0].pitch + l.plane[0].widthBytes - 2] = 0;
}

class SourceFormats : public ::testing::TestWithParam<FormatCase> {};

TEST_P(SourceFormats, FramesTimingLayoutAndPixels) {
  const FormatCase& c = GetParam();
  test::Watchdog dog(60, c.name);
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = c.codec;
  spec.pixFmt = c.pixFmt;
  spec.width = c.width;
  spec.height = c.height;
  spec.fps = c.fps;
  spec.frames = 8;
  const std::string path = test::makeClip(dir.file(std::string("clip.") + c.ext), spec);

  const DecodedClip d = test::decodeAll(path);
  EXPECT_TRUE(d.endOfStream);
  EXPECT_TRUE(d.fatalError.empty()) << d.fatalError;
  EXPECT_EQ(d.stats.decodeErrors, 0);
  EXPECT_EQ(d.stats.framesDecoded, spec.frames);
  EXPECT_EQ(d.info.width, c.width);
  EXPECT_EQ(d.info.height, c.height);
  EXPECT_NEAR(d.info.fps, c.fps, 0.01);
  EXPECT_TRUE(d.info.seekable);
  ASSERT_EQ(int(d.frames.size()), spec.frames);
  for (int i = 0; i < spec.frames; ++i) {
    const FrameInfo& f = d.frames[size_t(i)].info;
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(f.index, i);
    EXPECT_EQ(f.serial, 0u);
    EXPECT_NEAR(double(f.ptsUs), double(ptsOf(i, c.fps)), 1.0);
    EXPECT_NEAR(double(f.durationUs), 1e6 / c.fps, 1.0);
    EXPECT_EQ(f.layout.format, c.expected);
    EXPECT_EQ(f.layout.width, c.width);
    EXPECT_EQ(f.layout.height, c.height);
    const FrameLayout want = frameLayout(c.expected, c.width, c.height);
    EXPECT_EQ(f.layout.bytes, want.bytes);
    for (int p = 0; p < want.planes; ++p) {
      EXPECT_EQ(f.layout.plane[p].offset, want.plane[p].offset);
      EXPECT_EQ(f.layout.plane[p].pitch, want.plane[p].widthBytes);  // tightly packed
    }
    EXPECT_EQ(f.color.range, c.range);
    EXPECT_EQ(f.color.matrix, ColorMatrix::Bt601);
    std::vector<uint8_t> expected = test::clipFrameRaw(spec, i, c.comparePixFmt), got = d.frames[size_t(i)].data;
    clearYuyvPadding(expected, want);
    clearYuyvPadding(got, want);
    const Diff e = diff(got, expected);
    EXPECT_LE(e.max, c.maxError);
    EXPECT_LE(e.mean, c.maxMeanError);
  }
}

constexpr ColorRange kLim = ColorRange::Limited, kFull = ColorRange::Full;
INSTANTIATE_TEST_SUITE_P(
    Clips, SourceFormats,
    ::testing::Values(
        FormatCase{"ffv1_yuv420p", "ffv1", "yuv420p", "mkv", 64, 48, 25, PixelFormat::Yuv420p, kLim, "", 0,
                   0},
        FormatCase{"ffv1_yuv420p_odd", "ffv1", "yuv420p", "nut", 33, 17, 30, PixelFormat::Yuv420p, kLim, "",
                   0, 0},
        FormatCase{"ffv1_yuv422p", "ffv1", "yuv422p", "mkv", 64, 48, 25, PixelFormat::Yuv422p, kLim, "", 0,
                   0},
        FormatCase{"ffv1_yuv444p", "ffv1", "yuv444p", "mkv", 33, 17, 25, PixelFormat::Yuv444p, kLim, "", 0,
                   0},
        FormatCase{"ffv1_gray", "ffv1", "gray", "mkv", 33, 17, 25, PixelFormat::Gray, kFull, "", 0, 0},
        FormatCase{"ffv1_yuv420p10le", "ffv1", "yuv420p10le", "mkv", 64, 48, 25, PixelFormat::Yuv420p10, kLim,
                   "", 0, 0},
        FormatCase{"ffv1_yuv422p10le_odd", "ffv1", "yuv422p10le", "mkv", 33, 17, 25, PixelFormat::Yuv422p10, kLim,
                   "", 0, 0},
        FormatCase{"ffv1_yuv444p10le", "ffv1", "yuv444p10le", "mkv", 64, 48, 25, PixelFormat::Yuv444p10, kLim,
                   "", 0, 0},

        FormatCase{"raw_yuyv422_odd", "rawvideo", "yuyv422", "nut", 33, 17, 30, PixelFormat::Yuyv422, kLim,
                   "", 0, 0},
        FormatCase{"raw_nv12", "rawvideo", "nv12", "nut", 64, 48, 30, PixelFormat::Nv12, kLim, "", 0, 0},
        FormatCase{"raw_rgb24_odd", "rawvideo", "rgb24", "nut", 33, 17, 30, PixelFormat::Rgb24, kFull, "", 0,
                   0},
        FormatCase{"raw_bgr24", "rawvideo", "bgr24", "nut", 64, 48, 30, PixelFormat::Bgr24, kFull, "", 0, 0},
        FormatCase{"raw_rgba", "rawvideo", "rgba", "nut", 64, 48, 30, PixelFormat::Rgba, kFull, "", 0, 0},
        FormatCase{"raw_yuv420p_odd", "rawvideo", "yuv420p", "nut", 33, 17, 30, PixelFormat::Yuv420p, kLim,
                   "", 0, 0},
        FormatCase{"x264_yuv420p", "libx264", "yuv420p", "mp4", 64, 48, 30, PixelFormat::Yuv420p, kLim, "",
                   40, 2.0},
        FormatCase{"mjpeg_yuvj420p_odd", "mjpeg", "yuv420p", "avi", 33, 17, 25, PixelFormat::Yuv420p, kFull,
                   "", 48, 2.5},
        FormatCase{"mjpeg_yuvj422p_mkv", "mjpeg", "yuv422p", "mkv", 40, 30, 25, PixelFormat::Yuv422p, kFull,
                   "", 48, 2.5},
        FormatCase{"mpeg4_yuv420p", "mpeg4", "yuv420p", "avi", 64, 48, 25, PixelFormat::Yuv420p, kLim, "", 48,
                   2.5}),
    [](const ::testing::TestParamInfo<FormatCase>& i) { return std::string(i.param.name); });

// B-frames: decode order differs from presentation order; frames come out in
// presentation order with the right pts in every container.
TEST(Source, BFramesComeOutInPresentationOrder) {
  test::TempDir dir;
  for (const auto& [ext, fps] : {std::pair{"mp4", 30}, std::pair{"mkv", 25}, std::pair{"ts", 30}, std::pair{"mov", 24}}) {
    SCOPED_TRACE(ext);
    ClipSpec spec;
    spec.codec = "libx264";
    spec.preset = "medium";  // B-frames
    spec.frames = 20;
    spec.fps = fps;
    const DecodedClip d = test::decodeAll(test::makeClip(dir.file(std::string("b.") + ext), spec));
    ASSERT_EQ(d.frames.size(), 20u);
    for (int i = 0; i < 20; ++i) {
      EXPECT_NEAR(double(d.frames[size_t(i)].info.ptsUs), double(ptsOf(i, fps)), 1.0) << "frame " << i;
      EXPECT_LE(diff(d.frames[size_t(i)].data, test::clipFrameRaw(spec, i)).mean, 2.0) << "frame " << i;
    }
  }
}

TEST(Source, InfoDescribesTheStream) {
  test::TempDir dir;
  ClipSpec spec;
  spec.codec = "libx264";
  spec.width = 96;
  spec.height = 64;
  spec.frames = 20;
  spec.fps = 25;
  const std::string path = test::makeClip(dir.file("info.mp4"), spec);
  std::unique_ptr<Source> src = openSource(file(path));
  const SourceInfo info = src->info();
  EXPECT_EQ(info.url, path);
  EXPECT_EQ(info.codec, "h264");
  EXPECT_EQ(info.pixelFormat, "yuv420p");
  EXPECT_EQ(info.width, 96);
  EXPECT_EQ(info.height, 64);
  EXPECT_NEAR(info.fps, 25, 0.01);
  EXPECT_NEAR(double(info.durationUs), 800000, 1000);
  EXPECT_TRUE(info.seekable);
  EXPECT_TRUE(src->fatalError().empty());
  EXPECT_EQ(src->stats().framesDecoded, 0);
}

// Resolution changes mid-stream: frames simply arrive with the new layout.
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

// Reads frames until one of the source's current serial arrives (stale ones are dropped).
const HostFrame* firstFresh(FrameQueue& q, const Source& src) {
  for (;;) {
    HostFrame* f = q.peekReadable();
    if (!f) return nullptr;
    if (f->info.serial == src.serial()) return f;
    q.pop();
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
  o.live = true;
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

// Every bad input: a SourceError whose message names the input (and says why).
void expectSourceError(const SourceOptions& o, const std::string& reason) {
  try {
    openSource(o);
    ADD_FAILURE() << "'" << o.url << "' opened";
  } catch (const SourceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'" + o.url + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}
void expectSourceError(const std::string& path, const std::string& reason) { expectSourceError(file(path), reason); }

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
TEST(Source, OutOfRangeColourFieldsFromTheStreamAreUnspecified) {
  av::FramePtr f = av::makeFrame();
  f->format = AV_PIX_FMT_YUV420P;
  const int matrix = 126, range = 77;
  std::memcpy(&f->colorspace, &matrix, sizeof matrix);
  std::memcpy(&f->color_range, &range, sizeof range);
  av::NativeFormat native;
  ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_YUV420P, native));
  const ColorSpace c = av::frameColorSpace(*f, native);
  EXPECT_EQ(c.matrix, ColorMatrix::Bt601);
  EXPECT_EQ(c.range, ColorRange::Limited);
  const int bt709 = AVCOL_SPC_BT709, full = AVCOL_RANGE_JPEG;
  std::memcpy(&f->colorspace, &bt709, sizeof bt709);
  std::memcpy(&f->color_range, &full, sizeof full);
  EXPECT_EQ(av::frameColorSpace(*f, native).matrix, ColorMatrix::Bt709);
  EXPECT_EQ(av::frameColorSpace(*f, native).range, ColorRange::Full);
}

// Matrices: tagged ones as they are, BT.2020 NCL read as such, close relatives
// approximated, unspecified and unsupported ones guessed from the frame size as
// players do (HD -> BT.709, SD -> BT.601).
TEST(Source, ColourMatrixFromTheFrameOrGuessedFromItsSize) {
  av::FramePtr f = av::makeFrame();
  f->format = AV_PIX_FMT_YUV420P10LE;
  struct Case {
    AVColorSpace tag;
    int w, h;
    ColorMatrix want;
    av::MatrixChoice::How how;
  };
  using M = av::MatrixChoice;
  for (const Case& c : {Case{AVCOL_SPC_BT709, 640, 480, ColorMatrix::Bt709, M::Tagged},
                        Case{AVCOL_SPC_SMPTE170M, 1920, 1080, ColorMatrix::Bt601, M::Tagged},
                        Case{AVCOL_SPC_BT470BG, 1920, 1080, ColorMatrix::Bt601, M::Tagged},
                        Case{AVCOL_SPC_BT2020_NCL, 3840, 2160, ColorMatrix::Bt2020, M::Tagged},
                        Case{AVCOL_SPC_BT2020_CL, 3840, 2160, ColorMatrix::Bt2020, M::Approximated},
                        Case{AVCOL_SPC_UNSPECIFIED, 1920, 1080, ColorMatrix::Bt709, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 1280, 720, ColorMatrix::Bt709, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 720, 576, ColorMatrix::Bt601, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 1024, 768, ColorMatrix::Bt709, M::Guessed},
                        Case{AVCOL_SPC_UNSPECIFIED, 64, 48, ColorMatrix::Bt601, M::Guessed},
                        Case{AVCOL_SPC_YCGCO, 1920, 1080, ColorMatrix::Bt709, M::Unsupported},
                        Case{AVCOL_SPC_ICTCP, 720, 480, ColorMatrix::Bt601, M::Unsupported}}) {
    f->colorspace = c.tag;
    f->width = c.w;
    f->height = c.h;
    SCOPED_TRACE(std::string(av_color_space_name(c.tag)) + " " + std::to_string(c.w) + "x" + std::to_string(c.h));
    const av::MatrixChoice m = av::frameMatrix(*f);
    EXPECT_EQ(m.matrix, c.want);
    EXPECT_EQ(m.how, c.how);
    av::NativeFormat native;
    ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_YUV420P10LE, native));
    EXPECT_EQ(av::frameColorSpace(*f, native).matrix, c.want);
  }
}

// Deeper YUV keeps 10 of its bits (swscale into the 10-bit layout), not 8.
TEST(Source, DeepYuvIsConvertedToTenBits) {
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV420P12LE), AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV422P12LE), AV_PIX_FMT_YUV422P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV444P16LE), AV_PIX_FMT_YUV444P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV420P10BE), AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_YUV410P), AV_PIX_FMT_YUV420P);
  EXPECT_EQ(av::conversionTarget(AV_PIX_FMT_P016LE), AV_PIX_FMT_YUV420P10LE);
  // The 10-bit layouts themselves are native (no container here carries raw p010le,
  // so it is checked on the map alone).
  av::NativeFormat n;
  ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_P010LE, n));
  EXPECT_EQ(n.format, PixelFormat::P010);
  ASSERT_TRUE(av::nativeFormat(AV_PIX_FMT_YUV422P10LE, n));
  EXPECT_EQ(n.format, PixelFormat::Yuv422p10);
  EXPECT_FALSE(av::nativeFormat(AV_PIX_FMT_YUV420P10BE, n));
}

// The colour report names each guess, approximation and HDR transfer in its text.
TEST(Source, ColourReportDescribesGuessesAndHdr) {
  av::FramePtr f = av::makeFrame();
  f->format = AV_PIX_FMT_YUV420P;
  f->width = 1920;
  f->height = 1080;
  av::ColorReport report("clip");
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "bt709 (guessed: unspecified, 1920x1080)");
  EXPECT_EQ(report.hdrText(), "");
  EXPECT_FALSE(report.note(*f, av::frameMatrix(*f)));  // nothing new
  f->colorspace = AVCOL_SPC_BT2020_NCL;
  f->color_trc = AVCOL_TRC_SMPTE2084;
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "bt2020nc");
  EXPECT_EQ(report.hdrText(), "PQ (smpte2084), shown without tone mapping");
  f->color_trc = AVCOL_TRC_ARIB_STD_B67;
  f->colorspace = AVCOL_SPC_YCGCO;
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "bt709 (guessed: ycgco unsupported, 1920x1080)");
  EXPECT_EQ(report.hdrText(), "HLG (arib-std-b67), shown without tone mapping");
  f->format = AV_PIX_FMT_RGB24;  // no matrix for RGB
  EXPECT_TRUE(report.note(*f, av::frameMatrix(*f)));
  EXPECT_EQ(report.matrixText(), "");
}

// An input read from memory gives exactly what the same file gives.
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

// The planes of a tightly packed frame turned clockwise, sample by sample: the
// reference for autorotation (bytes = bytes per sample of each plane).
std::vector<uint8_t> turned(const FrameLayout& l, const std::vector<uint8_t>& data, int degrees,
                            const int bytes[3]) {
  const bool quarter = degrees % 180 != 0;
  const FrameLayout r = frameLayout(l.format, quarter ? l.height : l.width, quarter ? l.width : l.height);
  std::vector<uint8_t> out(r.bytes);
  for (int p = 0; p < l.planes; ++p) {
    const int rows = l.plane[p].rows, cols = int(l.plane[p].widthBytes) / bytes[p];
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        int dx = x, dy = y;
        if (degrees == 90) dx = rows - 1 - y, dy = x;
        if (degrees == 180) dx = cols - 1 - x, dy = rows - 1 - y;
        if (degrees == 270) dx = y, dy = cols - 1 - x;
        for (int b = 0; b < bytes[p]; ++b)
          out[r.plane[p].offset + size_t(dy) * r.plane[p].pitch + size_t(dx * bytes[p] + b)] =
              data[l.plane[p].offset + size_t(y) * l.plane[p].pitch + size_t(x * bytes[p] + b)];
      }
  }
  return out;
}

// Display matrices (phones film sideways and tag the turn): frames come out
// upright, as ffplay and mpv show them; --no-autorotate keeps the stored picture.
TEST(Source, AutorotateTurnsFramesUpright) {
  test::Watchdog dog(120, "autorotate");
  test::TempDir dir;
  struct Case {
    const char* pixFmt;
    int width, height;
    PixelFormat format;
    int bytes[3];
  };
  for (const Case& c : {Case{"yuv420p", 34, 18, PixelFormat::Yuv420p, {1, 1, 1}},
                        Case{"yuv444p", 33, 17, PixelFormat::Yuv444p, {1, 1, 1}},
                        Case{"gray", 15, 9, PixelFormat::Gray, {1, 1, 1}},
                        Case{"rgb24", 21, 13, PixelFormat::Rgb24, {3, 3, 3}}})
    for (int degrees : {90, 180, 270}) {
      SCOPED_TRACE(std::string(c.pixFmt) + " " + std::to_string(degrees));
      ClipSpec spec;
      spec.codec = c.format == PixelFormat::Rgb24 || c.format == PixelFormat::Gray ? "png" : "libx264";
      spec.crf = 0;  // lossless
      spec.pixFmt = c.pixFmt;
      spec.width = c.width;
      spec.height = c.height;
      spec.frames = 3;
      spec.rotation = degrees;
      const std::string path =
          test::makeClip(dir.file(std::string(c.pixFmt) + std::to_string(degrees) + ".mov"), spec);
      const DecodedClip d = test::decodeAll(path);
      const bool quarter = degrees != 180;
      EXPECT_EQ(d.info.rotation, degrees);
      EXPECT_EQ(d.info.width, quarter ? c.height : c.width);
      EXPECT_EQ(d.info.height, quarter ? c.width : c.height);
      ASSERT_EQ(d.frames.size(), 3u);
      const FrameLayout stored = frameLayout(c.format, c.width, c.height);
      for (int i = 0; i < 3; ++i) {
        const FrameInfo& f = d.frames[size_t(i)].info;
        EXPECT_EQ(f.layout.format, c.format);
        EXPECT_EQ(f.layout.width, d.info.width);
        EXPECT_EQ(f.layout.height, d.info.height);
        EXPECT_TRUE(d.frames[size_t(i)].data == turned(stored, test::clipFrameRaw(spec, i), degrees, c.bytes))
            << "frame " << i;
      }
      SourceOptions o = file(path);
      o.autorotate = false;
      const DecodedClip raw = test::decodeAll(o);
      EXPECT_EQ(raw.info.rotation, 0);
      ASSERT_EQ(raw.frames.size(), 3u);
      EXPECT_EQ(raw.frames[0].info.layout.width, c.width);
      EXPECT_TRUE(raw.frames[0].data == test::clipFrameRaw(spec, 0));
    }
}

// 4:2:2 cannot be turned as it is (its chroma is not square): it becomes 4:4:4,
// with luma untouched.
TEST(Source, AutorotateTurns422IntoYuv444p) {
  test::TempDir dir;
  for (const char* pixFmt : {"yuv422p", "yuyv422"}) {
    SCOPED_TRACE(pixFmt);
    const bool packed = std::string(pixFmt) == "yuyv422";
    ClipSpec spec;
    spec.codec = packed ? "rawvideo" : "libx264";
    spec.crf = 0;
    spec.pixFmt = pixFmt;
    spec.width = 24;
    spec.height = 14;
    spec.frames = 2;
    spec.rotation = 90;
    const DecodedClip d = test::decodeAll(test::makeClip(dir.file(std::string(pixFmt) + ".mov"), spec));
    ASSERT_EQ(d.frames.size(), 2u);
    const FrameInfo& f = d.frames[0].info;
    EXPECT_EQ(f.layout.format, PixelFormat::Yuv444p);
    EXPECT_EQ(f.layout.width, 14);
    EXPECT_EQ(f.layout.height, 24);
    // The stored luma (every other byte of yuyv422), turned.
    const std::vector<uint8_t> raw = test::clipFrameRaw(spec, 0);
    std::vector<uint8_t> luma(24 * 14);
    for (size_t i = 0; i < luma.size(); ++i) luma[i] = packed ? raw[2 * i] : raw[i];
    const int bytes[3] = {1, 1, 1};
    const std::vector<uint8_t> want = turned(frameLayout(PixelFormat::Gray, 24, 14), luma, 90, bytes);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), d.frames[0].data.begin()));
  }
}

// Quarter turns of every layout that turns as it is, odd sizes, against the
// sample-by-sample reference.
TEST(Rotate, EveryRotatableLayoutAndAngle) {
  struct Case {
    PixelFormat format;
    int bytes[3];
  };
  for (const Case& c : {Case{PixelFormat::Yuv420p, {1, 1, 1}}, Case{PixelFormat::Nv12, {1, 2, 2}},
                        Case{PixelFormat::Yuv444p, {1, 1, 1}}, Case{PixelFormat::Gray, {1, 1, 1}},
                        Case{PixelFormat::Rgb24, {3, 3, 3}}, Case{PixelFormat::Bgr24, {3, 3, 3}},
                        Case{PixelFormat::Rgba, {4, 4, 4}}, Case{PixelFormat::Bgra, {4, 4, 4}}})
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{37, 5}, std::pair{66, 71}})
      for (int degrees : {0, 90, 180, 270}) {
        SCOPED_TRACE(std::string(pixelFormatName(c.format)) + " " + std::to_string(w) + "x" +
                     std::to_string(h) + " " + std::to_string(degrees));
        const FrameLayout l = frameLayout(c.format, w, h);
        const std::vector<uint8_t> src = test::randomBytes(l.bytes, uint64_t(w * 1000 + degrees));
        const FrameLayout r = rotatedLayout(l, degrees);
        std::vector<uint8_t> got(r.bytes, 0xcd);
        rotateFrame(l, src.data(), degrees, got.data());
        EXPECT_TRUE(got == turned(l, src, degrees, c.bytes));
      }
  const FrameLayout yuyv = frameLayout(PixelFormat::Yuyv422, 4, 2);
  std::vector<uint8_t> buf(yuyv.bytes);
  EXPECT_THROW(rotateFrame(yuyv, buf.data(), 90, buf.data()), std::invalid_argument);
  EXPECT_THROW(rotateFrame(frameLayout(PixelFormat::Gray, 4, 2), buf.data(), 45, buf.data()),
               std::invalid_argument);
}

}  // namespace
}  // namespace vp
