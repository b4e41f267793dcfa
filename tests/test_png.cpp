// PNG screenshots: written through libavcodec, read back through openSource (image2).
#include "io/png_writer.h"
#include "io/source.h"
#include "support/clips.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cstring>

namespace vp {
namespace {

TEST(Png, RoundTripIsExactRgba) {
  test::TempDir dir;
  for (const auto& [w, h] : {std::pair{37, 23}, std::pair{1, 1}, std::pair{64, 48}}) {
    const std::string path = dir.file("shot_" + std::to_string(w) + ".png");
    const HostImage img = test::makeRandom(w, h, uint64_t(w));  // random alpha too
    writePng(path, reinterpret_cast<const uint8_t*>(img.data()), img.pitch(), w, h);
    const test::DecodedClip d = test::decodeAll(path);
    EXPECT_EQ(d.info.codec, "png");
    ASSERT_EQ(d.frames.size(), 1u);
    const test::DecodedFrame& f = d.frames[0];
    ASSERT_EQ(f.info.layout.format, PixelFormat::Rgba);
    ASSERT_EQ(f.info.layout.width, w);
    ASSERT_EQ(f.info.layout.height, h);
    const auto* want = reinterpret_cast<const uint8_t*>(img.data());
    EXPECT_EQ(f.data, std::vector<uint8_t>(want, want + size_t(w) * h * 4));
  }
}

TEST(Png, HonoursThePitch) {
  test::TempDir dir;
  const int w = 10, h = 6;
  const size_t pitch = 64;  // padded rows
  std::vector<uint8_t> padded(pitch * h, 0xA5);
  const HostImage img = test::makeRandom(w, h, 3);
  for (int y = 0; y < h; ++y) std::memcpy(padded.data() + pitch * size_t(y), &img.at(0, y), size_t(w) * 4);
  const std::string path = dir.file("pitched.png");
  writePng(path, padded.data(), pitch, w, h);
  const test::DecodedClip d = test::decodeAll(path);
  ASSERT_EQ(d.frames.size(), 1u);
  const auto* want = reinterpret_cast<const uint8_t*>(img.data());
  EXPECT_EQ(d.frames[0].data, std::vector<uint8_t>(want, want + size_t(w) * h * 4));
}

TEST(Png, FailuresNameTheFile) {
  test::TempDir dir;
  const HostImage img = test::makeRandom(4, 4, 1);
  const std::string bad = dir.file("missing/dir/shot.png");
  try {
    writePng(bad, reinterpret_cast<const uint8_t*>(img.data()), img.pitch(), 4, 4);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + bad + "'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(writePng(dir.file("empty.png"), nullptr, 0, 0, 0), std::runtime_error);
}

}  // namespace
}  // namespace vp
