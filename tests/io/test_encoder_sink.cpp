// EncoderSink: round trips through openSource, lossless RGB, timing, file handling.
#include "io/output/encoder_sink.h"
#include "io/source.h"
#include "support/clips.h"
#include "support/color_reference.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace vp {
namespace {

namespace fs = std::filesystem;

EncoderOptions options(const std::string& path, int w, int h, const std::string& codec = "") {
  EncoderOptions o;
  o.path = path;
  o.codec = codec;
  o.width = w;
  o.height = h;
  o.fps = 25;
  return o;
}

void writeImage(EncoderSink& sink, const HostImage& img, int64_t ptsUs) {
  const std::vector<uint8_t> rgb = test::packRgb(img);
  sink.write(rgb.data(), size_t(img.width()) * 3, img.width(), img.height(), ptsUs);
}

// Mean |Y - Y(BT.709 limited of the source RGB)| over the luma plane of a yuv frame.
double lumaError(const test::DecodedFrame& f, const HostImage& src) {
  const FrameLayout& l = f.info.layout;
  double sum = 0;
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x) {
      const uchar4 p = src.at(x, y);
      const double want = 16 + 219.0 * (0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z) / 255.0;
      sum += std::abs(f.data[l.plane[0].offset + size_t(y) * l.plane[0].pitch + size_t(x)] - want);
    }
  return sum / (double(l.width) * l.height);
}

// Mean |Cb - Cb(BT.709 limited)| and |Cr - ...| of a yuv420p frame, each chroma sample against
// the mean of its 2x2 source pixels (the conversion is linear: the mean's chroma is the
// chroma's mean). Swapped or misplaced chroma planes, or another matrix, show here.
std::array<double, 2> chromaError(const test::DecodedFrame& f, const HostImage& src) {
  const FrameLayout& l = f.info.layout;
  std::array<double, 2> sum{0, 0};
  const int cw = (l.width + 1) / 2, ch = (l.height + 1) / 2;
  for (int y = 0; y < ch; ++y)
    for (int x = 0; x < cw; ++x) {
      double rgb[3] = {0, 0, 0};
      int n = 0;
      for (int dy = 0; dy < 2 && 2 * y + dy < l.height; ++dy)
        for (int dx = 0; dx < 2 && 2 * x + dx < l.width; ++dx, ++n) {
          const uchar4 p = src.at(2 * x + dx, 2 * y + dy);
          rgb[0] += p.x, rgb[1] += p.y, rgb[2] += p.z;
        }
      const auto want = test::ref::rgbToYuv(rgb[0] / n, rgb[1] / n, rgb[2] / n, {true, false});
      for (int c = 0; c < 2; ++c) {
        const PlaneLayout& pl = l.plane[1 + c];
        sum[size_t(c)] += std::abs(f.data[pl.offset + size_t(y) * pl.pitch + size_t(x)] - want[size_t(1 + c)]);
      }
    }
  return {sum[0] / (double(cw) * ch), sum[1] / (double(cw) * ch)};
}

TEST(EncoderSink, Mp4RoundTripKeepsCountTimingAndPicture) {
  test::Watchdog dog(60, "mp4 round trip");
  test::TempDir dir;
  const std::string path = dir.file("out.mp4");
  constexpr int kFrames = 15;
  {
    auto sink = EncoderSink::open(options(path, 96, 64));
    for (int i = 0; i < kFrames; ++i) writeImage(*sink, test::makeNatural(96, 64, 5, 0.2f * i), i * 40000);
    sink->finish();
    EXPECT_EQ(sink->framesWritten(), kFrames);
  }
  const test::DecodedClip d = test::decodeAll(path);
  EXPECT_EQ(d.info.codec, "h264");
  ASSERT_EQ(int(d.frames.size()), kFrames);
  for (int i = 0; i < kFrames; ++i) {
    const test::DecodedFrame& f = d.frames[size_t(i)];
    EXPECT_NEAR(double(f.info.ptsUs), i * 40000.0, 1.0) << "frame " << i;
    EXPECT_EQ(f.info.layout.width, 96);
    EXPECT_EQ(f.info.layout.height, 64);
    EXPECT_EQ(f.info.layout.format, PixelFormat::Yuv420p);
    EXPECT_EQ(f.info.color.matrix, ColorMatrix::Bt709);  // tagged by the encoder
    EXPECT_EQ(f.info.color.range, ColorRange::Limited);
    EXPECT_LT(lumaError(f, test::makeNatural(96, 64, 5, 0.2f * i)), 2.5) << "frame " << i;
    const std::array<double, 2> chroma = chromaError(f, test::makeNatural(96, 64, 5, 0.2f * i));
    EXPECT_LT(chroma[0], 2.5) << "Cb, frame " << i;
    EXPECT_LT(chroma[1], 2.5) << "Cr, frame " << i;
  }
}

// The same frames and options give the same file, byte for byte, in every container (the
// Matroska muxer writes a random segment UID and the date unless told to be bit-exact).
TEST(EncoderSink, TheSameFramesGiveTheSameFile) {
  test::Watchdog dog(60, "same file twice");
  test::TempDir dir;
  for (const char* ext : {"mkv", "mp4", "mov", "nut", "avi"}) {
    std::string bytes[2];
    for (int run = 0; run < 2; ++run) {
      const std::string path = dir.file("run" + std::to_string(run) + "." + ext);
      {
        auto sink = EncoderSink::open(options(path, 64, 48));
        for (int i = 0; i < 6; ++i) writeImage(*sink, test::makeNatural(64, 48, 9, 0.3f * i), i * 40000);
        sink->finish();
      }
      std::ifstream f(path, std::ios::binary);
      bytes[run].assign(std::istreambuf_iterator<char>(f), {});
    }
    ASSERT_GT(bytes[0].size(), 100u) << ext;
    EXPECT_TRUE(bytes[0] == bytes[1]) << ext << ": two runs wrote different bytes";
  }
}

TEST(EncoderSink, VariableTimingIsKept) {
  test::TempDir dir;
  const int64_t pts[] = {0, 40000, 100000, 120000, 400000, 433333};
  for (const char* ext : {"mp4", "mkv", "nut"}) {
    SCOPED_TRACE(ext);
    const std::string path = dir.file(std::string("vfr.") + ext);
    {
      auto sink = EncoderSink::open(options(path, 64, 48));
      for (int64_t t : pts) writeImage(*sink, test::makeNatural(64, 48, 1, float(t) / 1e5f), t);
    }  // the destructor finishes
    const test::DecodedClip d = test::decodeAll(path, false);
    ASSERT_EQ(d.frames.size(), std::size(pts));
    const double tolerance = std::string(ext) == "mkv" ? 500 : 1;  // Matroska counts milliseconds
    for (size_t i = 0; i < std::size(pts); ++i) EXPECT_NEAR(double(d.frames[i].info.ptsUs), double(pts[i]), tolerance);
  }
}

TEST(EncoderSink, NonIncreasingTimestampsAreMadeIncreasing) {
  test::TempDir dir;
  const std::string path = dir.file("same.mkv");
  {
    auto sink = EncoderSink::open(options(path, 64, 48));
    for (int i = 0; i < 4; ++i) writeImage(*sink, test::makeNatural(64, 48, 1, float(i)), 0);
  }
  const test::DecodedClip d = test::decodeAll(path, false);
  ASSERT_EQ(d.frames.size(), 4u);
  for (size_t i = 1; i < 4; ++i) EXPECT_GT(d.frames[i].info.ptsUs, d.frames[i - 1].info.ptsUs);
}

TEST(EncoderSink, Ffv1IsLosslessRgb) {
  test::TempDir dir;
  const std::string path = dir.file("lossless.mkv");
  std::vector<HostImage> images;
  for (int i = 0; i < 5; ++i) images.push_back(test::makeRandom(33, 17, 100 + uint64_t(i)));
  {
    auto sink = EncoderSink::open(options(path, 33, 17, "ffv1"));
    for (int i = 0; i < 5; ++i) writeImage(*sink, images[size_t(i)], i * 40000);
    sink->finish();
  }
  const test::DecodedClip d = test::decodeAll(path);
  EXPECT_EQ(d.info.codec, "ffv1");
  ASSERT_EQ(d.frames.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const test::DecodedFrame& f = d.frames[size_t(i)];
    ASSERT_EQ(f.info.layout.format, PixelFormat::Bgra);  // bgr0, padding made opaque
    size_t differing = 0;
    for (int y = 0; y < 17; ++y)
      for (int x = 0; x < 33; ++x) {
        const uint8_t* px = f.data.data() + size_t(y) * f.info.layout.plane[0].pitch + size_t(x) * 4;
        const uchar4 want = images[size_t(i)].at(x, y);
        differing += px[0] != want.z || px[1] != want.y || px[2] != want.x || px[3] != 255;
      }
    EXPECT_EQ(differing, 0u) << "frame " << i;
  }
}

TEST(EncoderSink, RawvideoKeepsRgbExactly) {
  test::TempDir dir;
  const std::string path = dir.file("raw.nut");
  const HostImage img = test::makeRandom(20, 10, 9);
  {
    auto sink = EncoderSink::open(options(path, 20, 10, "rawvideo"));
    writeImage(*sink, img, 0);
  }
  const test::DecodedClip d = test::decodeAll(path);
  ASSERT_EQ(d.frames.size(), 1u);
  ASSERT_EQ(d.frames[0].info.layout.format, PixelFormat::Rgb24);
  EXPECT_EQ(test::packedRows(d.frames[0], 3), test::packRgb(img));
}

TEST(EncoderSink, OtherSizesAreScaledToTheFirst) {
  test::TempDir dir;
  const std::string path = dir.file("scaled.mkv");
  {
    auto sink = EncoderSink::open(options(path, 64, 48));
    writeImage(*sink, test::makeNatural(64, 48, 1), 0);
    writeImage(*sink, test::makeNatural(32, 24, 1), 40000);
    writeImage(*sink, test::makeNatural(100, 80, 1), 80000);
  }
  const test::DecodedClip d = test::decodeAll(path, false);
  ASSERT_EQ(d.frames.size(), 3u);
  for (const auto& f : d.frames) {
    EXPECT_EQ(f.info.layout.width, 64);
    EXPECT_EQ(f.info.layout.height, 48);
  }
}

TEST(EncoderSink, OddSizesWithX264AreRoundedToEven) {
  test::TempDir dir;
  const std::string path = dir.file("odd.mp4");
  {
    auto sink = EncoderSink::open(options(path, 33, 17));
    writeImage(*sink, test::makeNatural(33, 17, 1), 0);
  }
  const test::DecodedClip d = test::decodeAll(path, false);
  ASSERT_EQ(d.frames.size(), 1u);
  EXPECT_EQ(d.frames[0].info.layout.width, 32);
  EXPECT_EQ(d.frames[0].info.layout.height, 16);
}

TEST(EncoderSink, ExistingFileIsNotOverwrittenWithoutTheFlag) {
  test::TempDir dir;
  const std::string path = test::textFile(dir.file("keep.mp4"), "precious");
  try {
    EncoderSink::open(options(path, 64, 48));
    ADD_FAILURE() << "opened over an existing file";
  } catch (const EncoderError& e) {
    EXPECT_EQ(std::string(e.what()), "'" + path + "' exists (use -y to overwrite)");
  }
  EXPECT_EQ(test::readFileBytes(path), std::vector<uint8_t>({'p', 'r', 'e', 'c', 'i', 'o', 'u', 's'}));
  EXPECT_FALSE(fs::exists(path + ".part"));

  EncoderOptions o = options(path, 64, 48);
  o.overwrite = true;
  {
    auto sink = EncoderSink::open(o);
    writeImage(*sink, test::makeNatural(64, 48, 1), 0);
  }
  EXPECT_EQ(test::decodeAll(path, false).frames.size(), 1u);
}

TEST(EncoderSink, UnwritablePathsFailAtOpen) {
  test::TempDir dir;
  const std::string noDir = dir.file("no/such/dir/out.mp4");
  try {
    EncoderSink::open(options(noDir, 64, 48));
    ADD_FAILURE();
  } catch (const EncoderError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write '" + noDir + "'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(EncoderSink::open(options(dir.path(), 64, 48)), EncoderError);            // a directory
  EXPECT_THROW(EncoderSink::open(options(dir.file("out.xyz"), 64, 48)), EncoderError);  // unknown container
  EXPECT_THROW(EncoderSink::open(options(dir.file("out.mp4"), 64, 48, "no_such_codec")), EncoderError);
  if (::geteuid() != 0) {  // root writes anywhere
    const std::string ro = dir.file("readonly");
    fs::create_directory(ro);
    ::chmod(ro.c_str(), 0500);
    EXPECT_THROW(EncoderSink::open(options(ro + "/out.mp4", 64, 48)), EncoderError);
    ::chmod(ro.c_str(), 0700);
  }
}

TEST(EncoderSink, WritesATemporaryFileAndRenamesItOnFinish) {
  test::TempDir dir;
  const std::string path = dir.file("renamed.mkv");
  auto sink = EncoderSink::open(options(path, 64, 48));
  writeImage(*sink, test::makeNatural(64, 48, 1), 0);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::exists(path + ".part"));
  sink->finish();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".part"));
  sink->finish();  // twice is fine
  EXPECT_THROW(writeImage(*sink, test::makeNatural(64, 48, 1), 40000), EncoderError);
}

TEST(EncoderSink, DestructorWithoutFinishLeavesAPlayableFile) {
  test::Watchdog dog(60, "destructor finish");
  test::TempDir dir;
  for (const char* name : {"unwound.mp4", "unwound.mkv"}) {
    const std::string path = dir.file(name);
    try {
      auto sink = EncoderSink::open(options(path, 64, 48));
      for (int i = 0; i < 10; ++i) writeImage(*sink, test::makeNatural(64, 48, 1, float(i)), i * 40000);
      throw std::runtime_error("interrupted");  // e.g. Ctrl-C unwinding the player
    } catch (const std::runtime_error&) {
    }
    const test::DecodedClip d = test::decodeAll(path, false);
    EXPECT_TRUE(d.endOfStream);
    EXPECT_EQ(d.frames.size(), 10u) << name;
  }
}

TEST(EncoderSink, ManyFramesThroughASmallQueue) {
  test::Watchdog dog(60, "encoder queue");
  test::TempDir dir;
  const std::string path = dir.file("many.mkv");
  EncoderOptions o = options(path, 64, 48);
  o.queueFrames = 1;
  const HostImage img = test::makeNatural(64, 48, 2);
  {
    auto sink = EncoderSink::open(o);
    for (int i = 0; i < 100; ++i) writeImage(*sink, img, i * 40000);
    sink->finish();
    EXPECT_EQ(sink->framesWritten(), 100);
  }
  EXPECT_EQ(test::decodeAll(path, false).frames.size(), 100u);
}

}  // namespace
}  // namespace vp
