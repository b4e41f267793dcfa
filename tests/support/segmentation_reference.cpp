#include "support/segmentation_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vp::test::ref {

double spatialScale(double weight, int width, int height) { return weight * 255.0 / double(std::max(width, height)); }

std::vector<Feature> rgbxyFeatures(const uint8_t* rgba, int width, int height, double weight) {
  const double s = weight < 0 ? 1.0 : spatialScale(weight, width, height);
  std::vector<Feature> f;
  f.reserve(size_t(width) * size_t(height));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = rgba + (size_t(y) * size_t(width) + size_t(x)) * 4;
      f.push_back({double(p[0]), double(p[1]), double(p[2]), s * x, s * y});
    }
  return f;
}

double distance2(const Feature& a, const Feature& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

int nearestCentre(const Feature& p, const std::vector<Feature>& centres) {
  int best = 0;
  double bestD = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < centres.size(); ++j) {
    const double d = distance2(p, centres[j]);
    if (d < bestD) {
      bestD = d;
      best = int(j);
    }
  }
  return best;
}

std::vector<int> assign(const std::vector<Feature>& points, const std::vector<Feature>& centres) {
  std::vector<int> labels(points.size());
  for (size_t i = 0; i < points.size(); ++i) labels[i] = nearestCentre(points[i], centres);
  return labels;
}

std::vector<Feature> centresOf(const std::vector<Feature>& points, const std::vector<int>& labels,
                               const std::vector<Feature>& previous) {
  std::vector<Feature> sum(previous.size(), Feature{});
  std::vector<size_t> count(previous.size(), 0);
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t c = 0; c < sum[0].size(); ++c) sum[size_t(labels[i])][c] += points[i][c];
    ++count[size_t(labels[i])];
  }
  std::vector<Feature> centres = previous;
  for (size_t j = 0; j < centres.size(); ++j)
    if (count[j] > 0)
      for (size_t c = 0; c < sum[j].size(); ++c) centres[j][c] = sum[j][c] / double(count[j]);
  return centres;
}

double silhouette(const std::vector<Feature>& points, const std::vector<int>& labels, int k) {
  std::vector<size_t> size(size_t(k), 0);
  for (int l : labels) ++size[size_t(l)];
  if (std::count_if(size.begin(), size.end(), [](size_t n) { return n > 0; }) < 2)
    return std::numeric_limits<double>::quiet_NaN();
  double total = 0;
  std::vector<double> sum(static_cast<size_t>(k), 0.0);
  for (size_t i = 0; i < points.size(); ++i) {
    std::fill(sum.begin(), sum.end(), 0.0);
    for (size_t j = 0; j < points.size(); ++j)
      if (j != i) sum[size_t(labels[j])] += std::sqrt(distance2(points[i], points[j]));
    const size_t own = size_t(labels[i]);
    if (size[own] == 1) continue;  // s(i) = 0
    const double a = sum[own] / double(size[own] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < size_t(k); ++c)
      if (c != own && size[c] > 0) b = std::min(b, sum[c] / double(size[c]));
    const double m = std::max(a, b);
    total += m > 0 ? (b - a) / m : 0.0;
  }
  return total / double(points.size());
}

double centroidSilhouette(const std::vector<Feature>& points, const std::vector<int>& labels,
                          const std::vector<Feature>& centres) {
  if (centres.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  double total = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const size_t own = size_t(labels[i]);
    const double a = std::sqrt(distance2(points[i], centres[own]));
    double b = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < centres.size(); ++c)
      if (c != own) b = std::min(b, std::sqrt(distance2(points[i], centres[c])));
    const double m = std::max(a, b);
    total += m > 0 ? (b - a) / m : 0.0;
  }
  return total / double(points.size());
}

int SlicGrid::cellOf(int x, int y, int width, int height) const {
  const int col = int(int64_t(x) * cols / width), row = int(int64_t(y) * rows / height);
  return row * cols + col;
}

SlicGrid slicGrid(int width, int height, int superpixels) {
  SlicGrid g;
  g.interval = std::sqrt(double(width) * double(height) / double(superpixels));
  g.cols = std::clamp(int(std::lround(double(width) / g.interval)), 1, width);
  g.rows = std::clamp(int(std::lround(double(height) / g.interval)), 1, height);
  return g;
}

std::vector<int> slicAssign(const std::vector<Feature>& pixels, int width, int height, const SlicGrid& grid,
                            const std::vector<Feature>& centres, double compactness) {
  const double spatial = compactness * compactness / (grid.interval * grid.interval);
  std::vector<int> labels(pixels.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const Feature& p = pixels[size_t(y) * size_t(width) + size_t(x)];
      const int cell = grid.cellOf(x, y, width, height), col = cell % grid.cols, row = cell / grid.cols;
      int best = -1;
      double bestD = std::numeric_limits<double>::infinity();
      for (int r = std::max(0, row - 1); r <= std::min(grid.rows - 1, row + 1); ++r)
        for (int c = std::max(0, col - 1); c <= std::min(grid.cols - 1, col + 1); ++c) {
          const Feature& q = centres[size_t(r * grid.cols + c)];
          double colour = 0;
          for (int i = 0; i < 3; ++i) colour += (p[size_t(i)] - q[size_t(i)]) * (p[size_t(i)] - q[size_t(i)]);
          const double d = colour + spatial * ((p[3] - q[3]) * (p[3] - q[3]) + (p[4] - q[4]) * (p[4] - q[4]));
          const int index = r * grid.cols + c;  // visited in increasing order: ties keep the lowest
          if (d < bestD) bestD = d, best = index;
        }
      labels[size_t(y) * size_t(width) + size_t(x)] = best;
    }
  return labels;
}

}  // namespace vp::test::ref
