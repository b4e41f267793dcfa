// Hardware decoding (--hwdec) at the source: nvdec frames (device surfaces) converted
// on the GPU equal software-decoded frames converted by the CPU twin, frame for frame and
// timestamp for timestamp, for H.264 8-bit, HEVC 8- and 10-bit at an odd size, across a
// seek and a resolution change; fallbacks (a profile NVDEC does not decode, a codec it
// does not decode, no GPU) behave as documented. GPU tests skip without a device.
#include "gpu/color/color_convert.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/cuda/device_info.h"
#include "io/source.h"
#include "support/clips.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace vp {
namespace {

struct Decoded {
  std::vector<HostImage> frames;  // RGBA
  std::vector<int64_t> ptsUs;
  std::vector<bool> onDevice;
  SourceInfo info;
  std::string fatal;
};

// Decodes `path` with `mode`, converting each frame to RGBA: device surfaces with the
// GPU kernel, host frames with the CPU twin (bit-identical to the kernel). After
// `seekAfter` frames (if >= 0) seeks to `seekUs` once.
Decoded decode(const std::string& path, HwDecodeMode mode, int seekAfter = -1, int64_t seekUs = 0,
               const std::string& hwdecCodecs = kDefaultHwdecCodecs) {
  SourceOptions o;
  o.url = path;
  o.hwdec = mode;
  o.hwdecCodecs = hwdecCodecs;
  // Declared before the source, so a failure that unwinds stops the decode thread before
  // the queue it writes into is gone.
  FrameQueue queue(4, HostAllocator::plain());
  std::unique_ptr<Source> src = openSource(o);
  Decoded d;
  std::unique_ptr<Stream> stream;
  src->start(queue);
  bool seeked = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    HostFrame* f = queue.peekReadable();
    if (!f) break;
    if (f->info.endOfStream) {
      queue.pop();
      break;
    }
    if (f->info.serial != src->serial()) {
      queue.pop();
      continue;
    }
    const FrameInfo& i = f->info;
    HostImage img(i.layout.width, i.layout.height);
    if (i.device.present()) {
      if (!stream) stream = std::make_unique<Stream>();
      DeviceImage dev(i.layout.width, i.layout.height);
      if (i.device.ready) VP_CUDA_CHECK(cudaStreamWaitEvent(*stream, i.device.ready, 0));
      convertToRgbaGpu(i.device.planes, dev.view(), i.color, *stream);
      stream->synchronize();
      img = test::download(dev);
    } else {
      convertToRgbaCpu(planarView(i.layout, f->data()), img.view(), i.color);
    }
    d.frames.push_back(std::move(img));
    d.ptsUs.push_back(i.ptsUs);
    d.onDevice.push_back(i.device.present());
    queue.pop();
    if (!seeked && seekAfter >= 0 && int(d.frames.size()) == seekAfter) {
      seeked = true;
      EXPECT_TRUE(src->seek(seekUs));
    }
  }
  d.info = src->info();
  d.fatal = src->fatalError();
  src->stop();
  return d;
}

void expectSame(const Decoded& hw, const Decoded& sw) {
  ASSERT_EQ(hw.frames.size(), sw.frames.size());
  for (size_t i = 0; i < sw.frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(hw.ptsUs[i], sw.ptsUs[i]);
    ASSERT_EQ(hw.frames[i].width(), sw.frames[i].width());
    ASSERT_EQ(hw.frames[i].height(), sw.frames[i].height());
    const test::ImageDiff diff = test::compare(hw.frames[i], sw.frames[i]);
    EXPECT_EQ(diff.differing, 0u) << diff.first;
  }
}

struct ClipCase {
  const char* name;
  const char* codec;
  const char* pixFmt;
  const char* ext;
  const char* surface;  // what NVDEC hands out
  int changeAt;         // -1: no resolution change
};

class HwDecodeClips : public ::testing::TestWithParam<ClipCase> {};

TEST_P(HwDecodeClips, NvdecEqualsSoftwareAcrossSeekAndSizeChange) {
  VP_REQUIRE_GPU();
  const ClipCase& c = GetParam();
  test::TempDir dir;
  test::ClipSpec spec;
  spec.codec = c.codec;
  spec.pixFmt = c.pixFmt;
  spec.width = 1918;
  spec.height = 1078;
  spec.frames = 16;
  spec.preset = "veryfast";  // B-frames
  spec.crf = 24;
  spec.gop = 6;
  spec.changeAt = c.changeAt;
  spec.changedWidth = 1278;
  spec.changedHeight = 718;
  const std::string path = test::makeClip(dir.file(std::string("clip.") + c.ext), spec);
  // Seek back into the first GOP after 10 frames: decoded from its keyframe again.
  const Decoded sw = decode(path, HwDecodeMode::No, 10, 160000);
  const Decoded hw = decode(path, HwDecodeMode::Nvdec, 10, 160000);
  EXPECT_TRUE(hw.fatal.empty()) << hw.fatal;
  EXPECT_GT(sw.frames.size(), 16u);
  expectSame(hw, sw);
  for (size_t i = 0; i < hw.onDevice.size(); ++i) EXPECT_TRUE(hw.onDevice[i]) << "frame " << i;
  EXPECT_EQ(hw.info.decodePath, "nvdec");
  EXPECT_EQ(hw.info.surfaceFormat, c.surface);
  EXPECT_EQ(sw.info.decodePath, "software");
}

INSTANTIATE_TEST_SUITE_P(
    Clips, HwDecodeClips,
    ::testing::Values(ClipCase{"h264_8bit", "libx264", "yuv420p", "mp4", "nv12", -1},
                      ClipCase{"hevc_8bit", "libx265", "yuv420p", "mkv", "nv12", -1},
                      ClipCase{"hevc_10bit", "libx265", "yuv420p10le", "mkv", "p010le", -1},
                      ClipCase{"h264_size_change", "libx264", "yuv420p", "ts", "nv12", 8},
                      ClipCase{"hevc_10bit_size_change", "libx265", "yuv420p10le", "ts", "p010le", 8}),
    [](const ::testing::TestParamInfo<ClipCase>& i) { return std::string(i.param.name); });

// H.264 High 4:4:4 Predictive: NVDEC does not decode it. auto falls back to software
// (the same frames as --hwdec no); nvdec ends with a one-line reason and no frames.
TEST(HwDecode, High444FallsBackToSoftwareOrFailsWhenRequired) {
  VP_REQUIRE_GPU();
  test::TempDir dir;
  const std::string path = test::makeClip(dir.file("high444.mp4"), test::high444Spec());
  const Decoded sw = decode(path, HwDecodeMode::No), autoHw = decode(path, HwDecodeMode::Auto);
  EXPECT_TRUE(autoHw.fatal.empty()) << autoHw.fatal;
  expectSame(autoHw, sw);
  EXPECT_EQ(autoHw.info.decodePath, "software");
  const Decoded required = decode(path, HwDecodeMode::Nvdec);
  EXPECT_TRUE(required.frames.empty());
  EXPECT_NE(required.fatal.find("--hwdec nvdec: NVDEC cannot decode this stream"), std::string::npos)
      << required.fatal;
  EXPECT_EQ(required.fatal.find('\n'), std::string::npos);
}

// --hwdec-codecs decides what auto puts on NVDEC: MPEG-4 Part 2 (not exact by its
// standard) stays in software by default and goes to NVDEC when listed; H.264 goes to
// NVDEC by default and stays in software when the list leaves it out. nvdec ignores the
// list (the user asked for the hardware).
TEST(HwDecode, CodecListDecidesWhatAutoDecodesOnNvdec) {
  VP_REQUIRE_GPU();
  test::TempDir dir;
  test::ClipSpec spec;
  spec.width = 320, spec.height = 240, spec.frames = 6;
  spec.codec = "mpeg4";
  const std::string mpeg4 = test::makeClip(dir.file("part2.mp4"), spec);
  spec.codec = "libx264";
  const std::string h264 = test::makeClip(dir.file("h264.mp4"), spec);
  const auto path = [](const std::string& clip, HwDecodeMode mode, const std::string& codecs) {
    const Decoded d = decode(clip, mode, -1, 0, codecs);
    EXPECT_TRUE(d.fatal.empty()) << d.fatal;
    EXPECT_EQ(d.frames.size(), 6u);
    return d.info.decodePath;
  };
  EXPECT_EQ(path(mpeg4, HwDecodeMode::Auto, kDefaultHwdecCodecs), "software");
  EXPECT_EQ(path(mpeg4, HwDecodeMode::Auto, "all"), "nvdec");
  EXPECT_EQ(path(mpeg4, HwDecodeMode::Auto, "h264, mpeg4"), "nvdec");
  EXPECT_EQ(path(mpeg4, HwDecodeMode::Nvdec, "h264"), "nvdec");
  EXPECT_EQ(path(h264, HwDecodeMode::Auto, kDefaultHwdecCodecs), "nvdec");
  EXPECT_EQ(path(h264, HwDecodeMode::Auto, "hevc,vp9"), "software");
}

// The list's syntax: FFmpeg's video codec names separated by commas (blanks allowed), or all.
TEST(HwDecode, CodecListSyntax) {
  EXPECT_EQ(hwdecCodecsError(kDefaultHwdecCodecs), "");
  EXPECT_EQ(hwdecCodecsError("all"), "");
  EXPECT_EQ(hwdecCodecsError("mpeg2video, mpeg4 ,vc1"), "");
  EXPECT_EQ(hwdecCodecsError("h265"), "'h265' is not a video codec FFmpeg knows (e.g. h264, hevc, vp9, av1, mpeg2video, mpeg4)");
  EXPECT_NE(hwdecCodecsError("aac").find("'aac' is not a video codec"), std::string::npos);
  EXPECT_NE(hwdecCodecsError("h264,,hevc").find("an empty entry"), std::string::npos);
  EXPECT_NE(hwdecCodecsError("").find("an empty entry"), std::string::npos);
  EXPECT_TRUE(hwdecCodecListed("av1", kDefaultHwdecCodecs));
  EXPECT_FALSE(hwdecCodecListed("mpeg4", kDefaultHwdecCodecs));
  EXPECT_FALSE(hwdecCodecListed("mpeg2video", kDefaultHwdecCodecs));
  EXPECT_FALSE(hwdecCodecListed("vc1", kDefaultHwdecCodecs));
  EXPECT_TRUE(hwdecCodecListed("mpeg4", "all"));
  EXPECT_TRUE(hwdecCodecListed("mpeg4", "h264, mpeg4"));
  EXPECT_FALSE(hwdecCodecListed("h26", "h264"));
}

// `path` (3 frames): --hwdec nvdec fails at open with `why`; auto decodes it all in software.
void expectRequiredFailsAutoIsSoftware(const std::string& path, const std::string& why) {
  SourceOptions o;
  o.url = path;
  o.hwdec = HwDecodeMode::Nvdec;
  try {
    openSource(o);
    ADD_FAILURE() << "opened";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
  o.hwdec = HwDecodeMode::Auto;
  const test::DecodedClip d = test::decodeAll(o);
  EXPECT_EQ(d.frames.size(), 3u);
  EXPECT_EQ(d.info.decodePath, "software");
}

// A codec without an nvdec hwaccel: --hwdec nvdec is refused at open (no GPU needed to
// know), auto decodes in software.
TEST(HwDecode, CodecWithoutNvdecIsRefusedWhenRequired) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.frames = 3;
  const std::string path = test::makeClip(dir.file("lossless.mkv"), spec);  // ffv1
  expectRequiredFailsAutoIsSoftware(path, "--hwdec nvdec: NVDEC does not decode ffv1");
}

// Without a CUDA device, --hwdec nvdec on a codec NVDEC takes is a clear error and auto
// is software.
TEST(HwDecode, NoDeviceMeansSoftwareOrAnError) {
  if (cudaDeviceCountOrZero() > 0) GTEST_SKIP() << "a CUDA device is present";
  test::TempDir dir;
  test::ClipSpec spec;
  spec.codec = "libx264";
  spec.frames = 3;
  const std::string path = test::makeClip(dir.file("h264.mp4"), spec);
  expectRequiredFailsAutoIsSoftware(path, "--hwdec nvdec: no hardware decoder");
}

}  // namespace
}  // namespace vp
