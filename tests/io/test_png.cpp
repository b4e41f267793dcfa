// PNG screenshots: written through libavcodec, read back through openSource (image2).
#include "io/output/png_writer.h"
#include "io/source.h"
#include "support/clips.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cstring>

namespace vp {
namespace {

// The decoded picture is RGB24 of w x h with exactly `want`'s packed rows.
void expectRgbRows(const test::DecodedFrame& f, const std::vector<uint8_t>& want, int w, int h) {
  ASSERT_EQ(f.info.layout.format, PixelFormat::Rgb24);
  ASSERT_EQ(f.info.layout.width, w);
  ASSERT_EQ(f.info.layout.height, h);
  EXPECT_EQ(test::packedRows(f, 3), want);
}

TEST(Png, RoundTripIsExactRgb) {
  test::TempDir dir;
  for (const auto& [w, h] : {std::pair{37, 23}, std::pair{1, 1}, std::pair{64, 48}}) {
    const std::string path = dir.file("shot_" + std::to_string(w) + ".png");
    const std::vector<uint8_t> rgb = test::packRgb(test::makeRandom(w, h, uint64_t(w)));
    writePng(path, rgb.data(), size_t(w) * 3, w, h);
    const test::DecodedClip d = test::decodeAll(path);
    EXPECT_EQ(d.info.codec, "png");
    ASSERT_EQ(d.frames.size(), 1u);
    expectRgbRows(d.frames[0], rgb, w, h);
  }
}

TEST(Png, HonoursThePitch) {
  test::TempDir dir;
  const int w = 10, h = 6;
  const size_t pitch = 64;  // padded rows
  std::vector<uint8_t> padded(pitch * h, 0xA5);
  const std::vector<uint8_t> rgb = test::packRgb(test::makeRandom(w, h, 3));
  for (int y = 0; y < h; ++y) std::memcpy(padded.data() + pitch * size_t(y), &rgb[size_t(w) * 3 * y], size_t(w) * 3);
  const std::string path = dir.file("pitched.png");
  writePng(path, padded.data(), pitch, w, h);
  const test::DecodedClip d = test::decodeAll(path);
  ASSERT_EQ(d.frames.size(), 1u);
  expectRgbRows(d.frames[0], rgb, w, h);
}

TEST(Png, FailuresNameTheFile) {
  test::TempDir dir;
  const std::vector<uint8_t> rgb(4 * 4 * 3, 7);
  const std::string bad = dir.file("missing/dir/shot.png");
  try {
    writePng(bad, rgb.data(), 12, 4, 4);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(writePng(dir.file("empty.png"), nullptr, 0, 0, 0), std::runtime_error);
  EXPECT_THROW(writePng(dir.file("short.png"), rgb.data(), 11, 4, 4), std::runtime_error);
}

}  // namespace
}  // namespace vp
