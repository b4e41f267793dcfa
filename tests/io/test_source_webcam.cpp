// A webcam's streams without a webcam: this machine has no /dev/video device (and no
// v4l2loopback), so the capture path is exercised at the demuxer level with what a UVC
// camera delivers through v4l2 — raw yuyv422 frames and Motion-JPEG, one picture a
// packet, no container — recorded to files and read with --latency low, as a device is.
// The frames must be the recorded pictures, byte for byte.
#include "io/source.h"
#include "support/clips.h"
#include "support/source_test_util.h"

#include <gtest/gtest.h>

#include <fstream>

namespace vp {
namespace {

using test::ClipSpec;

TEST(WebcamStreams, RawYuyv422IsTheRecordedBytes) {
  test::TempDir dir;
  ClipSpec spec;
  spec.width = 64;
  spec.height = 48;
  spec.frames = 12;
  spec.pixFmt = "yuyv422";
  const std::string path = dir.file("camera.yuyv");
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < spec.frames; ++i) {
      const std::vector<uint8_t> raw = test::clipFrameRaw(spec, i, "yuyv422");
      out.write(reinterpret_cast<const char*>(raw.data()), std::streamsize(raw.size()));
    }
  }
  SourceOptions o;
  o.url = path;
  o.format = "rawvideo";
  o.deviceOptions = {{"video_size", "64x48"}, {"pixel_format", "yuyv422"}, {"framerate", "30"}};
  o.latency = LatencyMode::Low;
  const test::DecodedClip d = test::decodeAll(o);
  EXPECT_TRUE(d.info.live);
  EXPECT_EQ(d.info.liveReason, "--latency low");
  ASSERT_EQ(int(d.frames.size()), spec.frames);
  for (int i = 0; i < spec.frames; ++i) {
    const test::DecodedFrame& f = d.frames[size_t(i)];
    EXPECT_EQ(f.info.layout.format, PixelFormat::Yuyv422);
    EXPECT_GT(f.info.arrivalUs, 0);
    EXPECT_EQ(test::packedRows(f, 2), test::clipFrameRaw(spec, i, "yuyv422")) << "frame " << i;
  }
}

TEST(WebcamStreams, MotionJpegIsTheSamePicturesAsInAFile) {
  test::TempDir dir;
  ClipSpec spec;
  spec.width = 160;
  spec.height = 120;
  spec.frames = 10;
  spec.codec = "mjpeg";
  spec.pixFmt = "yuv422p";  // UVC cameras' MJPEG is 4:2:2
  const std::string stream = test::makeClip(dir.file("camera.mjpeg"), spec);
  const std::string reference = test::makeClip(dir.file("camera.avi"), spec);
  SourceOptions o;
  o.url = stream;
  o.format = "mjpeg";
  o.deviceOptions = {{"framerate", "25"}};
  o.latency = LatencyMode::Low;
  const test::DecodedClip live = test::decodeAll(o);
  const test::DecodedClip file = test::decodeAll(reference);
  EXPECT_TRUE(live.info.live);
  ASSERT_EQ(live.frames.size(), file.frames.size());
  ASSERT_EQ(int(live.frames.size()), spec.frames);
  for (size_t i = 0; i < live.frames.size(); ++i) {
    EXPECT_EQ(live.frames[i].info.layout.format, file.frames[i].info.layout.format);
    EXPECT_EQ(live.frames[i].data, file.frames[i].data) << "frame " << i;
  }
}

}  // namespace
}  // namespace vp
