// K-means on the GPU against its CPU twin, bit for bit (labels, centres, cost, output), under
// both loads, so every shipped launch configuration (kmeans_policy.h); and the policy itself.
#include "gpu/filters/kmeans/kmeans.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/kmeans_cases.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace vp {
namespace {

using namespace kmtest;  // NOLINT(google-build-using-namespace): the suites' shared helpers

// ---- GPU vs CPU twin ----

// Every shipped launch configuration (kmeans_policy.h) is reached by some load and k: the
// tests run each case under both loads, and the cases cover every cluster bucket.
constexpr KmeansLoad kLoads[] = {KmeansLoad::Alone, KmeansLoad::Shared};
const char* loadName(KmeansLoad load) { return load == KmeansLoad::Alone ? "alone" : "shared"; }

class KmeansGpuVsCpu : public testing::TestWithParam<Case> {};

TEST_P(KmeansGpuVsCpu, Identical) {
  VP_REQUIRE_GPU();
  const Case& c = GetParam();
  const HostImage& img = input(c.w, c.h, c.input);
  KmeansParams p = paramsOf(c);
  const Result want = runCpu(img, p, warmState());
  for (KmeansLoad load : kLoads) {
    KmeansWorkspace ws(load);
    SCOPED_TRACE(ws.policy(c.w, c.h, c.k).name);
    expectSame(runGpu(img, p, warmState(), ws), want, c.k);
  }
}

std::vector<Case> gpuCases() {
  std::vector<Case> cases = smallCases();
  for (auto [w, h] : {std::pair{1921, 1081}, {1920, 1080}})
    for (Input in : {Input::Random, Input::Natural})
      for (int k : {1, 2, 8, 32})
        for (KmeansInit init : {KmeansInit::Uniform, KmeansInit::KmeansPlusPlus, KmeansInit::Warm})
          for (auto [it, eps] : {std::pair{20, 0.f}, {20, 0.5f}})
            cases.push_back({w, h, in, k, init, it, eps});
  cases.push_back({1921, 1081, Input::Natural, 16, KmeansInit::Uniform, 0, 0.f});
  cases.push_back({1921, 1081, Input::Natural, 12, KmeansInit::Uniform, 5, 0.f});
  cases.push_back({1920, 1080, Input::Random, 4, KmeansInit::Uniform, 3, 0.f});
  // 4K: the alone policy caches only part of each block's quads, alone-k32 runs 3 blocks per SM.
  cases.push_back({3840, 2160, Input::Natural, 8, KmeansInit::Uniform, 20, 0.f});
  cases.push_back({3839, 2161, Input::Natural, 32, KmeansInit::Uniform, 3, 0.f});
  return cases;
}
INSTANTIATE_TEST_SUITE_P(All, KmeansGpuVsCpu, testing::ValuesIn(gpuCases()), caseName);

// Frames over 16.8 Mpx: the grid.sync() barrier (the packed counted sums would overflow), and
// at the alone policy's 132 x 768-thread blocks more than kMaxTiles tiles per block, so the
// plain assignment pass runs for k <= 16 too.
TEST(KmeansGpu, LargeFrameFallbacksMatchCpu) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(4501, 4000, Input::Natural);
  for (int k : {8, 32}) {
    KmeansParams p;
    p.k = k, p.maxIterations = 3, p.epsilon = 0.f;
    const Result want = runCpu(img, p, {});
    for (KmeansLoad load : kLoads) {
      KmeansWorkspace ws(load);
      SCOPED_TRACE(std::string(loadName(load)) + " k " + std::to_string(k));
      expectSame(runGpu(img, p, {}, ws), want, k);
    }
  }
}

TEST(KmeansGpu, WarmFramesOfAClipMatchCpu) {
  VP_REQUIRE_GPU();
  KmeansParams p;  // defaults: k 8, 20 iterations, epsilon 0.01
  std::vector<Result> cpu;
  KmeansState cpuState;  // each backend carries its own state from frame to frame
  for (int f = 0; f < 6; ++f) {
    p.init = f == 0 ? KmeansInit::Uniform : KmeansInit::Warm;
    cpu.push_back(runCpu(input(1920, 1080, Input::Natural, 0.1f * f), p, cpuState));
    cpuState = cpu.back().state;
  }
  for (KmeansLoad load : kLoads) {
    KmeansWorkspace ws(load);
    KmeansState gpuState;
    for (int f = 0; f < 6; ++f) {
      p.init = f == 0 ? KmeansInit::Uniform : KmeansInit::Warm;
      Result gpu = runGpu(input(1920, 1080, Input::Natural, 0.1f * f), p, gpuState, ws);
      gpuState = gpu.state;
      SCOPED_TRACE(std::string(loadName(load)) + " frame " + std::to_string(f));
      expectSame(gpu, cpu[f], p.k);
    }
  }
}

// A view starting one pixel into each row: no 16-byte loads or stores.
TEST(KmeansGpu, UnalignedViewsDoNotChangeResults) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(1921, 1081, Input::Random);
  KmeansParams p;
  p.k = 8, p.maxIterations = 5, p.epsilon = 0.f;
  const int w = img.width() - 1, h = img.height();
  HostImage sub(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) sub.at(x, y) = img.at(x + 1, y);
  Result cpu = runCpu(sub, p, {});
  for (KmeansLoad load : kLoads) {
    SCOPED_TRACE(loadName(load));
    KmeansWorkspace ws(load);
    DeviceImage in = test::upload(img), out(img.width(), img.height());
    test::poison(out);
    ConstRgbaView inView{in.view().data + 1, in.pitch(), w, h};
    RgbaView outView{out.view().data + 1, out.pitch(), w, h};
    DeviceBuffer state(sizeof(KmeansState));
    kmeansGpu(inView, outView, nullptr, state.as<KmeansState>(), p, ws, nullptr);
    KmeansState gpu;
    VP_CUDA_CHECK(cudaMemcpy(&gpu, state.get(), sizeof gpu, cudaMemcpyDeviceToHost));
    HostImage got = test::download(out), gotSub(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) gotSub.at(x, y) = got.at(x + 1, y);
    EXPECT_EQ(test::compare(gotSub, cpu.out).differing, 0u);
    EXPECT_EQ(got.at(0, 5).x, test::kPoison);  // column 0 untouched
    EXPECT_EQ(gpu.cost, cpu.state.cost);
    EXPECT_EQ(std::memcmp(gpu.centres, cpu.state.centres, sizeof(float) * 4 * 8), 0);
  }
}

TEST(KmeansGpu, InPlaceEqualsOutOfPlace) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(1921, 1081, Input::Natural);
  for (int it : {0, 5}) {
    KmeansParams p;
    p.maxIterations = it;
    Result want = runCpu(img, p, {});
    for (KmeansLoad load : kLoads) {
      KmeansWorkspace ws(load);
      DeviceImage d = test::upload(img);
      DeviceBuffer state(sizeof(KmeansState));
      kmeansGpu(d.view(), d.view(), nullptr, state.as<KmeansState>(), p, ws, nullptr);
      EXPECT_EQ(test::compare(test::download(d), want.out).differing, 0u) << loadName(load) << " it " << it;
    }
  }
}

// Consecutive launches on one workspace with different configurations (k picks the policy):
// each leaves the scratch it used clean for the next (sum copies, cost, counters).
TEST(KmeansGpu, SwitchingPoliciesOnOneWorkspace) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(640, 360, Input::Natural);
  for (KmeansLoad load : kLoads) {
    KmeansWorkspace ws(load);
    for (int round = 0; round < 2; ++round)
      for (int k : {3, 8, 16, 32, 8}) {
        KmeansParams p;
        p.k = k, p.maxIterations = 7, p.epsilon = 0.f;
        SCOPED_TRACE(std::string(ws.policy(img.width(), img.height(), k).name) + " k " + std::to_string(k) +
                     " round " + std::to_string(round));
        expectSame(runGpu(img, p, {}, ws), runCpu(img, p, {}), k);
      }
  }
}

// warmFrom: the initial centres come from another state, which stays unchanged; the
// state's own centres (poisoned: NaN) are not read. Ignored by the other inits.
TEST(KmeansGpu, WarmFromAnotherState) {
  VP_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1, 1}, {37, 11}, {1921, 1081}})
    for (KmeansInit init : {KmeansInit::Warm, KmeansInit::Uniform, KmeansInit::KmeansPlusPlus}) {
      const HostImage& img = input(w, h, Input::Natural);
      KmeansParams p;
      p.k = 8, p.init = init;
      const KmeansState warm = warmState();
      const Result want = runCpu(img, p, warm);
      for (KmeansLoad load : kLoads) {
        SCOPED_TRACE(std::string(loadName(load)) + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
                     initName(init));
        KmeansWorkspace ws(load);
        KmeansState fromAfter;
        expectSame(runGpu(img, p, warm, ws, &fromAfter), want, p.k);
        EXPECT_EQ(std::memcmp(&fromAfter, &warm, sizeof warm), 0);
      }
    }
}

// Warm-start centres outside [0, 255] switch the candidate test off (its error bound assumes
// them inside) until the first update brings them in: still identical to the CPU twin.
TEST(KmeansGpu, CandidatesWithCentresOutOfRange) {
  VP_REQUIRE_GPU();
  const HostImage& img = input(1921, 1081, Input::Natural);
  KmeansState warm = warmState();
  const float odd[][3] = {
      {-40.5f, 12.f, 300.25f}, {1e6f, -1e6f, 0.f}, {255.5f, 255.f, 255.f}, {-0.25f, 0.f, 0.f}};
  for (int j = 0; j < 4; ++j)
    for (int f = 0; f < 3; ++f) warm.centres[2 * j][f] = odd[j][f];
  for (int it : {0, 1, 3, 20}) {
    KmeansParams p;
    p.k = 8, p.init = KmeansInit::Warm, p.maxIterations = it, p.epsilon = 0.f;
    const Result want = runCpu(img, p, warm);
    for (KmeansLoad load : kLoads) {
      KmeansWorkspace ws(load);
      SCOPED_TRACE("it " + std::to_string(it) + " " + loadName(load));
      expectSame(runGpu(img, p, warm, ws), want, p.k);
    }
  }
}

// The selection itself: what each load and k get (the launcher checks the kernel exists).
TEST(KmeansPolicy, ShippedConfigurations) {
  const KmeansPolicy alone = selectKmeansPolicy(132, 1920, 1080, 8, KmeansLoad::Alone);
  EXPECT_STREQ(alone.name, "alone");
  EXPECT_EQ(alone.blockThreads, 768);
  EXPECT_EQ(alone.sumSlots, 4);
  EXPECT_TRUE(alone.interleaveTiles && alone.pixelCache);
  EXPECT_EQ(selectKmeansPolicy(132, 1920, 1080, 4, KmeansLoad::Alone).sumSlots, 1);
  const KmeansPolicy k32 = selectKmeansPolicy(132, 1920, 1080, 32, KmeansLoad::Alone);
  EXPECT_STREQ(k32.name, "alone-k32");
  EXPECT_EQ(k32.blockThreads, 256);
  EXPECT_EQ(k32.blocksPerSm, 2);
  EXPECT_EQ(selectKmeansPolicy(132, 3840, 2160, 32, KmeansLoad::Alone).blocksPerSm, 3);
  for (int k : {1, 8, 17, 32}) {
    const KmeansPolicy shared = selectKmeansPolicy(132, 3840, 2160, k, KmeansLoad::Shared);
    EXPECT_STREQ(shared.name, "shared");
    EXPECT_EQ(shared.blockThreads, 256);
    EXPECT_EQ(shared.blocksPerSm, 2);
    EXPECT_EQ(shared.sumSlots, 1);
    EXPECT_FALSE(shared.interleaveTiles || shared.pixelCache);
  }
  for (KmeansLoad load : kLoads)
    for (int k = 1; k <= kMaxClusters; ++k)
      EXPECT_GT(std::strlen(selectKmeansPolicy(132, 1920, 1080, k, load).evidence), 20u) << k;
}

TEST(KmeansGpu, ArgumentChecks) {
  VP_REQUIRE_GPU();
  KmeansWorkspace ws;
  DeviceBuffer state(sizeof(KmeansState));
  expectArgumentChecks([&](ConstRgbaView in, RgbaView out, const KmeansParams& p) {
    kmeansGpu(in, out, nullptr, state.as<KmeansState>(), p, ws, nullptr);
  });
  DeviceImage in(8, 8), out(8, 8);
  EXPECT_THROW(kmeansGpu(in.view(), out.view(), nullptr, nullptr, KmeansParams{}, ws, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace vp
