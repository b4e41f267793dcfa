#include "gpu/color/pixel_format.h"

#include <gtest/gtest.h>

namespace vp {
namespace {

TEST(PixelFormat, Yuv420pOddSizeRoundsChromaUp) {
  FrameLayout l = frameLayout(PixelFormat::Yuv420p, 1921, 1081);
  ASSERT_EQ(l.planes, 3);
  EXPECT_EQ(l.plane[0].widthBytes, 1921u);
  EXPECT_EQ(l.plane[1].widthBytes, 961u);
  EXPECT_EQ(l.plane[1].rows, 541);
  EXPECT_EQ(l.plane[1].offset, 1921u * 1081u);
  EXPECT_EQ(l.bytes, 1921u * 1081u + 2u * 961u * 541u);
}

TEST(PixelFormat, AlignedRowsAndPlanes) {
  FrameLayout l = frameLayout(PixelFormat::Nv12, 33, 3, 64);
  ASSERT_EQ(l.planes, 2);
  EXPECT_EQ(l.plane[0].pitch, 64u);
  EXPECT_EQ(l.plane[1].widthBytes, 34u);
  EXPECT_EQ(l.plane[1].offset % 64, 0u);
  EXPECT_EQ(l.plane[1].rows, 2);
}

TEST(PixelFormat, PackedFormats) {
  EXPECT_EQ(frameLayout(PixelFormat::Yuyv422, 3, 2).plane[0].widthBytes, 8u);
  EXPECT_EQ(frameLayout(PixelFormat::Rgb24, 3, 2).bytes, 18u);
  EXPECT_EQ(frameLayout(PixelFormat::Bgra, 3, 2).bytes, 24u);
  EXPECT_EQ(frameLayout(PixelFormat::Gray, 1, 1).bytes, 1u);
  EXPECT_THROW(frameLayout(PixelFormat::Gray, 0, 1), std::invalid_argument);
}

TEST(PixelFormat, NamesRoundTrip) {
  for (PixelFormat f : {PixelFormat::Yuv420p, PixelFormat::Nv12, PixelFormat::Yuv422p, PixelFormat::Yuv444p,
                        PixelFormat::Yuyv422, PixelFormat::Gray, PixelFormat::Rgb24, PixelFormat::Bgr24,
                        PixelFormat::Rgba, PixelFormat::Bgra, PixelFormat::Yuv420p10, PixelFormat::Yuv422p10,
                        PixelFormat::Yuv444p10, PixelFormat::P010, PixelFormat::Yuv444p16}) {
    PixelFormat back{};
    ASSERT_TRUE(parsePixelFormat(pixelFormatName(f), back));
    EXPECT_EQ(back, f);
  }
  PixelFormat unused{};
  EXPECT_FALSE(parsePixelFormat("p016le", unused));
  EXPECT_FALSE(parsePixelFormat("yuv420p10be", unused));
}

// 10-bit layouts: two bytes per sample, chroma as their 8-bit twins (odd sizes round up).
TEST(PixelFormat, TenBitLayouts) {
  const FrameLayout a = frameLayout(PixelFormat::Yuv420p10, 5, 3);
  EXPECT_EQ(a.planes, 3);
  EXPECT_EQ(a.plane[0].widthBytes, 10u);
  EXPECT_EQ(a.plane[1].widthBytes, 6u);
  EXPECT_EQ(a.plane[1].rows, 2);
  EXPECT_EQ(a.bytes, 30u + 12u + 12u);
  const FrameLayout p = frameLayout(PixelFormat::P010, 5, 3);
  EXPECT_EQ(p.planes, 2);
  EXPECT_EQ(p.plane[1].widthBytes, 12u);  // 3 UV pairs of 2 x 2 bytes
  EXPECT_EQ(p.bytes, 30u + 24u);
  EXPECT_EQ(frameLayout(PixelFormat::Yuv422p10, 5, 3).bytes, 30u + 18u + 18u);
  EXPECT_EQ(frameLayout(PixelFormat::Yuv444p10, 5, 3).bytes, 90u);
  EXPECT_EQ(frameLayout(PixelFormat::Yuv444p16, 5, 3).bytes, 90u);
  EXPECT_EQ(pixelFormatDepth(PixelFormat::P010), 10);
  EXPECT_EQ(pixelFormatDepth(PixelFormat::Nv12), 8);
  EXPECT_EQ(colorMatrixName(ColorMatrix::Bt2020), "bt2020nc");
}

}  // namespace
}  // namespace vp
