// Automatic K (kmeans_auto.h, `kmeans=k=auto`): the CPU twin against the independent
// double-precision silhouette (support/segmentation_reference.h), the choice on frames of
// n flat regions under noise, the schedule's re-choices, and the GPU against the twin.
#include "gpu/filters/kmeans/kmeans_auto.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/filters/kmeans/kmeans_schedule.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/kmeans_cases.h"
#include "support/processor_runs.h"
#include "support/segmentation_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace vp {
namespace {

using namespace kmtest;  // NOLINT(google-build-using-namespace): the suites' shared helpers

// The sample's pixels as reference features (colour only).
std::vector<test::ref::Feature> sampleFeatures(const HostImage& img) {
  const uint64_t n = uint64_t(img.width()) * img.height(), m = silhouetteSamples(n);
  std::vector<test::ref::Feature> out;
  for (uint64_t i = 0; i < m; ++i) {
    const uint64_t at = i * n / m;  // floor(i N / M), as kmeans.h defines the sample
    const uchar4 p = img.at(int(at % uint64_t(img.width())), int(at / uint64_t(img.width())));
    out.push_back({double(p.x), double(p.y), double(p.z), 0, 0});
  }
  return out;
}

// The frame's score (the centroid silhouette of the sample against its K-means centres)
// is the reference's, up to float rounding of the distances.
TEST(KmeansAuto, FrameScoreMatchesTheReference) {
  for (auto [w, h] : {std::pair{97, 61}, {640, 360}})
    for (int k : {2, 5, 11}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " k " + std::to_string(k));
      const HostImage& img = input(w, h, Input::Natural);
      KmeansParams p;
      p.k = k;
      p.init = KmeansInit::KmeansPlusPlus;
      const Result r = runCpu(img, p, KmeansState{});
      const double got = silhouetteScore(silhouetteCpu(img.cview(), r.state, k), uint64_t(w) * h);
      std::vector<test::ref::Feature> centres;
      for (int j = 0; j < k; ++j)
        centres.push_back({r.state.centres[j][0], r.state.centres[j][1], r.state.centres[j][2], 0, 0});
      const auto points = sampleFeatures(img);
      const double want = test::ref::centroidSilhouette(points, test::ref::assign(points, centres), centres);
      EXPECT_NEAR(got, want, 1e-4);
    }
}

// On frames made of n flat colour regions (large blobs) under noise of sigma 4 levels, the
// choice is n.
TEST(KmeansAuto, PicksTheNumberOfFlatRegions) {
  for (int n = 2; n <= 8; ++n)
    for (uint64_t seed : {1u, 2u}) {
      const HostImage img = test::makeBlobs(320, 240, n, 4.0, seed);
      KmeansCpuScratch scratch(img.width(), img.height());
      AutoKScores scores;
      autoKCpu(img.cview(), kAutoKMin, kAutoKMax, 24301, scores, scratch);
      std::string all;
      for (int k = kAutoKMin; k <= kAutoKMax; ++k)
        all += " " + std::to_string(k) + ":" + std::to_string(silhouetteScore(scores.sum(k), 320 * 240));
      EXPECT_EQ(bestK(scores, kAutoKMin, kAutoKMax), n) << "seed " << seed << ", scores" << all;
    }
}

// The search's score of K is the reference silhouette of its own sample clustering: the
// best K's score is close to the reference score of the frame's K-means with that K.
TEST(KmeansAuto, SearchScoresAreSilhouettes) {
  const HostImage img = test::makeBlobs(211, 127, 4, 4.0, 3);
  KmeansCpuScratch scratch(img.width(), img.height());
  AutoKScores scores;
  autoKCpu(img.cview(), 2, 6, 24301, scores, scratch);
  for (int k = 2; k <= 6; ++k) {
    const double s = silhouetteScore(scores.sum(k), 211 * 127);
    EXPECT_GE(s, -1.0);
    EXPECT_LE(s, 1.0);
  }
  EXPECT_GT(silhouetteScore(scores.sum(4), 211 * 127), 0.7) << "four clean regions separate well";
  EXPECT_EQ(scores.sum(7), 0) << "outside the range: untouched";
}

TEST(KmeansAuto, BestKTiesGoToTheLowerK) {
  AutoKScores s;
  s.restart[3][1] = 100, s.restart[4][0] = 100, s.restart[5][2] = 99;
  EXPECT_EQ(bestK(s, 3, 5), 3);
  s.restart[5][kAutoRestarts - 1] = 101;  // a K's score is its best restart's
  EXPECT_EQ(bestK(s, 3, 5), 5);
}

TEST(KmeansAuto, RejectsBadRanges) {
  const HostImage& img = input(16, 9, Input::Random);
  KmeansCpuScratch scratch(16, 9);
  AutoKScores s;
  for (auto [lo, hi] : {std::pair{1, 5}, {6, 5}, {2, kMaxClusters + 1}})
    EXPECT_THROW(autoKCpu(img.cview(), lo, hi, 1, s, scratch), std::invalid_argument) << lo << ".." << hi;
}

// ---- The schedule ----

AutoKRequest counting(int& calls, int k, double score = 0.9) {
  AutoKRequest r;
  r.choose = [&calls, k, score] {
    ++calls;
    return AutoKRequest::Choice{k, score};
  };
  return r;
}

KmeansParams autoParams() {
  KmeansParams p;
  p.k = 0;
  return p;
}

TEST(KmeansAutoSchedule, ChoosesOnTheFirstFrameOnly) {
  KmeansSchedule s;
  bool reinit = false;
  int calls = 0;
  const AutoKRequest r = counting(calls, 5);
  EXPECT_EQ(s.next(autoParams(), true, reinit, &r).k, 5);
  EXPECT_TRUE(reinit);
  for (int f = 1; f < 10; ++f) {
    s.observe(1000, 1000, f == 1, 5, 0.9);
    EXPECT_EQ(s.next(autoParams(), true, reinit, &r).k, 5);
    EXPECT_FALSE(reinit);
  }
  EXPECT_EQ(calls, 1);
}

TEST(KmeansAutoSchedule, ChoosesAgainAtACutAndWhenTheScoreFalls) {
  KmeansSchedule s;
  bool reinit = false;
  int calls = 0;
  AutoKRequest r = counting(calls, 4);
  s.next(autoParams(), true, reinit, &r);  // frame 0: chosen
  s.observe(10'000, 1000, true, 4, 0.9);
  s.next(autoParams(), true, reinit, &r);
  s.observe(10'000, 1000, false, 4, 0.9);
  s.next(autoParams(), true, reinit, &r);
  s.observe(100'000, 1000, false, 4, 0.9);  // frame 2: a cut
  s.next(autoParams(), true, reinit, &r);
  EXPECT_EQ(calls, 1);
  r = counting(calls, 6);
  s.observe(10'000, 1000, false, 4, 0.9);
  EXPECT_EQ(s.next(autoParams(), true, reinit, &r).k, 6);  // frame 4 sees frame 2's cut
  EXPECT_TRUE(reinit);
  EXPECT_EQ(calls, 2);
  // Frames with the new K: the first sets the baseline, a fall of more than kScoreDrop chooses again.
  s.observe(10'000, 1000, true, 6, 0.8);
  s.next(autoParams(), true, reinit, &r);
  s.observe(10'000, 1000, false, 6, 0.8 - KmeansSchedule::kScoreDrop / 2);
  s.next(autoParams(), true, reinit, &r);
  s.observe(10'000, 1000, false, 6, 0.8 - KmeansSchedule::kScoreDrop * 1.5);
  s.next(autoParams(), true, reinit, &r);
  EXPECT_EQ(calls, 2);
  s.observe(10'000, 1000, false, 6, 0.8);
  s.next(autoParams(), true, reinit, &r);  // sees the fall
  EXPECT_EQ(calls, 3);
}

TEST(KmeansAutoSchedule, ARangeChangeOrAFixedKInBetweenChoosesAgain) {
  KmeansSchedule s;
  bool reinit = false;
  int calls = 0;
  AutoKRequest r = counting(calls, 3);
  s.next(autoParams(), true, reinit, &r);
  r.kmax = 8;
  s.next(autoParams(), true, reinit, &r);
  EXPECT_EQ(calls, 2);
  KmeansParams fixed;
  fixed.k = 7;
  EXPECT_EQ(s.next(fixed, true, reinit, &r).k, 7);
  EXPECT_EQ(s.next(autoParams(), true, reinit, &r).k, 3);
  EXPECT_EQ(calls, 3);
}

// ---- GPU against the twin ----

TEST(KmeansAutoGpu, ScoresEqualTheTwin) {
  VP_REQUIRE_GPU();
  for (auto [w, h] : {std::pair{1, 1}, {3, 2}, {97, 61}, {1920, 1080}, {1921, 1081}})
    for (int kind = 0; kind < 3; ++kind) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " kind " + std::to_string(kind));
      const HostImage img = kind == 0   ? test::makeRandom(w, h, 5)
                            : kind == 1 ? test::makeNatural(w, h, 7)
                                        : test::makeBlobs(w, h, 5, 4.0, 9);
      KmeansCpuScratch scratch(w, h);
      AutoKScores want;
      autoKCpu(img.cview(), 2, 32, 24301, want, scratch);
      DeviceImage in = test::upload(img);
      DeviceBuffer scores(sizeof(AutoKScores)), sum(sizeof(int64_t)), state(sizeof(KmeansState));
      VP_CUDA_CHECK(cudaMemset(scores.get(), 0, sizeof(AutoKScores)));
      Stream s;
      autoKGpu(in.view(), 2, 32, 24301, scores.as<AutoKScores>(), s);
      // The frame score against some centres (a K-means run of the twin).
      KmeansParams p;
      p.k = 7;
      const Result r = runCpu(img, p, KmeansState{});
      VP_CUDA_CHECK(cudaMemcpyAsync(state.get(), &r.state, sizeof r.state, cudaMemcpyHostToDevice, s));
      silhouetteGpu(in.view(), state.as<KmeansState>(), 7, sum.as<int64_t>(), s);
      s.synchronize();
      AutoKScores got;
      int64_t frameSum = 0;
      VP_CUDA_CHECK(cudaMemcpy(&got, scores.get(), sizeof got, cudaMemcpyDeviceToHost));
      VP_CUDA_CHECK(cudaMemcpy(&frameSum, sum.get(), sizeof frameSum, cudaMemcpyDeviceToHost));
      for (int k = 2; k <= 32; ++k)
        for (int r = 0; r < kAutoRestarts; ++r)
          EXPECT_EQ(got.restart[k][r], want.restart[k][r]) << "K " << k << "." << r;
      EXPECT_EQ(frameSum, silhouetteCpu(img.cview(), r.state, 7));
    }
}

// Scenes of 2, 4 and 6 flat regions under noise, four frames each (RGBA frames).
test::runs::Clip sceneCuts(int w, int h) {
  test::runs::Clip c;
  c.layout = frameLayout(PixelFormat::Rgba, w, h);
  for (int i = 0; i < 12; ++i) {
    c.rgba.push_back(test::makeBlobs(w, h, 2 + i / 4 * 2, 4.0, uint64_t(10 + i / 4)));
    c.frames.emplace_back(c.layout.bytes);
    for (int y = 0; y < h; ++y)
      std::memcpy(c.frames.back().data() + c.layout.plane[0].offset + y * c.layout.plane[0].pitch,
                  &c.rgba.back().at(0, y), size_t(w) * 4);
  }
  return c;
}

// A whole run on the CPU backend: every scene's K is its number of regions, chosen again
// at the cuts (within the schedule's lag of two frames).
TEST(KmeansAuto, RunChoosesAgainAtSceneCuts) {
  const test::runs::Clip clip = sceneCuts(160, 120);
  const auto params = [](int) { return test::runs::chainParams("kmeans=k=auto"); };
  const std::vector<test::runs::Out> out = test::runs::runAll(*makeCpuProcessor(1), clip, params);
  ASSERT_EQ(out.size(), 12u);
  std::vector<int> ks;
  for (const auto& o : out) ks.push_back(int(o.results[0].get("k")));
  for (int scene = 0; scene < 3; ++scene)  // the last frame of each scene
    EXPECT_EQ(ks[size_t(scene * 4 + 3)], 2 + scene * 2) << "scene " << scene;
  EXPECT_GT(out.back().results[0].get("score"), 0.7);
}

// Whole runs through both processors: the chosen K and every output frame agree, across
// scene cuts.
TEST(KmeansAutoGpu, ProcessorsAgreeThroughSceneCuts) {
  VP_REQUIRE_GPU();
  const test::runs::Clip clip = sceneCuts(211, 127);
  test::runs::expectCudaMatchesCpu(
      clip, {"kmeans=k=auto", "kmeans=k=auto:kmin=3:kmax=6:view=labels", "kmeans=k=auto:spatial=1"});
}

}  // namespace
}  // namespace vp
