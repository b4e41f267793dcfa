// FfmpegSource with the stream's display matrix: frames turned upright (--no-autorotate
// keeps them as stored), and the rotation helpers for every layout.
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
