// vp::VideoReader (app/api/vidproc.h): the frames the program's chain receives, in the
// caller's layout and memory. A lossless RGB clip gives back its pictures exactly; a
// coded clip gives what the program's source and convert give; a GPU reader equals the CPU one.
#include <vidproc/vidproc.h>

#include "gpu/color/color_convert.h"
#include "support/clips.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vp {
namespace {

// Every frame of `path` as packed rows of `layout` in host memory, with its stamps.
struct Read {
  std::vector<std::vector<uint8_t>> frames;
  std::vector<FrameStamp> stamps;
};

Read readAll(const std::string& path, Device device, PixelLayout layout = PixelLayout::RGB) {
  VideoReader reader(path, device);
  Read r;
  int w = 0, h = 0;
  while (reader.peek(&w, &h)) {
    const size_t pitch = size_t(w) * channelsOf(layout) + 8;  // padded rows
    std::vector<uint8_t> host(pitch * h);
    FrameStamp stamp;
    if (reader.memory() == MemoryKind::Device) {
      void* d = nullptr;
      EXPECT_EQ(cudaMalloc(&d, host.size()), cudaSuccess);
      EXPECT_TRUE(reader.read(Image{d, pitch, w, h, layout, MemoryKind::Device, 0}, &stamp));
      EXPECT_EQ(cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
      cudaFree(d);
    } else {
      EXPECT_TRUE(reader.read(Image{host.data(), pitch, w, h, layout, MemoryKind::Host, 0}, &stamp));
    }
    std::vector<uint8_t> rows;
    for (int y = 0; y < h; ++y)
      rows.insert(rows.end(), host.begin() + long(y * pitch), host.begin() + long(y * pitch + size_t(w) * channelsOf(layout)));
    r.frames.push_back(std::move(rows));
    r.stamps.push_back(stamp);
  }
  return r;
}

test::ClipSpec rgbSpec() {
  test::ClipSpec s;
  s.width = 67, s.height = 41, s.frames = 6, s.codec = "ffv1", s.pixFmt = "bgr0";
  return s;
}

TEST(VideoReader, LosslessRgbClipGivesItsPicturesBack) {
  test::TempDir dir;
  const test::ClipSpec spec = rgbSpec();
  const std::string path = test::makeClip(dir.file("rgb.mkv"), spec);
  for (PixelLayout layout : {PixelLayout::RGB, PixelLayout::BGRA}) {
    const Read r = readAll(path, Device::Cpu, layout);
    ASSERT_EQ(r.frames.size(), size_t(spec.frames));
    for (int i = 0; i < spec.frames; ++i) {
      const HostImage want = test::clipFrameRgba(spec, i);
      const std::vector<uint8_t>& got = r.frames[size_t(i)];
      const int c = channelsOf(layout);
      for (int p = 0; p < spec.width * spec.height; ++p) {
        const uchar4 q = want.data()[p];
        const uint8_t* g = &got[size_t(p) * c];
        const bool same = layout == PixelLayout::RGB ? g[0] == q.x && g[1] == q.y && g[2] == q.z
                                                     : g[0] == q.z && g[1] == q.y && g[2] == q.x;
        ASSERT_TRUE(same) << "frame " << i << " pixel " << p;
      }
      EXPECT_EQ(r.stamps[size_t(i)].ptsUs, int64_t(i) * 1'000'000 / spec.fps);
      EXPECT_EQ(r.stamps[size_t(i)].index, i);
    }
  }
}

TEST(VideoReader, CodedClipGivesWhatTheProgramConverts) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.width = 70, spec.height = 38, spec.frames = 5, spec.codec = "libx264";
  const std::string path = test::makeClip(dir.file("h264.mp4"), spec);
  const test::DecodedClip decoded = test::decodeAll(path);
  const Read r = readAll(path, Device::Cpu);
  ASSERT_EQ(r.frames.size(), decoded.frames.size());
  for (size_t i = 0; i < r.frames.size(); ++i) {
    const test::DecodedFrame& f = decoded.frames[i];
    HostImage rgba(f.info.layout.width, f.info.layout.height);
    convertToRgbaCpu(planarView(f.info.layout, f.data.data()), rgba.view(), f.info.color);
    EXPECT_EQ(r.frames[i], test::packRgb(rgba)) << "frame " << i;
  }
  VideoReader reader(path, Device::Cpu);
  EXPECT_EQ(reader.codec(), "h264");
  EXPECT_EQ(reader.width(), 70);
  EXPECT_EQ(reader.decodePath(), "software");
}

TEST(VideoReader, ErrorsAreClear) {
  test::TempDir dir;
  try {
    VideoReader reader(dir.file("missing.mp4"), Device::Cpu);
    FAIL() << "opened a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.mp4"), std::string::npos) << e.what();
  }
  const std::string path = test::makeClip(dir.file("rgb.mkv"), rgbSpec());
  VideoReader reader(path, Device::Cpu);
  std::vector<uint8_t> small(10 * 10 * 3);
  EXPECT_THROW(reader.read(Image{small.data(), 30, 10, 10, PixelLayout::RGB}), std::invalid_argument);
  Image device{small.data(), 67 * 3, 67, 41, PixelLayout::RGB, MemoryKind::Device, 0};
  EXPECT_THROW(reader.read(device), std::invalid_argument);
  const std::string junk = test::randomBytesFile(dir.file("junk.mp4"), 5000, 3);
  EXPECT_THROW(VideoReader(junk, Device::Cpu), std::runtime_error);
}

TEST(VideoReader, SizeChangesShowInPeek) {
  test::TempDir dir;
  test::ClipSpec spec;
  spec.width = 48, spec.height = 32, spec.frames = 6, spec.codec = "mjpeg", spec.changeAt = 3;
  spec.changedWidth = 64, spec.changedHeight = 40;
  const std::string path = test::makeClip(dir.file("change.mkv"), spec);
  const Read r = readAll(path, Device::Cpu);
  ASSERT_EQ(r.frames.size(), 6u);
  EXPECT_EQ(r.frames[2].size(), size_t(48 * 32 * 3));
  EXPECT_EQ(r.frames[3].size(), size_t(64 * 40 * 3));
}

TEST(VideoReaderGpu, CudaReaderEqualsTheCpuReader) {
  VP_REQUIRE_GPU();
  test::TempDir dir;
  test::ClipSpec h264;
  h264.width = 130, h264.height = 74, h264.frames = 8, h264.codec = "libx264";
  for (const std::string& path :
       {test::makeClip(dir.file("rgb.mkv"), rgbSpec()), test::makeClip(dir.file("h264.mp4"), h264)}) {
    SCOPED_TRACE(path);
    VideoReader cuda(path, Device::Cuda);
    EXPECT_EQ(cuda.memory(), MemoryKind::Device);
    const Read want = readAll(path, Device::Cpu, PixelLayout::RGBA), got = readAll(path, Device::Cuda, PixelLayout::RGBA);
    ASSERT_EQ(got.frames.size(), want.frames.size());
    for (size_t i = 0; i < want.frames.size(); ++i) EXPECT_EQ(got.frames[i], want.frames[i]) << "frame " << i;
  }
  VideoReader nvdec(dir.file("h264.mp4"), Device::Cuda);
  int w = 0, h = 0;
  ASSERT_TRUE(nvdec.peek(&w, &h));  // the path is known once a frame is decoded
  EXPECT_EQ(nvdec.decodePath(), "nvdec");
}

}  // namespace
}  // namespace vp
