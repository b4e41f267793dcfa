// The compare view: composeCompareCpu against the contract written out here;
// composeCompareGpu == composeCompareCpu (aligned and unaligned views); through both
// processors the view against the definition applied to the input and the compare-off
// output, and keepProcessed's picture equals the compare-off output. Tolerances: none.
#include "gpu/color/compare_view.h"
#include "gpu/cuda/cuda_resources.h"
#include "support/processor_runs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {
namespace {

using namespace test::runs;

// The contract, written out: packed RGB24 rows of the original and the processed frame
// (w x h) -> the view. Split: c = round(split * w); x < c original, x >= c processed,
// columns c-1 and c inside the frame painted 255. Side: 2w wide, original then processed.
std::vector<uint8_t> compareDefinition(const std::vector<uint8_t>& original, const std::vector<uint8_t>& processed,
                                       int w, int h, CompareMode mode, float split) {
  const int outW = mode == CompareMode::Side ? 2 * w : w;
  const int c = int(std::floor(double(split) * w + 0.5));
  std::vector<uint8_t> out(size_t(outW) * 3 * size_t(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < outW; ++x) {
      uint8_t* o = &out[(size_t(y) * outW + x) * 3];
      const uint8_t* src;
      if (mode == CompareMode::Side)
        src = x < w ? &original[(size_t(y) * w + x) * 3] : &processed[(size_t(y) * w + x - w) * 3];
      else
        src = x < c ? &original[(size_t(y) * w + x) * 3] : &processed[(size_t(y) * w + x) * 3];
      const bool line = mode == CompareMode::Split && (x == c - 1 || x == c);
      for (int ch = 0; ch < 3; ++ch) o[ch] = line ? 255 : src[ch];
    }
  return out;
}

struct View {
  CompareMode mode;
  float split;
};
const View kViews[] = {{CompareMode::Split, 0.f},  {CompareMode::Split, 0.37f}, {CompareMode::Split, 0.5f},
                       {CompareMode::Split, 1.f},  {CompareMode::Side, 0.5f}};

std::string viewName(const View& v) {
  return v.mode == CompareMode::Side ? "side" : "split " + std::to_string(v.split);
}

TEST(CompareViewCpu, SplitColumnAndWidth) {
  EXPECT_EQ(splitColumn(0.f, 17), 0);
  EXPECT_EQ(splitColumn(1.f, 17), 17);
  EXPECT_EQ(splitColumn(0.5f, 17), 9);  // 8.5: halves round up
  EXPECT_EQ(splitColumn(0.5f, 16), 8);
  EXPECT_EQ(splitColumn(0.37f, 333), 123);
  EXPECT_EQ(splitColumn(0.5f, 1), 1);
  EXPECT_EQ(splitColumn(0.49f, 1), 0);
  EXPECT_EQ(compareWidth(CompareMode::Off, 17), 17);
  EXPECT_EQ(compareWidth(CompareMode::Split, 17), 17);
  EXPECT_EQ(compareWidth(CompareMode::Side, 17), 34);
}

TEST(CompareViewCpu, MatchesTheDefinition) {
  for (auto [w, h] : {std::pair{1, 1}, {2, 1}, {3, 2}, {17, 9}, {333, 197}}) {
    const HostImage original = test::makeRandom(w, h, 5), processed = test::makeNatural(w, h, 6);
    const std::vector<uint8_t> o = test::packRgb(original), p = test::packRgb(processed);
    std::vector<View> views(std::begin(kViews), std::end(kViews));
    views.push_back({CompareMode::Split, 1.f / float(w)});
    views.push_back({CompareMode::Split, (float(w) - 0.5f) / float(w)});
    for (const View& v : views) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + viewName(v));
      const int outW = compareWidth(v.mode, w);
      const size_t pitch = size_t(outW) * 3 + 5;  // padding the view must leave alone
      std::vector<uint8_t> dst(pitch * size_t(h), test::kPoison);
      composeCompareCpu(original.cview(), processed.cview(), v.mode, v.split, dst.data(), pitch);
      EXPECT_TRUE(packedRows(dst.data(), pitch, outW, h) == compareDefinition(o, p, w, h, v.mode, v.split));
      for (int y = 0; y < h; ++y)
        for (size_t b = size_t(outW) * 3; b < pitch; ++b) ASSERT_EQ(dst[y * pitch + b], test::kPoison) << "row " << y;
    }
  }
}

TEST(CompareViewCpu, RefusesBadArguments) {
  const HostImage a = test::makeRandom(8, 4, 1), b = test::makeRandom(8, 4, 2), small = test::makeRandom(7, 4, 3);
  std::vector<uint8_t> dst(16 * 3 * 4);
  EXPECT_THROW(composeCompareCpu(a.cview(), small.cview(), CompareMode::Split, 0.5f, dst.data(), 24),
               std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Off, 0.5f, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Split, 1.5f, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Split, -0.1f, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Split, NAN, dst.data(), 24), std::invalid_argument);
  EXPECT_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Side, 0.5f, dst.data(), 24), std::invalid_argument)
      << "side needs 2 x 8 x 3 bytes a row";
  EXPECT_NO_THROW(composeCompareCpu(a.cview(), b.cview(), CompareMode::Side, 0.5f, dst.data(), 48));
}

// GPU == CPU, with aligned views (the kernel's wide path) and unaligned ones (a view one
// pixel into its buffer, a destination pitch that is no multiple of 4).
TEST(CompareViewGpu, SameBytesAsCpu) {
  VP_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1, 1}, {17, 9}, {333, 197}, {1921, 1081}})
    for (bool aligned : {true, false}) {
      const HostImage original = test::makeRandom(w + 1, h, 5), processed = test::makeNatural(w + 1, h, 6);
      const DeviceImage dOriginal = test::upload(original), dProcessed = test::upload(processed);
      const int skip = aligned ? 0 : 1;
      auto sub = [&](const HostImage& img) {
        return ConstRgbaView{img.data() + skip, img.pitch(), w, img.height()};
      };
      auto dsub = [&](const DeviceImage& img) {
        return ConstRgbaView{img.view().data + skip, img.pitch(), w, img.height()};
      };
      for (const View& v : kViews) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (aligned ? " aligned " : " unaligned ") +
                     viewName(v));
        const int outW = compareWidth(v.mode, w);
        const size_t pitch = aligned ? (size_t(outW) * 3 + 15) / 16 * 16 : size_t(outW) * 3 + 1;
        std::vector<uint8_t> want(pitch * size_t(h), test::kPoison), got(pitch * size_t(h));
        composeCompareCpu(sub(original), sub(processed), v.mode, v.split, want.data(), pitch);
        DeviceBuffer dst(got.size());
        VP_CUDA_CHECK(cudaMemset(dst.get(), test::kPoison, got.size()));
        VP_CUDA_CHECK(cudaDeviceSynchronize());  // the legacy-stream memset vs the non-blocking stream below
        Stream s;
        composeCompareGpu(dsub(dOriginal), dsub(dProcessed), v.mode, v.split, dst.as<uint8_t>(), pitch, s);
        s.synchronize();
        VP_CUDA_CHECK(cudaMemcpy(got.data(), dst.get(), got.size(), cudaMemcpyDeviceToHost));
        size_t differing = 0, first = 0;
        for (size_t i = got.size(); i-- > 0;)
          if (got[i] != want[i]) ++differing, first = i;
        EXPECT_EQ(differing, 0u) << "first at row " << first / pitch << " byte " << first % pitch;
      }
    }
}

// Through the processors, RGBA input (so the original is the input picture): the view is
// the definition applied to the input and to the compare-off output of the same frames;
// keepProcessed brings that output along; compare off, processed is the view itself.
class CompareViewPipeline : public testing::TestWithParam<RunOn> {};

TEST_P(CompareViewPipeline, ViewMatchesDefinitionAndProcessedMatchesCompareOff) {
  VP_REQUIRE_BACKEND(GetParam());
  for (auto [w, h] : {std::pair{17, 9}, {333, 197}}) {
    const Clip clip = makeClip(w, h, 3, PixelFormat::Rgba);
    auto plain = makeBackend(GetParam(), 2);
    const ProcessParams off = chainParams("blur=r=3,kmeans=k=6");
    const std::vector<Out> processed = runAll(*plain, clip, [&](int) { return off; });
    ASSERT_EQ(processed.size(), 3u);
    for (const Out& o : processed) {
      EXPECT_TRUE(o.processedIsRgb) << "compare off: processed is the view";
      EXPECT_EQ(o.width, w);
      EXPECT_EQ(o.frameWidth, w);
    }
    for (const View& v : kViews)
      for (bool keep : {false, true}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " " + viewName(v) + (keep ? " keep" : ""));
        ProcessParams params = off;
        params.compare = v.mode;
        params.split = v.split;
        params.keepProcessed = keep;
        auto p = makeBackend(GetParam(), 2);
        const std::vector<Out> shown = runAll(*p, clip, [&](int) { return params; });
        ASSERT_EQ(shown.size(), 3u);
        for (size_t i = 0; i < shown.size(); ++i) {
          const Out& o = shown[i];
          EXPECT_EQ(o.width, compareWidth(v.mode, w));
          EXPECT_EQ(o.height, h);
          EXPECT_EQ(o.frameWidth, w);
          EXPECT_EQ(o.frameHeight, h);
          EXPECT_TRUE(o.rgb == compareDefinition(test::packRgb(clip.rgba[i]), processed[i].rgb, w, h, v.mode, v.split))
              << "frame " << i;
          EXPECT_FALSE(o.processedIsRgb);
          if (keep) {
            EXPECT_TRUE(o.processed == processed[i].rgb) << "frame " << i;
          } else {
            EXPECT_TRUE(o.processed.empty()) << "frame " << i << ": processed without keepProcessed";
          }
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(CompareBackends, CompareViewPipeline, testing::Values(RunOn::Cpu, RunOn::Cuda),
                         [](const auto& info) { return std::string(backendName(info.param)); });

}  // namespace
}  // namespace vp

