// The segmentation references of support/segmentation_reference.h and the blob frames of
// support/images.h, held to hand-computed values and to the property automatic K relies
// on: on n noisy flat regions, the true partition scores a higher silhouette than the
// same frame with two regions merged or one region split.
#include "support/images.h"
#include "support/segmentation_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace vp {
namespace {

using test::ref::Feature;

Feature at(double v) { return {v, 0, 0, 0, 0}; }
double channel(uchar4 p, int c) { return c == 0 ? p.x : c == 1 ? p.y : p.z; }

TEST(SegmentationReference, SilhouetteOfTwoPairsOnALine) {
  // Points 0, 1 | 10, 11: a(i) = 1 for all; b = 10.5, 9.5, 9.5, 10.5.
  const std::vector<Feature> p = {at(0), at(1), at(10), at(11)};
  const std::vector<int> labels = {0, 0, 1, 1};
  const double want = (9.5 / 10.5 + 8.5 / 9.5) / 2;
  EXPECT_NEAR(test::ref::silhouette(p, labels, 2), want, 1e-12);
  // Centroid form: centres 0.5 and 10.5; a(i) = 0.5; b = 10.5, 9.5, 9.5, 10.5.
  const std::vector<Feature> centres = {at(0.5), at(10.5)};
  EXPECT_NEAR(test::ref::centroidSilhouette(p, labels, centres), (10 / 10.5 + 9 / 9.5) / 2, 1e-12);
  // A wrong partition scores below zero.
  EXPECT_LT(test::ref::silhouette(p, {0, 1, 0, 1}, 2), 0.0);
}

TEST(SegmentationReference, SilhouetteEdgeCases) {
  const std::vector<Feature> p = {at(0), at(1), at(10)};
  EXPECT_TRUE(std::isnan(test::ref::silhouette(p, {0, 0, 0}, 1)));
  EXPECT_TRUE(std::isnan(test::ref::silhouette(p, {1, 1, 1}, 3)));  // one non-empty cluster
  // A singleton cluster's point scores 0; the pair: a = 1, b = 10 and 9.
  EXPECT_NEAR(test::ref::silhouette(p, {0, 0, 1}, 2), (9.0 / 10 + 8.0 / 9 + 0) / 3, 1e-12);
  EXPECT_TRUE(std::isnan(test::ref::centroidSilhouette(p, {0, 0, 0}, {at(0)})));
}

TEST(SegmentationReference, FeaturesAssignmentAndCentres) {
  EXPECT_DOUBLE_EQ(test::ref::spatialScale(1, 100, 50), 2.55);
  EXPECT_DOUBLE_EQ(test::ref::spatialScale(0.5, 40, 80), 255.0 / 160);
  const uint8_t rgba[2 * 4] = {10, 20, 30, 255, 40, 50, 60, 0};
  const std::vector<Feature> f = test::ref::rgbxyFeatures(rgba, 2, 1, 2);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1], (Feature{40, 50, 60, 255, 0}));  // s = 2 * 255 / 2: crossing one pixel costs 255
  EXPECT_EQ(f[0], (Feature{10, 20, 30, 0, 0}));
  EXPECT_DOUBLE_EQ(test::ref::distance2(f[0], f[1]), 3 * 900.0 + 255 * 255);
  // Ties go to the lowest index; an empty cluster keeps its centre.
  EXPECT_EQ(test::ref::nearestCentre(at(5), {at(0), at(10)}), 0);
  EXPECT_EQ(test::ref::nearestCentre(at(6), {at(0), at(10), at(6)}), 2);
  const std::vector<Feature> pts = {at(1), at(3), at(9)};
  const std::vector<int> labels = test::ref::assign(pts, {at(0), at(10), at(100)});
  EXPECT_EQ(labels, (std::vector<int>{0, 0, 1}));
  const std::vector<Feature> c = test::ref::centresOf(pts, labels, {at(0), at(10), at(100)});
  EXPECT_EQ(c[0][0], 2);
  EXPECT_EQ(c[1][0], 9);
  EXPECT_EQ(c[2][0], 100);
}

TEST(SegmentationReference, BlobFramesHaveLargeRegionsAndTheAskedNoise) {
  const int w = 160, h = 90;
  for (int n = 2; n <= 8; ++n) {
    std::vector<int> labels;
    const HostImage clean = test::makeBlobs(w, h, n, 0, 7, &labels);
    const HostImage noisy = test::makeBlobs(w, h, n, 4, 7);
    std::vector<size_t> size(size_t(n), 0);
    for (int l : labels) ++size[size_t(l)];
    for (int r = 0; r < n; ++r) EXPECT_GT(size[size_t(r)], size_t(w * h / (6 * n))) << n << " regions, region " << r;
    double sum = 0, sum2 = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) {
          const double d = channel(noisy.at(x, y), c) - channel(clean.at(x, y), c);
          sum += d, sum2 += d * d;
        }
    const double count = 3.0 * w * h, sd = std::sqrt(sum2 / count - (sum / count) * (sum / count));
    EXPECT_NEAR(sd, 4.0, 0.3) << n;  // the palette keeps 5 sigma from 0 and 255: nothing clamped
    EXPECT_NEAR(sum / count, 0.0, 0.1) << n;
  }
}

// Centres at the middle of their grid cells (pixel-centre convention) with the given colour.
std::vector<Feature> cellCentres(const test::ref::SlicGrid& g, int w, int h, const std::vector<Feature>& pixels) {
  std::vector<Feature> c;
  for (int r = 0; r < g.rows; ++r)
    for (int col = 0; col < g.cols; ++col) {
      const double x = (col + 0.5) * w / g.cols - 0.5, y = (r + 0.5) * h / g.rows - 0.5;
      const Feature& p = pixels[size_t(std::lround(y)) * size_t(w) + size_t(std::lround(x))];
      c.push_back({p[0], p[1], p[2], x, y});
    }
  return c;
}

TEST(SegmentationReference, SlicGridAndAssignment) {
  test::ref::SlicGrid g = test::ref::slicGrid(640, 480, 1000);
  EXPECT_EQ(g.cols, 37);
  EXPECT_EQ(g.rows, 27);
  EXPECT_NEAR(g.interval, std::sqrt(307.2), 1e-12);
  g = test::ref::slicGrid(4, 3, 10000);  // more superpixels than pixels: one a pixel at most
  EXPECT_EQ(g.cols, 4);
  EXPECT_EQ(g.rows, 3);

  const int w = 96, h = 64;
  // A flat frame: colour says nothing, so every pixel takes its own cell's centre.
  const HostImage flat = test::makeBlobs(w, h, 1, 0, 3);
  const std::vector<Feature> fp = test::ref::rgbxyFeatures(reinterpret_cast<const uint8_t*>(flat.data()), w, h, -1);
  g = test::ref::slicGrid(w, h, 24);
  ASSERT_EQ(g.cols * g.rows, 24);
  std::vector<int> labels = test::ref::slicAssign(fp, w, h, g, cellCentres(g, w, h, fp), 10);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) ASSERT_EQ(labels[size_t(y * w + x)], g.cellOf(x, y, w, h)) << x << "," << y;

  // Noisy regions, compactness 0: colour alone decides among the 3 x 3 candidates, so a
  // pixel takes a centre of its own region's colour wherever one is a candidate; and no
  // pixel ever takes a centre outside its neighbourhood.
  std::vector<int> regions;
  const HostImage blobs = test::makeBlobs(w, h, 4, 4, 5, &regions);
  const std::vector<Feature> bp = test::ref::rgbxyFeatures(reinterpret_cast<const uint8_t*>(blobs.data()), w, h, -1);
  const std::vector<Feature> centres = cellCentres(g, w, h, bp);
  std::vector<int> centreRegion;
  for (const Feature& c : centres) centreRegion.push_back(regions[size_t(std::lround(c[4])) * w + size_t(std::lround(c[3]))]);
  labels = test::ref::slicAssign(bp, w, h, g, centres, 0);
  int matched = 0, possible = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int cell = g.cellOf(x, y, w, h), got = labels[size_t(y * w + x)];
      ASSERT_LE(std::abs(got % g.cols - cell % g.cols), 1);
      ASSERT_LE(std::abs(got / g.cols - cell / g.cols), 1);
      bool candidate = false;
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc) {
          const int r = cell / g.cols + dr, c = cell % g.cols + dc;
          if (r >= 0 && r < g.rows && c >= 0 && c < g.cols && centreRegion[size_t(r * g.cols + c)] == regions[size_t(y * w + x)])
            candidate = true;
        }
      possible += candidate;
      matched += candidate && centreRegion[size_t(got)] == regions[size_t(y * w + x)];
    }
  EXPECT_GT(possible, w * h / 2);
  EXPECT_EQ(matched, possible);
}

// Every 7th pixel of a blob frame as features (colour only), with its true region.
struct Sample {
  std::vector<Feature> points;
  std::vector<int> regions;
};
Sample sampleBlobs(int n) {
  const int w = 160, h = 90;
  std::vector<int> labels;
  const HostImage img = test::makeBlobs(w, h, n, 4, 11, &labels);
  Sample s;
  for (int i = 0; i < w * h; i += 7) {
    const uchar4 p = img.at(i % w, i / w);
    s.points.push_back({double(p.x), double(p.y), double(p.z), 0, 0});
    s.regions.push_back(labels[size_t(i)]);
  }
  return s;
}

TEST(SegmentationReference, TheTruePartitionOfNoisyRegionsScoresHighest) {
  for (int n = 2; n <= 8; ++n) {
    const Sample s = sampleBlobs(n);
    const double truth = test::ref::silhouette(s.points, s.regions, n);
    EXPECT_GT(truth, 0.8) << n;  // regions >= 150 levels apart, noise 4
    if (n >= 3) {                // two regions merged: n - 1 clusters
      std::vector<int> merged = s.regions;
      for (int& l : merged) l = l == n - 1 ? 0 : l;
      EXPECT_LT(test::ref::silhouette(s.points, merged, n - 1), truth) << n;
    }
    // One region split in two by the parity of its points: n + 1 clusters.
    std::vector<int> split = s.regions;
    for (size_t i = 0; i < split.size(); ++i)
      if (split[i] == 0 && i % 2) split[i] = n;
    EXPECT_LT(test::ref::silhouette(s.points, split, n + 1), truth) << n;
    // The centroid form agrees on the ranking.
    const std::vector<Feature> start(size_t(n), Feature{});
    const double centroidTruth =
        test::ref::centroidSilhouette(s.points, s.regions, test::ref::centresOf(s.points, s.regions, start));
    const std::vector<Feature> startSplit(size_t(n + 1), Feature{});
    EXPECT_LT(test::ref::centroidSilhouette(s.points, split, test::ref::centresOf(s.points, split, startSplit)),
              centroidTruth)
        << n;
  }
}

}  // namespace
}  // namespace vp
