// The kmeans chain element's warm option through the processors, on both backends:
// warm=0 makes every frame a function of that frame alone (a fresh processor given only
// frame n agrees with one given frames 0..n) and re-initialises each frame; warm=1
// re-initialises only the first frame of a slowly moving clip.
#include "gpu/color/color_convert.h"
#include "gpu/filters/chain.h"
#include "gpu/processor.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace vp {
namespace {

struct Frame {
  std::vector<uint8_t> rgb;
  double reinit = -1;  // the element's "reinit" metric
};

// Frames of a moving natural clip, yuv420p, processed one at a time with `chain`.
std::vector<Frame> run(Processor& p, const char* chain, int w, int h, int first, int count) {
  const FrameLayout layout = frameLayout(PixelFormat::Yuv420p, w, h);
  ProcessParams params;
  params.chain = parseChain(chain);
  std::vector<Frame> out;
  for (int i = first; i < first + count; ++i) {
    std::vector<uint8_t> yuv(layout.bytes);
    rgbaToYuv420pCpu(test::makeNatural(w, h, 5, 0.2f * float(i)).view(), layout, yuv.data(), ColorSpace{});
    EXPECT_TRUE(p.submit(InputFrame{yuv.data(), layout, ColorSpace{}, int64_t(i) * 40'000}, params).has_value());
    const OutputFrame* f = p.poll(true);
    Frame r;
    r.rgb.assign(f->rgb, f->rgb + f->pitch * size_t(f->height));
    r.reinit = f->chain[0].get("reinit", -1);
    out.push_back(std::move(r));
    p.release();
  }
  return out;
}

void expectWarmOption(const std::function<std::unique_ptr<Processor>()>& make) {
  constexpr int w = 96, h = 64, n = 6;
  auto chained = make();
  const std::vector<Frame> cold = run(*chained, "kmeans=k=6:warm=0:iterations=5", w, h, 0, n);
  for (int i = 1; i < n; ++i) {
    auto fresh = make();
    const std::vector<Frame> alone = run(*fresh, "kmeans=k=6:warm=0:iterations=5", w, h, i, 1);
    EXPECT_EQ(alone[0].rgb, cold[size_t(i)].rgb) << "warm=0: frame " << i << " depends on the frames before it";
  }
  auto warmProcessor = make();
  const std::vector<Frame> warm = run(*warmProcessor, "kmeans=k=6", w, h, 0, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(cold[size_t(i)].reinit, 1) << "warm=0, frame " << i;
    EXPECT_EQ(warm[size_t(i)].reinit, i == 0 ? 1 : 0) << "warm=1, frame " << i;
  }
}

TEST(KmeansFilter, WarmOptionCpu) { expectWarmOption([] { return makeCpuProcessor(1); }); }

TEST(KmeansFilter, WarmOptionCuda) {
  VP_REQUIRE_GPU();
  expectWarmOption([] { return makeCudaProcessor(3); });
}

}  // namespace
}  // namespace vp
