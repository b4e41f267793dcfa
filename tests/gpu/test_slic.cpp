// SLIC superpixels (gpu/filters/slic/slic.h): the CPU twin's grid, initial centres,
// assignment and update against the double-precision reference (segmentation_reference.h),
// its regions' properties (connected, named by their least index, large enough) and mean
// colours, the views, the options and commands; the GPU against the twin byte for byte.
#include "app/input/chain_editor.h"
#include "app/input/commands.h"
#include "gpu/filters/chain.h"
#include "gpu/filters/slic/slic.h"
#include "gpu/filters/slic/slic_filter.h"
#include "gpu/filters/kmeans/kmeans_filter.h"
#include "gpu/processor.h"
#include "support/gpu_test.h"
#include "support/images.h"
#include "support/processor_runs.h"
#include "support/segmentation_reference.h"
#include "support/slic_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {
namespace {

namespace ref = test::ref;

const uint8_t* bytesOf(const HostImage& img) { return reinterpret_cast<const uint8_t*>(img.data()); }

HostImage makeImage(const std::string& kind, int w, int h, uint64_t seed) {
  if (kind == "random") return test::makeRandom(w, h, seed);
  if (kind == "blobs") return test::makeBlobs(w, h, 6, 8.0, seed);
  return test::makeNatural(w, h, seed);
}

SlicParams params(int n, float m, int iterations) {
  SlicParams p;
  p.superpixels = n, p.compactness = m, p.iterations = iterations;
  return p;
}

std::string describe(int w, int h, const std::string& image, const SlicParams& p) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + image + " n=" + std::to_string(p.superpixels) +
         " m=" + std::to_string(p.compactness) + " iterations=" + std::to_string(p.iterations);
}

TEST(SlicCpu, GridIsTheReferenceGrid) {
  for (auto [w, h] : {std::pair{1, 1}, {1, 57}, {57, 1}, {97, 61}, {640, 480}, {1921, 1081}, {3840, 2160}})
    for (int n : {1, 2, 7, 100, 400, 1000, 5000, kMaxSuperpixels}) {
      const SlicFrame f = slicFrameOf(w, h, n, 10.f);
      const ref::SlicGrid g = ref::slicGrid(w, h, n);
      EXPECT_EQ(f.cols, g.cols) << w << "x" << h << " n=" << n;
      EXPECT_EQ(f.rows, g.rows) << w << "x" << h << " n=" << n;
      EXPECT_EQ(f.interval, g.interval);
      EXPECT_EQ(f.minRegion, std::max<int64_t>(1, int64_t(w) * h / (4 * n)));
      EXPECT_LE(f.centres(), slicMaxCentres(w, h));
      for (int x : {0, w / 3, w - 1})  // the cell of a pixel
        for (int y : {0, h / 2, h - 1})
          EXPECT_EQ(slic::cellOf(y, h, f.rows) * f.cols + slic::cellOf(x, w, f.cols), g.cellOf(x, y, w, h));
    }
}

// A workspace sized for one frame holds the grid of every smaller one, at every N: thin
// frames have more cells than N (cols and rows round up), more than the full frame's grid.
TEST(SlicCpu, BoundsHoldForEverySmallerFrame) {
  for (auto [W, H] : {std::pair{64, 48}, {1920, 1080}, {120, 7}})
    for (auto [w, h] : {std::pair{W, H}, {W, 13}, {W, 2}, {W, 1}, {1, H}, {W / 2 + 1, H / 2 + 1}})
      for (int n : {1, 400, 5000, 12000, kMaxSuperpixels}) {
        if (w > W || h > H) continue;
        const SlicFrame f = slicFrameOf(w, h, n, 10.f);
        EXPECT_LE(f.centres(), slicMaxCentres(W, H)) << w << "x" << h << " in " << W << "x" << H << " n=" << n;
        EXPECT_LE(int64_t(w) * h / f.minRegion + 1 > int64_t(w) * h ? int64_t(w) * h
                                                                   : int64_t(w) * h / f.minRegion + 1,
                  slicMaxRegions(W, H))
            << w << "x" << h << " in " << W << "x" << H << " n=" << n;
      }
  // And a run on such a frame with the larger frame's scratch gives the frame's own result.
  const HostImage in = test::makeRandom(1920, 13, 3);
  SlicCpuScratch big(1920, 1080), own(1920, 13);
  HostImage a(1920, 13), b(1920, 13);
  slicCpu(in.cview(), a.view(), SegmentView::Colour, params(kMaxSuperpixels, 5.f, 2), big);
  slicCpu(in.cview(), b.view(), SegmentView::Colour, params(kMaxSuperpixels, 5.f, 2), own);
  EXPECT_EQ(test::compare(a, b).differing, 0u);
  const size_t pixels = 1920 * 13;  // the scratch holds a region id for each pixel of its largest frame
  EXPECT_TRUE(std::equal(own.regions().begin(), own.regions().begin() + pixels, big.regions().begin()));
}

TEST(SlicCpu, InitialCentresAreTheCellMiddles) {
  for (auto [w, h, n] : {std::tuple{97, 61, 50}, {33, 1, 7}, {5, 5, 100}, {640, 480, 400}}) {
    const HostImage in = test::makeNatural(w, h, 3);
    SlicCpuScratch scratch(w, h);
    detail::slicSuperpixelsCpu(in.cview(), params(n, 10.f, 0), scratch);
    const std::vector<ref::Feature> want = ref::slicInitialCentres(bytesOf(in), w, h, ref::slicGrid(w, h, n));
    ASSERT_LE(want.size(), scratch.centres().size());
    for (size_t c = 0; c < want.size(); ++c) {
      const SlicCentre& got = scratch.centres()[c];
      EXPECT_EQ(ref::Feature({got.r, got.g, got.b, got.x, got.y}), want[c]) << w << "x" << h << " centre " << c;
    }
  }
}

// The twin's final assignment against slicAssign with the twin's own centres: equal except
// where float and double may differ (a runner-up within 1e-4 relative of the best), and
// there the twin's pick must be such a near-best candidate. And each update: the centres
// after round i + 1 are the float-rounded means of the assignment after round i.
TEST(SlicCpu, AssignmentAndUpdateMatchTheReference) {
  struct Case {
    int w, h, n;
    float m;
  };
  for (const Case& k : {Case{97, 61, 50, 10.f}, Case{97, 61, 400, 30.f}, Case{640, 480, 400, 10.f},
                        Case{1921, 1081, 30, 20.f}, Case{1, 1, 5, 10.f}, Case{7, 1, 3, 1.f}, Case{1, 9, 20, 80.f}})
    for (const char* image : {"random", "natural", "blobs"})
      for (int iterations : {0, 1, 4}) {
        const HostImage in = makeImage(image, k.w, k.h, 17);
        const SlicParams p = params(k.n, k.m, iterations);
        SCOPED_TRACE(describe(k.w, k.h, image, p));
        SlicCpuScratch scratch(k.w, k.h);
        detail::slicSuperpixelsCpu(in.cview(), p, scratch);
        const ref::SlicGrid grid = ref::slicGrid(k.w, k.h, k.n);
        const std::vector<ref::Feature> pixels = ref::rgbxyFeatures(bytesOf(in), k.w, k.h, -1);
        std::vector<ref::Feature> centres;
        for (int c = 0; c < grid.cols * grid.rows; ++c) {
          const SlicCentre& s = scratch.centres()[size_t(c)];
          centres.push_back({s.r, s.g, s.b, s.x, s.y});
        }
        const std::vector<int> want = ref::slicAssign(pixels, k.w, k.h, grid, centres, k.m);
        const double spatial = double(k.m) * k.m / (grid.interval * grid.interval);
        int64_t differ = 0;
        for (int y = 0; y < k.h; ++y)
          for (int x = 0; x < k.w; ++x) {
            const size_t i = size_t(y) * size_t(k.w) + size_t(x);
            const int got = int(scratch.labels()[i]);
            if (got == want[i]) continue;
            ++differ;
            ASSERT_TRUE(ref::slicNearTie(pixels, k.w, k.h, grid, centres, k.m, x, y)) << "pixel " << x << "," << y;
            const double best = ref::slicDistance(pixels[i], centres[size_t(want[i])], spatial);
            EXPECT_LE(ref::slicDistance(pixels[i], centres[size_t(got)], spatial) - best, 1e-4 * (1 + best));
          }
        EXPECT_LE(differ * 1000, int64_t(k.w) * k.h) << differ << " pixels at near-ties";
        // The next round's centres: the float-rounded means of this assignment.
        std::vector<int> labels(scratch.labels().begin(), scratch.labels().begin() + ptrdiff_t(pixels.size()));
        std::vector<ref::Feature> means = ref::centresOf(pixels, labels, centres);
        SlicCpuScratch next(k.w, k.h);
        detail::slicSuperpixelsCpu(in.cview(), params(k.n, k.m, iterations + 1), next);
        for (size_t c = 0; c < centres.size(); ++c) {
          const SlicCentre& s = next.centres()[c];
          ref::Feature want1 = means[c];
          for (double& v : want1) v = double(float(v));
          EXPECT_EQ(ref::Feature({s.r, s.g, s.b, s.x, s.y}), want1) << "centre " << c;
        }
      }
}

// Regions: each one 4-connected component, named by its least raster index, holding
// minRegion pixels or more (but the one at pixel 0); about N of them on natural images.
TEST(SlicCpu, RegionsAreConnectedNamedByTheirLeastIndexAndLargeEnough) {
  for (auto [w, h, n] : {std::tuple{97, 61, 50}, {640, 480, 400}, {321, 181, 1000}, {64, 48, 16384}})
    for (const char* image : {"random", "natural", "blobs"}) {
      const HostImage in = makeImage(image, w, h, 5);
      // On the noisy blobs (8 levels per channel) colour noise outweighs m = 10 in RGB:
      // superpixels fray into small pieces that merge; m = 40 keeps them compact.
      const float m = std::string(image) == "blobs" ? 40.f : 10.f;
      const SlicParams p = params(n, m, 10);
      SCOPED_TRACE(describe(w, h, image, p));
      SlicCpuScratch scratch(w, h);
      HostImage out(w, h);
      slicCpu(in.cview(), out.view(), SegmentView::Colour, p, scratch);
      const std::vector<uint32_t>& region = scratch.regions();
      const size_t pixels = size_t(w) * size_t(h);
      std::map<uint32_t, int64_t> size;
      for (size_t i = 0; i < pixels; ++i) {
        EXPECT_LE(region[i], i) << "a region id is its least index";
        ++size[region[i]];
      }
      for (const auto& [id, count] : size) {
        ASSERT_LT(id, pixels);
        EXPECT_EQ(region[id], id) << "the region's id is one of its pixels";
        if (id != 0) {
          EXPECT_GE(count, slicFrameOf(w, h, n, m).minRegion) << "region " << id;
        }
      }
      EXPECT_EQ(size_t(scratch.stats().regions), size.size());
      // One flood fill per region reaches all of it.
      std::vector<bool> seen(pixels, false);
      int components = 0;
      for (size_t s = 0; s < pixels; ++s) {
        if (seen[s]) continue;
        ++components;
        std::deque<size_t> q{s};
        seen[s] = true;
        while (!q.empty()) {
          const size_t i = q.front();
          q.pop_front();
          const int x = int(i % size_t(w)), y = int(i / size_t(w));
          const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
          for (int d = 0; d < 4; ++d) {
            if (nx[d] < 0 || nx[d] >= w || ny[d] < 0 || ny[d] >= h) continue;
            const size_t j = size_t(ny[d]) * size_t(w) + size_t(nx[d]);
            if (!seen[j] && region[j] == region[i]) seen[j] = true, q.push_back(j);
          }
        }
      }
      EXPECT_EQ(size_t(components), size.size()) << "a region is split";
      if (std::string(image) != "random" && n <= w * h / 16) {
        EXPECT_GE(size.size() * 2, size_t(n));
        EXPECT_LE(size.size(), size_t(n) * 2);
      }
    }
}

// View colour: each pixel its region's mean colour, rounded half up; alpha copied. And the
// whole output equals the reference's (colour and boundaries views), region ids included.
TEST(SlicCpu, ColourIsTheRoundedRegionMeanAndMatchesTheReference) {
  for (auto [w, h, n] : {std::tuple{97, 61, 50}, {201, 99, 300}, {3, 200, 10}})
    for (const char* image : {"random", "natural", "blobs"}) {
      const HostImage in = makeImage(image, w, h, 9);
      const SlicParams p = params(n, 15.f, 5);
      SCOPED_TRACE(describe(w, h, image, p));
      SlicCpuScratch scratch(w, h);
      HostImage out(w, h);
      test::poison(out);
      slicCpu(in.cview(), out.view(), SegmentView::Colour, p, scratch);
      std::map<uint32_t, std::array<uint64_t, 4>> sums;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          auto& s = sums[scratch.regions()[size_t(y) * size_t(w) + size_t(x)]];
          s[0] += in.at(x, y).x, s[1] += in.at(x, y).y, s[2] += in.at(x, y).z, ++s[3];
        }
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const auto& s = sums[scratch.regions()[size_t(y) * size_t(w) + size_t(x)]];
          const uchar4 got = out.at(x, y);
          const auto mean = [&](int c) { return int((2 * s[size_t(c)] + s[3]) / (2 * s[3])); };
          ASSERT_EQ(int(got.x), mean(0)) << x << "," << y;
          ASSERT_EQ(int(got.y), mean(1)) << x << "," << y;
          ASSERT_EQ(int(got.z), mean(2)) << x << "," << y;
          ASSERT_EQ(got.w, in.at(x, y).w);
        }
      ref::SlicRefParams rp;
      rp.superpixels = n, rp.compactness = 15, rp.iterations = 5;
      const ref::SlicRefResult want = ref::slicReference(bytesOf(in), w, h, rp);
      if (want.nearTies == 0) {
        EXPECT_EQ(std::memcmp(out.data(), want.rgba.data(), want.rgba.size()), 0);
        EXPECT_TRUE(std::equal(want.regions.begin(), want.regions.end(), scratch.regions().begin()));
        EXPECT_EQ(int(scratch.stats().regions), want.regionCount);
      }
    }
}

TEST(SlicCpu, ViewsPaintTheRegions) {
  const int w = 131, h = 77;
  const HostImage in = test::makeNatural(w, h, 4);
  const SlicParams p = params(60, 10.f, 10);
  SlicCpuScratch scratch(w, h);
  HostImage labels(w, h), borders(w, h);
  slicCpu(in.cview(), labels.view(), SegmentView::Labels, p, scratch);
  const std::vector<uint32_t> region = scratch.regions();
  slicCpu(in.cview(), borders.view(), SegmentView::Boundaries, p, scratch);
  EXPECT_EQ(region, scratch.regions());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * w + x;
      const uint32_t src = tiles::loadPixel(in.cview(), x, y), alpha = src & 0xFF000000u;
      const uint32_t id = region[i];
      EXPECT_EQ(tiles::loadPixel(labels.cview(), x, y), labelColour(int((id * 2654435761u) >> 24)) | alpha);
      const bool border = (x + 1 < w && region[i + 1] != id) || (y + 1 < h && region[i + size_t(w)] != id);
      EXPECT_EQ(tiles::loadPixel(borders.cview(), x, y), border ? (kBoundaryColour | alpha) : src) << x << "," << y;
    }
}

TEST(SlicCpu, DegenerateFramesAndClampedGrids) {
  for (auto [w, h, n] : {std::tuple{1, 1, 1}, {1, 1, 16384}, {1, 300, 400}, {300, 1, 400}, {10, 10, 16384}}) {
    const HostImage in = test::makeRandom(w, h, 2);
    SlicCpuScratch scratch(w, h);
    HostImage out(w, h);
    test::poison(out);
    slicCpu(in.cview(), out.view(), SegmentView::Colour, params(n, 10.f, 3), scratch);
    EXPECT_GE(scratch.stats().regions, 1u);
    EXPECT_LE(int64_t(scratch.stats().centres), int64_t(w) * h);
    ref::SlicRefParams rp;
    rp.superpixels = n, rp.iterations = 3;
    const ref::SlicRefResult want = ref::slicReference(bytesOf(in), w, h, rp);
    if (want.nearTies == 0) {
      EXPECT_EQ(std::memcmp(out.data(), want.rgba.data(), want.rgba.size()), 0) << w << "x" << h;
    }
  }
}

TEST(SlicCpu, BadArgumentsAreRejected) {
  const HostImage in = test::makeRandom(16, 16, 1);
  HostImage out(16, 16);
  SlicCpuScratch scratch(16, 16);
  for (const SlicParams& p : {params(0, 10.f, 1), params(kMaxSuperpixels + 1, 10.f, 1), params(10, 0.5f, 1),
                              params(10, 81.f, 1), params(10, 10.f, -1), params(10, 10.f, 51)})
    EXPECT_THROW(slicCpu(in.cview(), out.view(), SegmentView::Colour, p, scratch), std::invalid_argument);
  HostImage big(17, 16);
  EXPECT_THROW(slicCpu(big.cview(), big.view(), SegmentView::Colour, SlicParams{}, scratch), std::invalid_argument);
  EXPECT_THROW(SlicCpuScratch(0, 5), std::invalid_argument);
}

TEST(SlicOptions, ChainParsesFormatsAndRejectsBadValues) {
  const FilterChain chain = parseChain("slic=n=1000:m=20:iterations=5:view=boundaries");
  const SlicParams p = slicParamsOf(chain[0]);
  EXPECT_EQ(p.superpixels, 1000);
  EXPECT_EQ(p.compactness, 20.f);
  EXPECT_EQ(p.iterations, 5);
  EXPECT_EQ(slicViewOf(chain[0]), SegmentView::Boundaries);
  EXPECT_EQ(parseChain(formatChain(chain)), chain);
  EXPECT_EQ(slicElement(p, SegmentView::Boundaries), chain[0]);
  const SlicParams d = slicParamsOf(parseElement("slic"));
  EXPECT_EQ(d.superpixels, 400);
  EXPECT_EQ(d.compactness, 40.f);
  EXPECT_EQ(d.iterations, 10);
  const std::pair<const char*, const char*> bad[] = {
      {"slic=n=0", "n must be 1..16384"},          {"slic=n=16385", "n must be 1..16384"},
      {"slic=m=0.5", "m must be 1..80"},           {"slic=m=81", "m must be 1..80"},
      {"slic=iterations=0", "iterations must be 1..50"}, {"slic=iterations=51", "iterations must be 1..50"},
      {"slic=view=rainbow", "view must be colour, labels or boundaries"}};
  for (auto [text, message] : bad) {
    try {
      parseChain(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << text << ": " << e.what();
    }
  }
}

Command command(const std::string& line) {
  auto c = parseCommand(line);
  if (!c) throw std::logic_error("no command in '" + line + "'");
  return *c;
}

TEST(SlicCommands, SuperpixelsAndViewActOnTheFirstSlic) {
  const Command c = command("superpixels 300");
  EXPECT_EQ(c.verb, Verb::Set);
  EXPECT_EQ(c.target, "slic");
  EXPECT_EQ(c.option, "n");
  EXPECT_TRUE(isParamCommand(c));
  EXPECT_THROW(command("superpixels 0"), std::invalid_argument);
  EXPECT_THROW(command("superpixels many"), std::invalid_argument);
  ChainEditor editor;
  ProcessParams p;
  p.chain = parseChain("gauss,slic,kmeans");
  editor.start(p.chain);
  const auto apply = [&](const char* line) { return editor.apply(command(line), p); };
  ASSERT_TRUE(apply("superpixels 300"));
  EXPECT_EQ(slicParamsOf(p.chain[1]).superpixels, 300);
  ASSERT_TRUE(apply("superpixels +100"));
  EXPECT_EQ(slicParamsOf(p.chain[1]).superpixels, 400);
  ASSERT_TRUE(apply("superpixels -1000"));  // steps stop at the bound
  EXPECT_EQ(slicParamsOf(p.chain[1]).superpixels, 1);
  ASSERT_TRUE(apply("view labels"));  // slic comes before kmeans
  EXPECT_EQ(slicViewOf(p.chain[1]), SegmentView::Labels);
  EXPECT_EQ(kmeansViewOf(p.chain[2]), SegmentView::Colour);
  p.chain = parseChain("kmeans,slic");
  editor.start(p.chain);
  ASSERT_TRUE(apply("view cycle"));
  EXPECT_EQ(kmeansViewOf(p.chain[0]), SegmentView::Labels);
  EXPECT_EQ(slicViewOf(p.chain[1]), SegmentView::Colour);
  ASSERT_TRUE(apply("mode slic"));
  ASSERT_EQ(p.chain.size(), 1);
  EXPECT_EQ(p.chain[0].name(), "slic");
}

TEST(SlicProcessor, CpuProcessorReportsTheRegionCount) {
  const test::runs::Clip clip = test::runs::makeClip(160, 96, 2, PixelFormat::Rgba);
  const std::vector<test::runs::Out> got = test::runs::runAll(
      *makeCpuProcessor(1), clip, [](int) { return test::runs::chainParams("slic=n=100"); });
  ASSERT_EQ(got.size(), 2u);
  SlicCpuScratch scratch(160, 96);
  HostImage out(160, 96);
  slicCpu(clip.rgba[0].cview(), out.view(), SegmentView::Colour, params(100, 40.f, 10), scratch);
  EXPECT_EQ(got[0].rgb, test::packRgb(out));
}

// ---- GPU: the twin's bytes ----

// The GPU runs under test: slicGpu, and its superpixel kernel on a capped grid
// (detail::slicGpuPersistent), so that blocks take several items and items are tall (tall
// windows of cells that overflow the shared slots on small cells).
struct GpuPath {
  const char* name;
  int blocks;  // -1: slicGpu; > 0: the superpixel kernel on at most this many blocks
};
constexpr GpuPath kDefaultPath{"slicGpu", -1};

struct GpuRun {
  HostImage out;
  std::vector<uint32_t> regions;
  std::vector<SlicCentre> centres;
  SlicStats stats;
};

GpuRun runGpu(const HostImage& in, SegmentView view, const SlicParams& p, SlicWorkspace& ws,
              const GpuPath& path = kDefaultPath) {
  const int w = in.width(), h = in.height();
  const DeviceImage din = test::upload(in);
  DeviceImage dout(w, h);
  test::poison(dout);
  Stream stream;
  if (path.blocks < 0)
    slicGpu(din.view(), dout.view(), view, p, ws, stream.get());
  else
    detail::slicGpuPersistent(din.view(), dout.view(), view, p, ws, stream.get(), path.blocks);
  VP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  GpuRun r;
  r.out = test::download(dout);
  r.regions.resize(size_t(w) * size_t(h));
  VP_CUDA_CHECK(cudaMemcpy(r.regions.data(), ws.regions(), r.regions.size() * sizeof(uint32_t),
                           cudaMemcpyDeviceToHost));
  VP_CUDA_CHECK(cudaMemcpy(&r.stats, ws.stats(), sizeof r.stats, cudaMemcpyDeviceToHost));
  r.centres.resize(r.stats.centres);
  VP_CUDA_CHECK(cudaMemcpy(r.centres.data(), ws.centres(), r.centres.size() * sizeof(SlicCentre),
                           cudaMemcpyDeviceToHost));
  return r;
}

// The final centres' five values, bit for bit.
bool sameCentres(const std::vector<SlicCentre>& gpu, const std::vector<SlicCentre>& cpu) {
  if (gpu.size() > cpu.size()) return false;
  for (size_t c = 0; c < gpu.size(); ++c)
    if (std::memcmp(&gpu[c], &cpu[c], 5 * sizeof(float)) != 0) return false;
  return true;
}

// The twin's run, then each GPU path's against it: output bytes, region ids, stats, centres.
void expectTwin(const HostImage& in, SegmentView view, const SlicParams& p, SlicWorkspace& ws,
                SlicCpuScratch& scratch, std::initializer_list<GpuPath> paths) {
  HostImage want(in.width(), in.height());
  test::poison(want);
  slicCpu(in.cview(), want.view(), view, p, scratch);
  for (const GpuPath& path : paths) {
    SCOPED_TRACE(path.name +
                 (path.blocks > 0 ? " on " + std::to_string(path.blocks) + " blocks" : std::string()));
    const GpuRun got = runGpu(in, view, p, ws, path);
    const test::ImageDiff d = test::compare(got.out, want);
    EXPECT_EQ(d.differing, 0u) << d.first;
    EXPECT_TRUE(std::equal(got.regions.begin(), got.regions.end(), scratch.regions().begin()))
        << "region ids";
    EXPECT_EQ(got.stats.regions, scratch.stats().regions);
    EXPECT_EQ(got.stats.centres, scratch.stats().centres);
    EXPECT_TRUE(sameCentres(got.centres, scratch.centres())) << "final centres";
  }
}

TEST(SlicGpu, MatchesCpuTwinByteForByte) {
  VP_REQUIRE_GPU();
  struct Case {
    int w, h, n;
    float m;
    int iterations;
  };
  const Case cases[] = {{1, 1, 1, 10, 10},       {1, 1, 400, 10, 3},      {1, 777, 50, 10, 10},
                        {777, 1, 50, 10, 10},    {31, 17, 16384, 1, 2},   {97, 61, 50, 10, 0},
                        {97, 61, 400, 40, 10},   {640, 480, 400, 10, 10}, {1921, 1081, 1000, 10, 10},
                        {1920, 1080, 1000, 10, 10}, {1920, 1080, 16384, 80, 5}, {3840, 2160, 1000, 10, 10}};
  for (const Case& k : cases) {
    SlicWorkspace ws(k.w, k.h);
    SlicCpuScratch scratch(k.w, k.h);
    for (const char* image : {"random", "natural"}) {
      const HostImage in = makeImage(image, k.w, k.h, 23);
      const SlicParams p = params(k.n, k.m, k.iterations);
      for (SegmentView view : {SegmentView::Colour, SegmentView::Labels, SegmentView::Boundaries}) {
        SCOPED_TRACE(describe(k.w, k.h, image, p) + " view " + std::to_string(int(view)));
        expectTwin(in, view, p, ws, scratch, {kDefaultPath});
      }
    }
  }
}

// The superpixel kernel on few blocks: several items a block, items up to 512 rows tall,
// windows of cells too large for the shared slots (small cells: runs go to the global
// sums), items narrower than a block (frames not a multiple of 256 wide).
TEST(SlicGpu, PersistentKernelOnFewBlocksMatchesCpuTwin) {
  VP_REQUIRE_GPU();
  struct Case {
    int w, h, n, blocks;
  };
  const Case cases[] = {{31, 17, 16384, 1},    {97, 61, 400, 1},      {640, 480, 400, 1},
                        {640, 480, 400, 2},    {1921, 1081, 1000, 3}, {2000, 600, 16384, 1},
                        {2000, 600, 16384, 7}, {300, 1300, 50, 2}};
  for (const Case& k : cases) {
    SlicWorkspace ws(k.w, k.h);
    SlicCpuScratch scratch(k.w, k.h);
    for (const char* image : {"random", "natural"}) {
      const HostImage in = makeImage(image, k.w, k.h, 5);
      const SlicParams p = params(k.n, 10.f, 4);
      SCOPED_TRACE(describe(k.w, k.h, image, p));
      expectTwin(in, SegmentView::Colour, p, ws, scratch, {GpuPath{"persistent", k.blocks}});
    }
  }
}

TEST(SlicGpu, SameResultOnEveryRun) {
  VP_REQUIRE_GPU();
  const HostImage in = test::makeRandom(1921, 1081, 8);  // fragmented superpixels: many unions and merges
  SlicWorkspace ws(1921, 1081);
  const GpuRun a = runGpu(in, SegmentView::Colour, params(1000, 5.f, 10), ws);
  for (int run = 0; run < 3; ++run) {
    const GpuRun b = runGpu(in, SegmentView::Colour, params(1000, 5.f, 10), ws);
    EXPECT_EQ(test::compare(a.out, b.out).differing, 0u);
    EXPECT_EQ(a.regions, b.regions);
  }
}

// A workspace sized for a larger frame: a thin frame whose grid has more cells than the
// larger frame's (n = 16384), and fragments that merge down long chains (m = 5 on noise:
// the resolve kernel's concurrent path splitting).
TEST(SlicGpu, SmallerFrameInALargerWorkspace) {
  VP_REQUIRE_GPU();
  SlicWorkspace ws(1920, 1080);
  for (auto [w, h, n] : {std::tuple{1920, 13, kMaxSuperpixels}, {1921 / 2, 1080, 1000}}) {
    const HostImage in = test::makeRandom(w, h, 3);
    const SlicParams p = params(n, 5.f, 3);
    SlicCpuScratch scratch(w, h);
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    expectTwin(in, SegmentView::Colour, p, ws, scratch, {kDefaultPath});
  }
}

TEST(SlicGpu, BadArgumentsAreRejected) {
  VP_REQUIRE_GPU();
  SlicWorkspace ws(16, 16);
  DeviceImage a(16, 16), b(16, 16), big(17, 16), other(17, 16);
  EXPECT_THROW(slicGpu(a.view(), b.view(), SegmentView::Colour, params(0, 10.f, 1), ws, nullptr), std::invalid_argument);
  EXPECT_THROW(slicGpu(a.view(), b.view(), SegmentView::Colour, params(10, 100.f, 1), ws, nullptr),
               std::invalid_argument);
  EXPECT_THROW(slicGpu(a.view(), big.view(), SegmentView::Colour, SlicParams{}, ws, nullptr), std::invalid_argument);
  EXPECT_THROW(slicGpu(big.view(), other.view(), SegmentView::Colour, SlicParams{}, ws, nullptr), std::invalid_argument);
  EXPECT_THROW(detail::slicGpuPersistent(a.view(), b.view(), SegmentView::Colour, params(0, 10.f, 1), ws, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      detail::slicGpuPersistent(a.view(), big.view(), SegmentView::Colour, SlicParams{}, ws, nullptr),
      std::invalid_argument);
  EXPECT_THROW(detail::slicGpuPersistent(a.view(), b.view(), SegmentView::Colour, SlicParams{}, ws, nullptr, -1),
               std::invalid_argument);
}

TEST(SlicGpu, CudaProcessorMatchesCpu) {
  VP_REQUIRE_GPU();
  const test::runs::Clip clip = test::runs::makeClip(321, 181, 5, PixelFormat::Yuv420p);
  test::runs::expectCudaMatchesCpu(clip, {"slic", "slic=n=1000:view=boundaries", "gauss=sigma=1,slic=n=200:view=labels",
                                          "slic=n=50:m=40,edges=overlay=1", "slic,kmeans=k=4"});
}

}  // namespace
}  // namespace vp
