// The library face (app/api/vidproc.h), tested through the shared library a user links:
// the same bytes as the program's processor on RGB frames, every layout, state across
// calls, the editing verbs and their errors; on a GPU the device path against the host's.
#include <vidproc/vidproc.h>

#include "gpu/filters/chain.h"
#include "gpu/filters/registry.h"
#include "gpu/processor.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace vp {
namespace {

constexpr int kW = 83, kH = 47;

// A packed image in host memory with `pad` spare bytes at the end of each row.
struct Buffer {
  std::vector<uint8_t> bytes;
  Image image;
  Buffer(int w, int h, PixelLayout layout, size_t pad = 0) {
    const size_t pitch = size_t(w) * size_t(channelsOf(layout)) + pad;
    bytes.assign(pitch * size_t(h), 0xA5);
    image = Image{bytes.data(), pitch, w, h, layout, MemoryKind::Host, 0};
  }
  uint8_t* px(int x, int y) { return bytes.data() + size_t(y) * image.pitch + size_t(x) * channelsOf(image.layout); }
  // The meaningful bytes, padding left out.
  std::vector<uint8_t> rows() const {
    std::vector<uint8_t> out;
    const size_t row = size_t(image.width) * size_t(channelsOf(image.layout));
    for (int y = 0; y < image.height; ++y)
      out.insert(out.end(), bytes.begin() + long(size_t(y) * image.pitch), bytes.begin() + long(size_t(y) * image.pitch + row));
    return out;
  }
};

// Frame `i` of a moving natural clip, as packed RGB24.
std::vector<uint8_t> rgbFrame(int i) { return test::packRgb(test::makeNatural(kW, kH, 7, 0.2f * float(i))); }

Buffer fromRgb(const std::vector<uint8_t>& rgb, PixelLayout layout, size_t pad = 3) {
  Buffer b(kW, kH, layout, pad);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const uint8_t* s = &rgb[(size_t(y) * kW + x) * 3];
      uint8_t* d = b.px(x, y);
      switch (layout) {
        case PixelLayout::RGB: d[0] = s[0], d[1] = s[1], d[2] = s[2]; break;
        case PixelLayout::BGR: d[0] = s[2], d[1] = s[1], d[2] = s[0]; break;
        case PixelLayout::RGBA: d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = 255; break;
        case PixelLayout::BGRA: d[0] = s[2], d[1] = s[1], d[2] = s[0], d[3] = 255; break;
        case PixelLayout::GRAY: d[0] = s[1]; break;
      }
    }
  return b;
}

// What the program's CPU processor makes of RGB frames with this chain, frame by frame.
std::vector<std::vector<uint8_t>> processorRun(const std::string& spec, const std::vector<std::vector<uint8_t>>& frames) {
  auto processor = makeCpuProcessor(1);
  ProcessParams params;
  params.chain = parseChain(spec);
  std::vector<std::vector<uint8_t>> out;
  for (const auto& f : frames) {
    InputFrame in;
    in.data = f.data();
    in.layout = frameLayout(PixelFormat::Rgb24, kW, kH);
    EXPECT_TRUE(processor->submit(in, params));
    const OutputFrame* o = processor->poll(true);
    std::vector<uint8_t> rgb;
    for (int y = 0; y < kH; ++y) rgb.insert(rgb.end(), o->rgb + size_t(y) * o->pitch, o->rgb + size_t(y) * o->pitch + kW * 3);
    out.push_back(std::move(rgb));
    processor->release();
  }
  return out;
}

// The chains the same-bytes tests run: each registered filter at its defaults, and a mix.
std::vector<std::string> registryChains() {
  std::vector<std::string> specs;
  for (const FilterInfo* f : filterRegistry()) specs.emplace_back(f->name);
  specs.emplace_back("blur=r=2,kmeans=k=5,median=r=1");
  specs.emplace_back("none");
  return specs;
}

TEST(ChainApi, HostRgbEqualsTheProgramsProcessorForEveryFilter) {
  const std::vector<std::vector<uint8_t>> frames{rgbFrame(0), rgbFrame(1), rgbFrame(2)};
  for (const std::string& spec : registryChains()) {
    SCOPED_TRACE(spec);
    const auto want = processorRun(spec, frames);
    Chain chain(spec);
    for (size_t i = 0; i < frames.size(); ++i) {
      Buffer in = fromRgb(frames[i], PixelLayout::RGB), out(kW, kH, PixelLayout::RGB, 5);
      chain.process(in.image, out.image);
      ASSERT_EQ(out.rows(), want[i]) << "frame " << i;
      EXPECT_EQ(out.bytes[size_t(kW) * 3], 0xA5) << "padding written";
    }
  }
}

TEST(ChainApi, EveryLayoutCarriesTheSameResult) {
  const std::vector<uint8_t> frame = rgbFrame(0);
  const std::string spec = "blur=r=1,kmeans=k=4";
  const std::vector<uint8_t> rgb = processorRun(spec, {frame})[0];
  for (PixelLayout layout : {PixelLayout::RGB, PixelLayout::BGR, PixelLayout::RGBA, PixelLayout::BGRA}) {
    SCOPED_TRACE(std::string(layoutName(layout)));
    Chain chain(spec);
    Buffer in = fromRgb(frame, layout), out(kW, kH, layout, 1);
    chain.process(in.image, out.image);
    EXPECT_EQ(out.rows(), fromRgb(rgb, layout, 0).rows());
  }
  // Grey in: the chain sees (g, g, g); grey out is the luma, which keeps grey as it is.
  std::vector<uint8_t> grey(frame.size());
  for (size_t i = 0; i < frame.size(); i += 3) grey[i] = grey[i + 1] = grey[i + 2] = frame[i + 1];
  const std::vector<uint8_t> greyResult = processorRun(spec, {grey})[0];
  Chain chain(spec);
  Buffer in = fromRgb(frame, PixelLayout::GRAY), out(kW, kH, PixelLayout::GRAY, 2);
  chain.process(in.image, out.image);
  EXPECT_EQ(out.rows(), fromRgb(greyResult, PixelLayout::GRAY, 0).rows());
}

TEST(ChainApi, LayoutsConvertOnTheWay) {
  // Empty chain: RGB in, BGRA out swaps and adds opaque alpha; GRAY out is the rounded luma.
  const std::vector<uint8_t> frame = rgbFrame(3);
  Chain chain("none");
  Buffer in = fromRgb(frame, PixelLayout::RGB), bgra(kW, kH, PixelLayout::BGRA), gray(kW, kH, PixelLayout::GRAY);
  chain.process(in.image, bgra.image);
  chain.process(in.image, gray.image);
  EXPECT_EQ(bgra.rows(), fromRgb(frame, PixelLayout::BGRA, 0).rows());
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const uint8_t* p = &frame[(size_t(y) * kW + x) * 3];
      ASSERT_EQ(*gray.px(x, y), (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8) << x << "," << y;
    }
}

TEST(ChainApi, InPlaceOnTheHost) {
  const std::vector<uint8_t> frame = rgbFrame(1);
  const auto want = processorRun("median=r=2", {frame})[0];
  Chain chain("median=r=2");
  Buffer img = fromRgb(frame, PixelLayout::RGB);
  chain.process(img.image, img.image);
  EXPECT_EQ(img.rows(), want);
}

TEST(ChainApi, BatchEqualsSuccessiveCalls) {
  std::vector<std::vector<uint8_t>> frames;
  std::vector<uint8_t> batch;
  for (int i = 0; i < 4; ++i) {
    frames.push_back(rgbFrame(i));
    batch.insert(batch.end(), frames.back().begin(), frames.back().end());
  }
  const auto want = processorRun("kmeans=k=6", frames);
  std::vector<uint8_t> out(batch.size());
  Chain chain("kmeans=k=6");
  const size_t frameBytes = size_t(kW) * kH * 3;
  chain.processBatch(Image{batch.data(), size_t(kW) * 3, kW, kH, PixelLayout::RGB}, frameBytes,
                     Image{out.data(), size_t(kW) * 3, kW, kH, PixelLayout::RGB}, frameBytes, 4);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(std::equal(want[size_t(i)].begin(), want[size_t(i)].end(), out.begin() + long(size_t(i) * frameBytes)))
        << "frame " << i;
}

TEST(ChainApi, ResetStartsColdAgain) {
  Chain chain("kmeans=k=5");
  Buffer a = fromRgb(rgbFrame(0), PixelLayout::RGB), b = fromRgb(rgbFrame(1), PixelLayout::RGB);
  Buffer first(kW, kH, PixelLayout::RGB), again(kW, kH, PixelLayout::RGB);
  chain.process(a.image, first.image);
  chain.process(b.image, again.image);
  chain.reset();
  chain.process(a.image, again.image);
  EXPECT_EQ(again.rows(), first.rows());
  const auto m = chain.metrics();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].label, "kmeans#1");
  EXPECT_GT(m[0].get("iterations", -1), 0);
  EXPECT_EQ(m[0].get("reinit", -1), 1);  // a cold start
  EXPECT_GE(m[0].ms, 0);
}

TEST(ChainApi, EditingVerbs) {
  Chain chain("blur=r=3,kmeans=k=6");
  EXPECT_EQ(chain.describe(), "blur=r=3,kmeans=k=6");
  chain.set("kmeans.k", 5);
  chain.set("blur#1.border", "wrap");
  chain.set("r", 2);  // the first element with an option r
  EXPECT_EQ(chain.get("kmeans#2.k"), 5);
  EXPECT_EQ(chain.get("blur.r"), 2);
  EXPECT_EQ(chain.describe(), "blur=r=2:border=wrap,kmeans=k=5");
  chain.append("median=r=1");
  chain.insert(0, "gauss");
  EXPECT_EQ(chain.size(), 4);
  chain.enable("median", false);
  chain.remove("1");
  EXPECT_EQ(chain.describe().rfind("blur=r=2:border=wrap,kmeans=k=5,median", 0), 0u) << chain.describe();
  chain.setSpec("none");
  EXPECT_EQ(chain.size(), 0);
  EXPECT_EQ(chain.spec(), "none");
}

TEST(ChainApi, ErrorsNameTheProblem) {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { Chain("blur=r=3,kmeans=q=2"); }).find("at 16"), std::string::npos)
      << message([] { Chain("blur=r=3,kmeans=q=2"); });
  EXPECT_NE(message([] { Chain("blurr"); }).find("unknown filter"), std::string::npos);
  Chain chain("kmeans");
  EXPECT_NE(message([&] { chain.set("kmeans.k", 99); }).find("k must be"), std::string::npos);
  EXPECT_NE(message([&] { chain.set("blur.r", 2); }).find("no blur"), std::string::npos);
  EXPECT_NE(message([&] { chain.set("kmeans.", 2); }).find("option name"), std::string::npos);
  Buffer in(kW, kH, PixelLayout::RGB), small(kW - 1, kH, PixelLayout::RGB);
  EXPECT_NE(message([&] { chain.process(in.image, small.image); }).find("83x47"), std::string::npos);
  Image bad = in.image;
  bad.pitch = 10;
  EXPECT_NE(message([&] { chain.process(bad, in.image); }).find("pitch"), std::string::npos);
  bad = in.image;
  bad.data = nullptr;
  EXPECT_NE(message([&] { chain.process(bad, in.image); }).find("null"), std::string::npos);
  Image device = in.image;
  device.memory = MemoryKind::Device;
  EXPECT_NE(message([&] { chain.process(device, in.image); }).find("both"), std::string::npos);
  Chain cpu("blur", Device::Cpu);
  Image dev2 = device;
  EXPECT_NE(message([&] { cpu.process(device, dev2); }).find("CPU"), std::string::npos);
  if (!cudaAvailable()) {
    EXPECT_THROW(chain.process(device, dev2), std::runtime_error);
  }
}

TEST(ChainApi, FiltersDescribeTheRegistry) {
  const auto list = filters();
  ASSERT_EQ(list.size(), filterRegistry().size());
  const auto kmeans = std::find_if(list.begin(), list.end(), [](const FilterDescription& f) { return f.name == "kmeans"; });
  ASSERT_NE(kmeans, list.end());
  EXPECT_TRUE(kmeans->temporal);
  ASSERT_FALSE(kmeans->options.empty());
  EXPECT_EQ(kmeans->options[0].name, "k");
  EXPECT_EQ(kmeans->options[0].type, "int");
}

// ---- the device path ------------------------------------------------------------------

// A device copy of a host buffer (same pitch), and back.
struct DeviceCopy {
  void* ptr = nullptr;
  Image image;
  explicit DeviceCopy(const Buffer& b) {
    EXPECT_EQ(cudaMalloc(&ptr, b.bytes.size()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr, b.bytes.data(), b.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    // A pageable copy may return before its DMA lands, and the tests' streams are
    // non-blocking (no order with the legacy stream's copy).
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    image = b.image;
    image.data = ptr;
    image.memory = MemoryKind::Device;
  }
  ~DeviceCopy() { cudaFree(ptr); }
  void into(Buffer& b) const { EXPECT_EQ(cudaMemcpy(b.bytes.data(), ptr, b.bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess); }
};

TEST(ChainApiGpu, DeviceEqualsHostForEveryFilterAndLayout) {
  VP_REQUIRE_GPU();
  for (const std::string& spec : registryChains()) {
    for (PixelLayout layout : {PixelLayout::RGB, PixelLayout::RGBA, PixelLayout::BGR, PixelLayout::GRAY}) {
      SCOPED_TRACE(spec + " " + std::string(layoutName(layout)));
      Chain host(spec), device(spec);
      cudaStream_t stream = nullptr;
      ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
      for (int i = 0; i < 3; ++i) {
        Buffer in = fromRgb(rgbFrame(i), layout, i), want(kW, kH, layout, 1), got(kW, kH, layout, 1);
        host.process(in.image, want.image);
        DeviceCopy din(in), dout(got);
        device.process(din.image, dout.image, stream);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        dout.into(got);
        ASSERT_EQ(got.bytes, want.bytes) << "frame " << i;
      }
      const auto hm = host.metrics(), dm = device.metrics();
      ASSERT_EQ(hm.size(), dm.size());
      for (size_t e = 0; e < hm.size(); ++e) EXPECT_EQ(hm[e].get("iterations", -1), dm[e].get("iterations", -1));
      cudaStreamDestroy(stream);
    }
  }
}

TEST(ChainApiGpu, InPlaceAndAcrossStreams) {
  VP_REQUIRE_GPU();
  Chain host("blur=r=2,kmeans=k=6"), device("blur=r=2,kmeans=k=6");
  cudaStream_t streams[2];
  for (auto& s : streams) ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const PixelLayout layout = i % 2 ? PixelLayout::RGBA : PixelLayout::RGB;
    Buffer img = fromRgb(rgbFrame(i), layout, 4), want(kW, kH, layout, 4);
    host.process(img.image, want.image);
    DeviceCopy d(img);
    device.process(d.image, d.image, streams[i % 2]);  // in place, alternating streams
    ASSERT_EQ(cudaStreamSynchronize(streams[i % 2]), cudaSuccess);
    d.into(img);
    EXPECT_EQ(img.rows(), want.rows());
  }
  for (auto& s : streams) cudaStreamDestroy(s);
}

TEST(ChainApiGpu, CudaChainOnHostImages) {
  VP_REQUIRE_GPU();
  Chain host("kmeans=k=7,edges"), cuda("kmeans=k=7,edges", Device::Cuda);
  for (int i = 0; i < 3; ++i) {
    Buffer in = fromRgb(rgbFrame(i), PixelLayout::BGR), want(kW, kH, PixelLayout::BGR), got(kW, kH, PixelLayout::BGR);
    host.process(in.image, want.image);
    cuda.process(in.image, got.image);
    EXPECT_EQ(got.bytes, want.bytes) << "frame " << i;
  }
  cuda.setTiming(true);
  Buffer in = fromRgb(rgbFrame(4), PixelLayout::RGB), out(kW, kH, PixelLayout::RGB);
  cuda.process(in.image, out.image);
  const auto m = cuda.metrics();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_GT(m[0].ms, 0);
  EXPECT_GT(m[0].get("iterations", -1), 0);
}

}  // namespace
}  // namespace vp
