// Median filter: the CPU twin against the sort-the-window reference (exact), the GPU
// against the twin byte for byte (every method at every radius it supports, every border),
// the argument checks of both backends, and the filter in a chain on both processors.
#include "gpu/color/pixel_format.h"
#include "gpu/filters/chain.h"
#include "gpu/filters/median/median.h"
#include "gpu/filters/median/median_filter.h"
#include "gpu/filters/median/median_sorted.h"
#include "gpu/filters/median/median_strips.h"
#include "gpu/processor.h"
#include "support/borders.h"
#include "support/filter_args.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/median_reference.h"
#include "support/sub_views.h"
#include "support/view_checks.h"
#include "support/warp_strips_on_host.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace vp {
namespace {

using test::kBorderModes;
constexpr MedianMethod kMethods[] = {MedianMethod::Strips, MedianMethod::Sorted, MedianMethod::Network,
                                     MedianMethod::Histogram, MedianMethod::HistogramWide};

std::string describe(int w, int h, const char* image, const MedianParams& p) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + image + " r=" + std::to_string(p.radius) + " " +
         test::borderName(p.border);
}

HostImage cpuMedian(const HostImage& in, const MedianParams& p, MedianCpuScratch& scratch) {
  HostImage out(in.width(), in.height());
  test::poison(out);
  medianCpu(in.cview(), out.view(), p, scratch);
  return out;
}

// Inputs that are hard on a selection: flat, two values, ramps, impulses, and the
// natural and random images.
HostImage makeCase(const std::string& kind, int w, int h, uint64_t seed) {
  if (kind == "random") return test::makeRandom(w, h, seed);
  if (kind == "natural") return test::makeNatural(w, h, seed);
  HostImage img(w, h);
  test::SplitMix64 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t a = uint8_t(rng.next());
      uchar4 v{};
      if (kind == "flat")
        v = make_uchar4(77, 0, 255, 9);
      else if (kind == "two-values")
        v = (rng.next() & 1) ? make_uchar4(0, 255, 17, a) : make_uchar4(255, 0, 18, a);
      else if (kind == "checker")
        v = ((x + y) & 1) ? make_uchar4(255, 255, 255, a) : make_uchar4(0, 0, 0, a);
      else if (kind == "ramps")
        v = make_uchar4(uint8_t(x * 7), uint8_t(y * 5), uint8_t(255 - ((x + y) * 3)), a);
      else if (kind == "impulses") {  // salt and pepper on a dark ramp
        const uint64_t n = rng.next() % 8;
        const uint8_t base = uint8_t(x + y);
        v = n == 0   ? make_uchar4(255, 255, 255, a)
            : n == 1 ? make_uchar4(0, 0, 0, a)
                     : make_uchar4(base, base / 2, 3, a);
      }
      img.at(x, y) = v;
    }
  return img;
}

TEST(MedianCpu, MatchesReferenceAtEveryRadius) {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {17, 9}, {40, 31}};
  for (auto [w, h] : sizes) {
    MedianCpuScratch scratch(w, h);
    for (const char* image : {"random", "natural"}) {
      const HostImage in = makeCase(image, w, h, 11);
      for (BorderMode mode : kBorderModes)
        for (int r = kMinMedianRadius; r <= kMaxMedianRadius; ++r) {
          const MedianParams p{r, mode};
          const test::ImageDiff d = test::compare(cpuMedian(in, p, scratch), test::ref::medianFilter(in, p));
          ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
        }
    }
  }
}

TEST(MedianCpu, MatchesReferenceOnAdversarialInputs) {
  const int w = 33, h = 21;
  MedianCpuScratch scratch(w, h);
  for (const char* image : {"flat", "two-values", "checker", "ramps", "impulses"}) {
    const HostImage in = makeCase(image, w, h, 5);
    for (BorderMode mode : kBorderModes)
      for (int r : {1, 2, 3, 4, 7, 8, 15}) {
        const MedianParams p{r, mode};
        const test::ImageDiff d = test::compare(cpuMedian(in, p, scratch), test::ref::medianFilter(in, p));
        ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
      }
  }
}

// Coordinates worth checking on a long axis: where the window meets a border, and a stride.
std::vector<int> sampleAxis(int n, int r) {
  std::set<int> s;
  for (int c : {0, r, n - 1 - r, n - 1})
    for (int d = -2; d <= 2; ++d)
      if (c + d >= 0 && c + d < n) s.insert(c + d);
  for (int i = 0; i < n; i += 97) s.insert(i);
  return {s.begin(), s.end()};
}

TEST(MedianCpu, MatchesReferenceAt1080pSampled) {
  const int w = 1921, h = 1081;
  MedianCpuScratch scratch(w, h);
  const HostImage in = test::makeNatural(w, h, 23);
  for (auto [r, mode] : {std::pair{2, BorderMode::Reflect}, std::pair{15, BorderMode::Replicate},
                         std::pair{15, BorderMode::Zero}}) {
    const MedianParams p{r, mode};
    const HostImage out = cpuMedian(in, p, scratch);
    for (int y : sampleAxis(h, r))
      for (int x : sampleAxis(w, r)) {
        const uchar4 got = out.at(x, y), want = test::ref::medianPixel(in, x, y, r, mode);
        ASSERT_TRUE(std::memcmp(&got, &want, sizeof got) == 0)
            << describe(w, h, "natural", p) << " at " << x << "," << y;
      }
  }
}

TEST(MedianCpu, KeepsAlphaAndFlatImages) {
  const int w = 29, h = 13;
  MedianCpuScratch scratch(w, h);
  const HostImage random = test::makeRandom(w, h, 3);
  const HostImage out = cpuMedian(random, MedianParams{4, BorderMode::Wrap}, scratch);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ASSERT_EQ(out.at(x, y).w, random.at(x, y).w) << x << "," << y;
  const HostImage flat = makeCase("flat", w, h, 1);
  for (BorderMode mode : {BorderMode::Replicate, BorderMode::Reflect, BorderMode::Wrap})
    EXPECT_EQ(test::compare(cpuMedian(flat, MedianParams{kMaxMedianRadius, mode}, scratch), flat).differing,
              0u);
}

// Both backends reject the same arguments; `median` runs one backend on views of a / b.
template <class Median>
void expectArgumentChecks(RgbaView a, RgbaView b, Median&& median) {
  auto run = [&](ConstRgbaView in, RgbaView out, MedianParams p) { median(in, out, p); };
  EXPECT_THROW(run(a, b, MedianParams{0}), std::invalid_argument);
  EXPECT_THROW(run(a, b, MedianParams{kMaxMedianRadius + 1}), std::invalid_argument);
  EXPECT_THROW(run(a, b, MedianParams{2, static_cast<BorderMode>(7)}), std::invalid_argument);
  test::expectViewChecks(a, b, [&](ConstRgbaView in, RgbaView out) { run(in, out, MedianParams{2}); });
  EXPECT_NO_THROW(run(a, b, MedianParams{kMaxMedianRadius, BorderMode::Wrap}));
}

// ---- the strip method's per-lane stages run on the host for every block, warp and lane,
// each shuffle replaced by reading the neighbouring lanes' samples ----

// Runs a two-columns-a-lane strip layout (median::PairLane<halo>) on the host: every lane's
// samples of R, then outputs(lane, lanes, out) for every owning lane, lanes[d] its neighbour
// d lanes to the right.
template <int R, class Lane = median::PairStripLane, class Outputs>
HostImage pairStripsOnHost(const HostImage& in, BorderMode border, Outputs&& outputs) {
  const int w = in.width(), h = in.height();
  HostImage out(w, h);
  test::poison(out);
  test::runLanesOnHost<Lane>(
      Lane::blocksAcross(w), stripBlocksDown(h), w,
      [&](const Lane& l) {
        median::PairSamples<R> s;
        median::pairSamples<R>(in.cview(), border, l, s);
        return s;
      },
      [w](const Lane& l) { return l.ownsColumns(w); },
      [&](const Lane& l, const median::PairSamples<R>* lanes) { outputs(l, lanes, out); });
  return out;
}

template <int R>
HostImage stripsOnHost(const HostImage& in, BorderMode border) {
  constexpr int N = median::kMedianStripSamples<R>;
  const int h = in.height();
  return pairStripsOnHost<R>(
      in, border, [&](const median::PairStripLane& l, const median::PairSamples<R>* lanes, HostImage& out) {
        uint32_t m[3][kStripRows];
        for (int c = 0; c < 3; ++c) {
          uint32_t words[3][N];
          for (int d = 0; d < 3; ++d)
            for (int i = 0; i < N; ++i)
              words[d][i] = median::lanePair(lanes[d - 1].p0[i], lanes[d - 1].p1[i], c);
          for (int q = 0; q < kStripRows; q += 2)
            median::pairQuad<R>(words[0], words[1], words[2], q, m[c][q], m[c][q + 1]);
        }
        for (int i = 0; i < kStripRows && l.y0 + i < h; ++i)
          median::storePair(out.view(), l.x, l.y0 + i, m[0][i], m[1][i], m[2][i], lanes[0].p0[i + R],
                            lanes[0].p1[i + R]);
      });
}

TEST(MedianStripsOnHost, KernelStagesMatchCpuTwin) {
  static_assert(kMaxStripMedianRadius == 1, "emulate every instantiated radius");
  const std::vector<std::pair<int, int>> sizes = {{1, 1}, {2, 3}, {3, 2}, {7, 5}, {59, 9}, {61, 17}, {121, 23}, {333, 70}};
  for (auto [w, h] : sizes) {
    MedianCpuScratch scratch(w, h);
    for (const char* image : {"random", "two-values", "impulses"}) {
      const HostImage in = makeCase(image, w, h, 41);
      for (BorderMode mode : kBorderModes)
        for (int r = 1; r <= kMaxStripMedianRadius; ++r) {
          const MedianParams p{r, mode};
          const HostImage got = stripsOnHost<1>(in, mode);
          const test::ImageDiff d = test::compare(got, cpuMedian(in, p, scratch));
          ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
        }
    }
  }
}

// ---- the sorted-columns method: its merges, sorts and selections on every 0-1 input (a
// network of min / max is right on all inputs when it is right on all 0-1 inputs), whole
// windows against nth_element, its stages run on the host for every block, warp and lane ----

// Lane words holding the value v in both lanes, as IntLanes hold a byte.
uint32_t bothLanes(uint32_t v) { return v | v << 16; }

// An ascending 0-1 list of N words with `ones` ones.
template <int N>
median::Words<N> ascending01(int ones) {
  median::Words<N> a;
  for (int i = 0; i < N; ++i) a[i] = bothLanes(i >= N - ones ? 1u : 0u);
  return a;
}

template <int M, int N>
void expectMergesEvery01Input() {
  for (int ones = 0; ones <= M; ++ones)
    for (int onesB = 0; onesB <= N; ++onesB) {
      const median::Words<M + N> out =
          median::oddEvenMerge<median::IntLanes>(ascending01<M>(ones), ascending01<N>(onesB));
      ASSERT_EQ(out, ascending01<M + N>(ones + onesB)) << M << "+" << N << ": " << ones << ", " << onesB;
    }
}

template <int N>
void expectSortsEvery01Input() {
  for (uint32_t bits = 0; bits < 1u << N; ++bits) {
    median::Words<N> a;
    for (int i = 0; i < N; ++i) a[i] = bothLanes(bits >> i & 1u);
    ASSERT_EQ(median::oddEvenSort<median::IntLanes>(a), ascending01<N>(__builtin_popcount(bits)))
        << N << ": " << bits;
  }
}

// The K-th of x u y on every pair of ascending 0-1 lists.
template <int K, int NX, int NY>
void expectKthEvery01Input() {
  for (int ones = 0; ones <= NX; ++ones)
    for (int onesY = 0; onesY <= NY; ++onesY) {
      const uint32_t want = bothLanes(NX + NY - ones - onesY < K ? 1u : 0u);
      ASSERT_EQ((median::kthOfTwo<K, median::IntLanes>(ascending01<NX>(ones), ascending01<NY>(onesY))), want)
          << K << " of " << NX << "+" << NY << ": " << ones << ", " << onesY;
    }
}

TEST(MedianSortedOnHost, MergesSortsAndSelectionsRightOnEvery01Input) {
  expectMergesEvery01Input<1, 1>();
  expectMergesEvery01Input<2, 2>();
  expectMergesEvery01Input<4, 1>();
  expectMergesEvery01Input<6, 1>();
  expectMergesEvery01Input<5, 5>();
  expectMergesEvery01Input<7, 7>();
  expectMergesEvery01Input<10, 10>();
  expectMergesEvery01Input<14, 14>();
  expectMergesEvery01Input<14, 28>();
  expectMergesEvery01Input<7, 3>();
  expectSortsEvery01Input<4>();
  expectSortsEvery01Input<6>();
  expectSortsEvery01Input<9>();
  expectKthEvery01Input<13, 20, 5>();
  expectKthEvery01Input<25, 42, 7>();
}

// Random windows of bytes in both lanes (lanes independent) through the whole chain of one
// lane word, against nth_element: column windows sorted in pairs, pair merges, selection.
template <int R>
void expectWindowMedians(uint32_t seed) {
  constexpr int N = median::kSortedSide<R>, K = (N * N + 1) / 2;
  using IL = median::IntLanes;
  auto next = [&] { return (seed = seed * 1664525u + 1013904223u) >> 24; };
  for (int trial = 0; trial < 20000; ++trial) {
    median::Words<N> cols[N], unused;
    std::vector<uint32_t> lo, hi;
    for (int k = 0; k < N; ++k) {
      uint32_t w[2 * R + 2];
      for (uint32_t& v : w) v = next() * 257u | next() * 257u << 16;
      median::sortedColumnPair<IL, R>(w, cols[k], unused);  // sample rows 0 .. 2R
      for (int i = 0; i < N; ++i) lo.push_back(w[i] & 0xFFFFu), hi.push_back(w[i] >> 16);
    }
    uint32_t m;
    if constexpr (R == 2) {
      m = median::sortedMedian<IL>(median::pairMerge<IL>(cols[0], cols[1]),
                                   median::pairMerge<IL>(cols[2], cols[3]), cols[4]);
    } else {
      m = median::sortedMedian<IL>(cols[0], median::pairMerge<IL>(cols[1], cols[2]),
                                   median::pairMerge<IL>(cols[3], cols[4]),
                                   median::pairMerge<IL>(cols[5], cols[6]));
    }
    std::nth_element(lo.begin(), lo.begin() + K - 1, lo.end());
    std::nth_element(hi.begin(), hi.begin() + K - 1, hi.end());
    ASSERT_EQ(m, lo[K - 1] | hi[K - 1] << 16) << "r " << R << " trial " << trial;
  }
}

TEST(MedianSortedOnHost, WindowMediansOfRandomBytes) {
  expectWindowMedians<2>(12345);
  expectWindowMedians<3>(54321);
}

// The kernel's stages for one lane and channel: lanes[1 - R .. R - 1]'s words of the row
// pair's sample rows (r = 3: lane l + 1's M needs lane l + 2's S), the medians of the pair's
// two output rows.
template <class L, int R>
void sortedPairOnHost(const median::PairSamples<R>* lanes, int q, int c, uint32_t (&m)[2]) {
  constexpr int N = median::kSortedSide<R>;
  median::Words<N> s[5][2];  // lanes l - 2 .. l + 2 (d + 2)
  for (int d = 1 - R; d <= R - 1; ++d) {
    uint32_t w[2 * R + 2];
    for (int i = 0; i < 2 * R + 2; ++i) w[i] = L::pack(lanes[d].p0[q + i], lanes[d].p1[q + i], c);
    median::sortedColumnPair<L, R>(w, s[d + 2][0], s[d + 2][1]);
  }
  for (int j = 0; j < 2; ++j) {
    auto odd = [&](int d) { return median::oddColumns(s[d + 2][j], s[d + 3][j]); };
    auto merged = [&](int d) { return median::pairMerge<L>(s[d + 2][j], odd(d)); };
    if constexpr (R == 2)
      m[j] = median::sortedMedian<L>(merged(-1), merged(0), s[3][j]);
    else
      m[j] = median::sortedMedian<L>(odd(-2), merged(-1), merged(0), merged(1));
  }
}

template <class L, int R>
HostImage sortedOnHost(const HostImage& in, BorderMode border) {
  using Lane = median::SortedLane<R>;
  const int h = in.height();
  return pairStripsOnHost<R, Lane>(
      in, border, [&](const Lane& l, const median::PairSamples<R>* lanes, HostImage& out) {
        for (int q = 0; q < kStripRows; q += 2) {
          uint32_t m[3][2];
          for (int c = 0; c < 3; ++c) sortedPairOnHost<L, R>(lanes, q, c, m[c]);
          for (int j = 0; j < 2 && l.y0 + q + j < h; ++j)
            median::storePair(out.view(), l.x, l.y0 + q + j, m[0][j], m[1][j], m[2][j],
                              lanes[0].p0[q + j + R], lanes[0].p1[q + j + R]);
        }
      });
}

TEST(MedianSortedOnHost, KernelStagesMatchCpuTwin) {
  static_assert(kMinSortedMedianRadius == 2 && kMaxSortedMedianRadius == 3,
                "emulate every instantiated radius");
  const std::vector<std::pair<int, int>> sizes = {{1, 1},  {2, 3},   {3, 2},    {7, 5},
                                                  {59, 9}, {61, 17}, {121, 23}, {333, 70}};
  for (auto [w, h] : sizes) {
    MedianCpuScratch scratch(w, h);
    for (const char* image : {"random", "two-values", "impulses"}) {
      const HostImage in = makeCase(image, w, h, 43);
      for (BorderMode mode : kBorderModes) {
        for (int r : {2, 3}) {
          const MedianParams p{r, mode};
          const HostImage want = cpuMedian(in, p, scratch);
          const HostImage got[2] = {r == 2 ? sortedOnHost<median::IntLanes, 2>(in, mode)
                                           : sortedOnHost<median::IntLanes, 3>(in, mode),
                                    r == 2 ? sortedOnHost<median::HalfLanes, 2>(in, mode)
                                           : sortedOnHost<median::HalfLanes, 3>(in, mode)};
          for (const HostImage& g : got) {
            const test::ImageDiff d = test::compare(g, want);
            ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << ": " << d.first;
          }
        }
      }
    }
  }
}

TEST(MedianArgs, CpuRejectsBadArguments) {
  test::expectCpuArgumentChecks<MedianParams, MedianCpuScratch>(
      kMaxMedianDimension, [](RgbaView a, RgbaView b, auto&& run) { expectArgumentChecks(a, b, run); }, medianCpu);
}

TEST(MedianArgs, GpuRejectsBadArguments) {
  VP_REQUIRE_GPU();
  DeviceImage a = test::upload(test::makeRandom(16, 8, 1)), b(16, 8), big(17, 9), big2(17, 9);
  MedianWorkspace ws(16, 8);
  Stream stream;
  expectArgumentChecks(a.view(), b.view(), [&](ConstRgbaView in, RgbaView out, const MedianParams& p) {
    medianGpu(in, out, p, ws, stream);
  });
  EXPECT_THROW(medianGpu(big.view(), big2.view(), MedianParams{}, ws, stream), std::invalid_argument);
  // A forced method outside its radii, a negative segment length.
  detail::MedianTuning network{MedianMethod::Network};
  EXPECT_THROW(
      detail::medianGpuTuned(a.view(), b.view(), MedianParams{kMaxNetworkRadius + 1}, network, ws, stream),
      std::invalid_argument);
  detail::MedianTuning strips{MedianMethod::Strips};
  EXPECT_THROW(
      detail::medianGpuTuned(a.view(), b.view(), MedianParams{kMaxStripMedianRadius + 1}, strips, ws, stream),
      std::invalid_argument);
  detail::MedianTuning sorted{MedianMethod::Sorted};
  for (int r : {kMinSortedMedianRadius - 1, kMaxSortedMedianRadius + 1})
    EXPECT_THROW(detail::medianGpuTuned(a.view(), b.view(), MedianParams{r}, sorted, ws, stream),
                 std::invalid_argument);
  detail::MedianTuning narrow{MedianMethod::Histogram};
  EXPECT_THROW(
      detail::medianGpuTuned(a.view(), b.view(), MedianParams{kMaxHistogramRadius + 1}, narrow, ws, stream),
      std::invalid_argument);
  detail::MedianTuning badRows{MedianMethod::HistogramWide, false, -1};
  EXPECT_THROW(detail::medianGpuTuned(a.view(), b.view(), MedianParams{2}, badRows, ws, stream),
               std::invalid_argument);
  EXPECT_THROW(MedianWorkspace(0, 5), std::invalid_argument);
  EXPECT_THROW(MedianWorkspace(kMaxMedianDimension + 1, 5), std::invalid_argument);
  stream.synchronize();
}

// The methods medianGpu may run at radius r, with the histograms' variants: the policy's
// choice first.
std::vector<detail::MedianTuning> tuningsFor(int r) {
  std::vector<detail::MedianTuning> t = {{selectMedianMethod(r)}};
  for (MedianMethod m : kMethods) {
    if (!medianMethodSupports(m, r)) continue;
    if (m != t[0].method) t.push_back({m});
    if (m == MedianMethod::Network) {
      t.push_back({m, false, 0, true});  // the channels interleaved
    } else if (m != MedianMethod::Strips && m != MedianMethod::Sorted) {
      t.push_back({m, true, 0});   // load-add-store counter updates
      t.push_back({m, false, 5});  // short segments: many first windows, segment ends everywhere
    }
  }
  return t;
}

std::string tuningName(const detail::MedianTuning& t) {
  return std::string(medianMethodName(t.method)) + (t.plainUpdates ? " plain" : "") +
         (t.channelsTogether ? " together" : "") +
         (t.rowsPerSegment ? " rows=" + std::to_string(t.rowsPerSegment) : "");
}

struct GpuCase {
  std::vector<std::pair<int, int>> sizes;
  std::vector<int> radii;
  std::vector<const char*> images;
  std::vector<BorderMode> modes;
  bool allTunings = true;  // false: the policy's method only
};

void expectGpuMatchesCpu(const GpuCase& c) {
  Stream stream;
  for (auto [w, h] : c.sizes) {
    MedianWorkspace ws(w, h);
    MedianCpuScratch scratch(w, h);
    DeviceImage out(w, h);
    for (const char* image : c.images) {
      const HostImage in = makeCase(image, w, h, 29);
      const DeviceImage din = test::upload(in);
      for (BorderMode mode : c.modes)
        for (int r : c.radii) {
          const MedianParams p{r, mode};
          const HostImage want = cpuMedian(in, p, scratch);
          std::vector<detail::MedianTuning> tunings = tuningsFor(r);
          if (!c.allTunings) tunings.resize(1);
          for (const detail::MedianTuning& t : tunings) {
            test::poison(out);
            if (&t == &tunings[0] && t.method == ws.method(r))
              medianGpu(din.view(), out.view(), p, ws, stream);
            else
              detail::medianGpuTuned(din.view(), out.view(), p, t, ws, stream);
            stream.synchronize();
            const test::ImageDiff d = test::compare(test::download(out), want);
            ASSERT_EQ(d.differing, 0u) << describe(w, h, image, p) << " " << tuningName(t) << ": " << d.first;
          }
        }
    }
  }
}

const std::vector<int> kSwitchRadii = {1, 2, 3, 4, 7, 8, 15};  // every method's ends

TEST(MedianGpu, MatchesCpuOnSmallImages) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{1, 1}, {2, 3}, {17, 9}, {333, 197}},
                       kSwitchRadii,
                       {"random", "natural", "two-values", "impulses"},
                       {std::begin(kBorderModes), std::end(kBorderModes)}});
}

TEST(MedianGpu, MatchesCpuOnLargeImages) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu(
      {{{1921, 1081}}, kSwitchRadii, {"random", "natural"}, {std::begin(kBorderModes), std::end(kBorderModes)}});
}

TEST(MedianGpu, MatchesCpuIn4K) {
  VP_REQUIRE_GPU();
  expectGpuMatchesCpu({{{3840, 2160}}, kSwitchRadii, {"natural"}, {BorderMode::Replicate}});
  expectGpuMatchesCpu({{{3840, 2160}}, {1, 3, 8}, {"random"}, {BorderMode::Reflect}, false});
}

TEST(MedianGpu, MatchesCpuAtEveryRadius) {
  VP_REQUIRE_GPU();
  std::vector<int> all;
  for (int r = kMinMedianRadius; r <= kMaxMedianRadius; ++r) all.push_back(r);
  expectGpuMatchesCpu({{{67, 45}}, all, {"random"}, {BorderMode::Replicate, BorderMode::Wrap}});
}

// Sub-views: rows that start mid-allocation, a pitch wider than the row, the input and
// output taken from one allocation without overlapping.
TEST(MedianGpu, WorksOnSubViews) {
  VP_REQUIRE_GPU();
  const test::SubViewCase views(test::makeNatural(test::SubViewCase::kWidth, test::SubViewCase::kHeight, 7));
  MedianWorkspace ws(test::SubViewCase::kWidth, test::SubViewCase::kHeight);
  MedianCpuScratch scratch(test::SubViewCase::kViewWidth, test::SubViewCase::kViewHeight);
  Stream stream;
  for (int r : {1, 2, 3, 6, 12}) {
    const MedianParams p{r, BorderMode::Reflect};
    medianGpu(views.in(), views.out(), p, ws, stream);
    stream.synchronize();
    EXPECT_EQ(views.mismatches(cpuMedian(views.sub(), p, scratch)), 0u) << "r=" << r;
  }
}

// ---- The filter in a chain ----------------------------------------------------------

// Runs `frames` RGBA frames through `p` with `chain`; returns each frame's RGB24 bytes.
std::vector<std::vector<uint8_t>> runChain(Processor& p, const std::vector<HostImage>& frames,
                                           const FilterChain& chain) {
  ProcessParams params;
  params.chain = chain;
  std::vector<std::vector<uint8_t>> out;
  auto take = [&](bool wait) {
    while (const OutputFrame* f = p.poll(wait)) {
      const size_t row = size_t(f->width) * 3;
      std::vector<uint8_t> rgb(row * size_t(f->height));
      for (int y = 0; y < f->height; ++y)
        std::memcpy(&rgb[row * size_t(y)], f->rgb + size_t(y) * f->pitch, row);
      out.push_back(std::move(rgb));
      p.release();
      wait = false;
    }
  };
  for (size_t i = 0; i < frames.size();) {
    const HostImage& img = frames[i];
    const FrameLayout layout = frameLayout(PixelFormat::Rgba, img.width(), img.height());
    if (p.submit(InputFrame{img.data(), layout, ColorSpace{}, int64_t(i) * 40'000}, params)) {
      ++i;
      take(false);
    } else {
      take(true);
    }
  }
  while (p.inFlight() > 0) take(true);
  return out;
}

std::vector<HostImage> chainFrames(int w, int h, int n) {
  std::vector<HostImage> frames;
  for (int i = 0; i < n; ++i) frames.push_back(test::makeNatural(w, h, 11, 0.15f * float(i)));
  return frames;
}

TEST(MedianChain, RunsOnTheCpuProcessor) {
  const int w = 161, h = 91;
  const std::vector<HostImage> frames = chainFrames(w, h, 4);
  const FilterChain median = parseChain("median=r=2");
  ASSERT_EQ(median.size(), 1);
  EXPECT_EQ(medianParamsOf(median[0]).radius, 2);
  EXPECT_EQ(medianParamsOf(median[0]).border, BorderMode::Replicate);
  // The element alone gives the twin's bytes.
  const auto alone = runChain(*makeCpuProcessor(2), frames, median);
  ASSERT_EQ(alone.size(), frames.size());
  MedianCpuScratch scratch(w, h);
  for (size_t i = 0; i < frames.size(); ++i)
    EXPECT_EQ(alone[i], test::packRgb(cpuMedian(frames[i], MedianParams{2}, scratch))) << "frame " << i;
  // Followed by K-means: at most 4 colours per frame.
  const auto both = runChain(*makeCpuProcessor(2), frames, parseChain("median=r=2,kmeans=k=4"));
  ASSERT_EQ(both.size(), frames.size());
  for (const auto& rgb : both) {
    std::set<std::tuple<uint8_t, uint8_t, uint8_t>> colours;
    for (size_t j = 0; j + 2 < rgb.size(); j += 3) colours.insert({rgb[j], rgb[j + 1], rgb[j + 2]});
    EXPECT_LE(colours.size(), 4u);
  }
  EXPECT_EQ(formatElement(medianElement(MedianParams{7, BorderMode::Wrap})), "median=r=7:border=wrap");
  EXPECT_THROW(parseChain("median=r=16"), std::invalid_argument);
  EXPECT_THROW(parseChain("median=r=0"), std::invalid_argument);
}

TEST(MedianChain, CudaProcessorMatchesCpu) {
  VP_REQUIRE_GPU();
  const std::vector<HostImage> frames = chainFrames(321, 181, 6);
  for (const char* text : {"median=r=2,kmeans=k=4", "median=r=9:border=reflect", "blur=r=2,median=r=4"}) {
    const FilterChain chain = parseChain(text);
    const auto gpu = runChain(*makeCudaProcessor(3), frames, chain);
    const auto cpu = runChain(*makeCpuProcessor(3), frames, chain);
    ASSERT_EQ(gpu.size(), frames.size()) << text;
    ASSERT_EQ(cpu.size(), frames.size()) << text;
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(gpu[i], cpu[i]) << text << " frame " << i;
  }
}

}  // namespace
}  // namespace vp
