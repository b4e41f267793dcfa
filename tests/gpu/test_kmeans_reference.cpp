// The K-means CPU twin against the independent reference of support/kmeans_reference.h
// (double-precision distances, its own centre update, stop rule, rounding and k-means++;
// no code or arithmetic shared with gpu/), over the whole parameter matrix at sizes from
// one pixel to several 128-pixel tiles per row (300x7, 641x37: the tile pruning and the
// k-means++ sample spacing floor(i*N/M) with N > 16384).
//
// Tolerances, from the contract: a pixel whose nearest centre is within 0.25 squared
// levels of another one may go to either (the implementation scores in float, within 0.1
// of exact); the reference asks the twin's own assignment for those pixels only and checks
// its choice. Every other result must be equal: labels, output bytes, cost, iteration
// count and the centres bit for bit; shift2 within float rounding of the exact value.
// The GPU kernel equals the twin bit for bit (test_kmeans.cpp), so this covers it too.
#include "gpu/filters/kmeans/kmeans.h"
#include "support/images.h"
#include "support/kmeans_reference.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

namespace vp {
namespace {

using test::ref::Centre;
using test::ref::RefInit;
using test::ref::RefParams;
using test::ref::RefResult;

struct TwinRun {
  std::vector<uint8_t> labels;
  HostImage out;
  KmeansState state;
};

// OpenMP threads for the twin's calls inside a scope, restored after it. This file runs the
// twin on one thread: its results do not depend on the thread count (integer sums; checked
// with threads by test_kmeans.cpp), and on a loaded 2-core machine running ctest -j 2 each
// parallel region of the many short runs here can cost milliseconds of spinning (measured:
// 259 s for this matrix with threads under ctest -j2, against 4 s alone).
class OmpThreads {
 public:
  explicit OmpThreads(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

TwinRun runTwin(const HostImage& img, const KmeansParams& p, const std::vector<Centre>& warm) {
  TwinRun r{std::vector<uint8_t>(img.width() * size_t(img.height()), 0xA5), HostImage(img.width(), img.height()), {}};
  test::poison(r.out);
  std::memset(static_cast<void*>(&r.state), 0xFF, sizeof r.state);  // poison: NaN centres, absurd counts
  for (size_t j = 0; j < warm.size() && j < size_t(kMaxClusters); ++j)
    for (int ch = 0; ch < 3; ++ch) r.state.centres[j][ch] = warm[j][ch];
  kmeansCpu(img.cview(), r.out.view(), r.labels.data(), r.state, p);
  return r;
}

// Warm-start centres: inside 0..255 (the twin prunes candidates per tile), or some outside
// it (the twin scores every centre; the output clamps).
std::vector<Centre> warmCentres(bool inRange) {
  test::SplitMix64 rng(inRange ? 99 : 7);
  std::vector<Centre> c(kMaxClusters);
  for (Centre& centre : c)
    for (float& v : centre)
      v = inRange ? float(rng.next() % 25400) / 100.f + 0.3f : float(int(rng.next() % 300) - 20) + 0.75f;
  return c;
}

enum class Init { Uniform, PlusPlus, WarmIn, WarmOut };
const char* initName(Init i) {
  static const char* names[] = {"uniform", "kpp", "warm-in-range", "warm-out-of-range"};
  return names[int(i)];
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Runs one parameter set both ways and compares everything; returns the reference result.
RefResult compareOne(const HostImage& img, int k, Init init, int maxIterations, float epsilon) {
  OmpThreads one(1);
  KmeansParams p;
  p.k = k, p.maxIterations = maxIterations, p.epsilon = epsilon, p.seed = 0x1234 + uint64_t(k);
  p.init = init == Init::Uniform ? KmeansInit::Uniform : init == Init::PlusPlus ? KmeansInit::KmeansPlusPlus
                                                                                : KmeansInit::Warm;
  const std::vector<Centre> warm = init == Init::WarmIn ? warmCentres(true)
                                   : init == Init::WarmOut ? warmCentres(false)
                                                           : std::vector<Centre>{};
  const TwinRun twin = runTwin(img, p, warm);

  RefParams rp;
  rp.k = k, rp.maxIterations = maxIterations, rp.epsilon = epsilon, rp.seed = p.seed, rp.warm = warm;
  rp.init = init == Init::Uniform ? RefInit::Uniform : init == Init::PlusPlus ? RefInit::PlusPlus : RefInit::Warm;
  // The twin's assignment against given centres: a warm start with no iteration.
  auto guide = [&](const std::vector<Centre>& centres) {
    KmeansParams gp = p;
    gp.init = KmeansInit::Warm, gp.maxIterations = 0;
    return runTwin(img, gp, centres).labels;
  };
  const auto* bytes = reinterpret_cast<const uint8_t*>(img.data());
  RefResult want = test::ref::kmeansReference(bytes, img.width(), img.height(), rp, guide, twin.state.iterations);

  for (const std::string& v : want.violations) ADD_FAILURE() << "contract violation: " << v;
  // Initial centres: the twin's after zero iterations.
  KmeansParams p0 = p;
  p0.maxIterations = 0;
  const TwinRun start = runTwin(img, p0, warm);
  for (int j = 0; j < k; ++j)
    for (int ch = 0; ch < 3; ++ch)
      EXPECT_TRUE(sameBits(start.state.centres[j][ch], want.initial[j][ch]))
          << "initial centre " << j << "." << ch << ": " << start.state.centres[j][ch] << " vs " << want.initial[j][ch];

  EXPECT_EQ(twin.state.k, k);
  EXPECT_EQ(twin.state.iterations, want.iterations);
  EXPECT_EQ(twin.state.cost, want.cost);
  if (want.iterations == 0) {
    EXPECT_TRUE(std::isinf(twin.state.shift2)) << twin.state.shift2;
  } else {
    const double tol = 1e-5 * want.shift2 + 1e-4 * std::sqrt(want.shift2) + 1e-30;
    EXPECT_NEAR(double(twin.state.shift2), want.shift2, tol);
  }
  for (int j = 0; j < k; ++j)
    for (int ch = 0; ch < 3; ++ch)
      EXPECT_TRUE(sameBits(twin.state.centres[j][ch], want.centres[j][ch]))
          << "centre " << j << "." << ch << ": " << twin.state.centres[j][ch] << " vs " << want.centres[j][ch];
  size_t labelDiffs = 0, outDiffs = 0, first = 0;
  for (size_t i = twin.labels.size(); i-- > 0;) {
    if (twin.labels[i] != want.labels[i]) ++labelDiffs, first = i;
    if (std::memcmp(&twin.out.data()[i], &want.rgba[4 * i], 4) != 0) ++outDiffs;
  }
  EXPECT_EQ(labelDiffs, 0u) << "first at " << first << ": " << int(twin.labels[first]) << " vs "
                            << int(want.labels[first]);
  EXPECT_EQ(outDiffs, 0u);
  return want;
}

struct Size {
  int w, h;
  bool natural;
  int k;
};

class KmeansTwinVsReference : public testing::TestWithParam<Size> {};

TEST_P(KmeansTwinVsReference, WholeMatrix) {
  const Size s = GetParam();
  const HostImage img = s.natural ? test::makeNatural(s.w, s.h, 7) : test::makeRandom(s.w, s.h, 42);
  int64_t ambiguous = 0, guided = 0;
  int ambiguousStops = 0;
  for (Init init : {Init::Uniform, Init::PlusPlus, Init::WarmIn, Init::WarmOut})
    for (auto [it, eps] : {std::pair{0, 0.f}, {3, 0.f}, {20, 0.f}, {50, 1.f}}) {
      SCOPED_TRACE(std::string(initName(init)) + " iterations " + std::to_string(it) + " epsilon " +
                   std::to_string(eps));
      const RefResult r = compareOne(img, s.k, init, it, eps);
      ambiguous += r.ambiguousPixels;
      guided += r.guidedPixels;
      ambiguousStops += r.ambiguousStops;
    }
  RecordProperty("ambiguous_pixels", std::to_string(ambiguous));
  RecordProperty("guided_pixels", std::to_string(guided));
  RecordProperty("ambiguous_stops", std::to_string(ambiguousStops));
}

std::vector<Size> sizes() {
  std::vector<Size> v;
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {37, 11}, {300, 7}, {641, 37}})
    for (bool natural : {false, true})
      for (int k : {1, 2, 8, 32}) v.push_back({w, h, natural, k});
  return v;
}

std::string sizeName(const testing::TestParamInfo<Size>& info) {
  const Size& s = info.param;
  return std::to_string(s.w) + "x" + std::to_string(s.h) + (s.natural ? "_natural" : "_random") + "_k" +
         std::to_string(s.k);
}

INSTANTIATE_TEST_SUITE_P(Matrix, KmeansTwinVsReference, testing::ValuesIn(sizes()), sizeName);

// Images built so the answer is known without any K-means code: flat colour regions
// (k = regions: each centre lands on its region's colour, cost 0) and a two-colour
// image whose halves are ties for a centre midway (ties go to the lowest index).
TEST(KmeansReference, KnownAnswers) {
  HostImage img(300, 7);
  const uchar4 colours[3] = {make_uchar4(250, 3, 9, 17), make_uchar4(8, 240, 30, 200), make_uchar4(20, 40, 230, 255)};
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 300; ++x) img.at(x, y) = colours[x / 100];
  RefParams rp;
  rp.k = 3, rp.maxIterations = 10, rp.epsilon = 0.f;
  const auto* bytes = reinterpret_cast<const uint8_t*>(img.data());
  const RefResult r = test::ref::kmeansReference(bytes, 300, 7, rp);
  EXPECT_EQ(r.cost, 0u);
  EXPECT_EQ(r.iterations, 10);  // epsilon 0: shift2 (0) < 0 never holds
  EXPECT_EQ(r.shift2, 0.0);
  EXPECT_EQ(std::memcmp(r.rgba.data(), bytes, r.rgba.size()), 0);
  // Equidistant warm centres (10 and 12 for a pixel of 11): the lower index wins.
  HostImage grey(4, 1);
  for (int x = 0; x < 4; ++x) grey.at(x, 0) = make_uchar4(11, 11, 11, 255);
  rp.k = 2, rp.maxIterations = 0, rp.init = RefInit::Warm, rp.warm = {{12, 12, 12}, {10, 10, 10}};
  const RefResult t = test::ref::kmeansReference(reinterpret_cast<const uint8_t*>(grey.data()), 4, 1, rp);
  for (uint8_t l : t.labels) EXPECT_EQ(l, 0);
  EXPECT_EQ(t.cost, 4u * 3u);
  EXPECT_EQ(t.ambiguousPixels, 0);  // integer centres: scores are exact
  KmeansParams p;
  p.k = 2, p.maxIterations = 0, p.init = KmeansInit::Warm;
  const TwinRun twin = runTwin(grey, p, rp.warm);
  for (uint8_t l : twin.labels) EXPECT_EQ(l, 0);

  // A centre exactly between two levels: (10 + 11) / 2 = 10.5 is written as 11 (roundf:
  // halves away from zero), 0.5 as 1; both by the reference and by the twin.
  HostImage halves(4, 1);
  halves.at(0, 0) = make_uchar4(10, 0, 250, 1);
  halves.at(1, 0) = make_uchar4(11, 1, 251, 2);
  halves.at(2, 0) = make_uchar4(200, 200, 0, 3);
  halves.at(3, 0) = make_uchar4(201, 201, 1, 4);
  rp = RefParams{};
  rp.k = 2, rp.maxIterations = 1, rp.epsilon = 0.f, rp.init = RefInit::Warm, rp.warm = {{10, 0, 250}, {200, 200, 0}};
  const RefResult h = test::ref::kmeansReference(reinterpret_cast<const uint8_t*>(halves.data()), 4, 1, rp);
  EXPECT_EQ(h.centres[0], (Centre{10.5f, 0.5f, 250.5f}));
  const uint8_t wantOut[16] = {11, 1, 251, 1, 11, 1, 251, 2, 201, 201, 1, 3, 201, 201, 1, 4};
  EXPECT_EQ(std::memcmp(h.rgba.data(), wantOut, 16), 0);
  p.maxIterations = 1, p.epsilon = 0.f;
  const TwinRun ht = runTwin(halves, p, rp.warm);
  EXPECT_EQ(std::memcmp(ht.out.data(), wantOut, 16), 0) << int(ht.out.data()[0].x) << " " << int(ht.out.data()[0].y);
}

}  // namespace
}  // namespace vp
