// Independent references for segmentation that sees space and chooses K (RGBXY K-means,
// automatic K), written from their definitions alone in double precision (no gpu/ header,
// no shared arithmetic):
//
//  - features of a pixel: (R, G, B, s x, s y) with s = W * 255 / max(width, height), so
//    with W = 1 crossing the whole frame costs as much as the whole colour range;
//  - assignment: each point to the nearest centre by the squared Euclidean distance over
//    the features, ties to the lowest index;
//  - the silhouette of a labelled sample (Rousseeuw 1987): for point i in cluster A,
//    a(i) = mean distance to the other points of A, b(i) = the least mean distance to the
//    points of another cluster, s(i) = (b - a) / max(a, b), and s(i) = 0 when A has one
//    point; the score is the mean of s(i), defined for 2 or more non-empty clusters;
//  - the centroid (simplified) silhouette: a(i) = distance to its own cluster's centre,
//    b(i) = distance to the nearest other centre: O(n k) instead of O(n^2);
//  - the SLIC assignment step (Achanta et al., in RGB): N superpixels on a cols x rows grid
//    (cols = round(width / S) within 1..width, rows likewise, S = sqrt(width height / N));
//    centre c = row * cols + col belongs to grid cell (col, row), and pixel
//    (x, y) to cell (floor(x cols / width), floor(y rows / height)). A pixel is compared
//    with the centres of the cells within one step of its own (the 3 x 3 neighbourhood,
//    clipped at the grid's edges) by D = dc^2 + (ds / S)^2 m^2 (dc: RGB distance, ds: x-y
//    distance, m: compactness) and takes the least, ties to the lowest centre index.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace vp::test::ref {

using Feature = std::array<double, 5>;  // r, g, b, s x, s y

// The spatial scale s = weight * 255 / max(width, height).
double spatialScale(double weight, int width, int height);
// The features of each pixel of an RGBA8 image (raster order); `weight` < 0 keeps x and y
// in pixels (the SLIC step's form).
std::vector<Feature> rgbxyFeatures(const uint8_t* rgba, int width, int height, double weight);
double distance2(const Feature& a, const Feature& b);

// The index of the centre nearest `p` (ties to the lowest index).
int nearestCentre(const Feature& p, const std::vector<Feature>& centres);
// Each point's nearest centre.
std::vector<int> assign(const std::vector<Feature>& points, const std::vector<Feature>& centres);
// The mean of each label's points (labels 0..k-1); an empty cluster keeps `previous[j]`.
std::vector<Feature> centresOf(const std::vector<Feature>& points, const std::vector<int>& labels,
                               const std::vector<Feature>& previous);

// The silhouette score of `points` labelled 0..k-1; NaN with fewer than 2 non-empty clusters.
double silhouette(const std::vector<Feature>& points, const std::vector<int>& labels, int k);
// The centroid silhouette against `centres` (one per label); NaN with fewer than 2 centres.
double centroidSilhouette(const std::vector<Feature>& points, const std::vector<int>& labels,
                          const std::vector<Feature>& centres);

// The SLIC grid of `superpixels` on a width x height frame, and its centres' cells.
struct SlicGrid {
  int cols = 1, rows = 1;
  double interval = 1;  // S
  int cellOf(int x, int y, int width, int height) const;  // row * cols + col
};
SlicGrid slicGrid(int width, int height, int superpixels);
// Each pixel's superpixel (raster order) for `centres` (cols * rows of them, centre c of
// cell c) at compactness m; points are rgbxyFeatures(.., weight 0) with x, y in pixels.
std::vector<int> slicAssign(const std::vector<Feature>& pixels, int width, int height, const SlicGrid& grid,
                            const std::vector<Feature>& centres, double compactness);

}  // namespace vp::test::ref
