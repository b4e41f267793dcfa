#include "support/slic_reference.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace vp::test::ref {

std::vector<Feature> slicInitialCentres(const uint8_t* rgba, int width, int height, const SlicGrid& grid) {
  std::vector<int> firstX(size_t(grid.cols), -1), lastX(size_t(grid.cols)), firstY(size_t(grid.rows), -1),
      lastY(size_t(grid.rows));
  for (int x = 0; x < width; ++x) {
    const int c = grid.cellOf(x, 0, width, height) % grid.cols;
    if (firstX[size_t(c)] < 0) firstX[size_t(c)] = x;
    lastX[size_t(c)] = x;
  }
  for (int y = 0; y < height; ++y) {
    const int r = grid.cellOf(0, y, width, height) / grid.cols;
    if (firstY[size_t(r)] < 0) firstY[size_t(r)] = y;
    lastY[size_t(r)] = y;
  }
  std::vector<Feature> centres;
  for (int r = 0; r < grid.rows; ++r)
    for (int c = 0; c < grid.cols; ++c) {
      const int x = (firstX[size_t(c)] + lastX[size_t(c)]) / 2, y = (firstY[size_t(r)] + lastY[size_t(r)]) / 2;
      const uint8_t* p = rgba + (size_t(y) * size_t(width) + size_t(x)) * 4;
      centres.push_back({double(p[0]), double(p[1]), double(p[2]), double(x), double(y)});
    }
  return centres;
}

double slicDistance(const Feature& p, const Feature& q, double spatial) {
  double colour = 0;
  for (int i = 0; i < 3; ++i) colour += (p[size_t(i)] - q[size_t(i)]) * (p[size_t(i)] - q[size_t(i)]);
  return colour + spatial * ((p[3] - q[3]) * (p[3] - q[3]) + (p[4] - q[4]) * (p[4] - q[4]));
}

bool slicNearTie(const std::vector<Feature>& pixels, int width, int height, const SlicGrid& grid,
                 const std::vector<Feature>& centres, double compactness, int x, int y) {
  const double spatial = compactness * compactness / (grid.interval * grid.interval);
  const Feature& p = pixels[size_t(y) * size_t(width) + size_t(x)];
  const int cell = grid.cellOf(x, y, width, height), col = cell % grid.cols, row = cell / grid.cols;
  std::vector<double> d;
  for (int r = std::max(0, row - 1); r <= std::min(grid.rows - 1, row + 1); ++r)
    for (int c = std::max(0, col - 1); c <= std::min(grid.cols - 1, col + 1); ++c)
      d.push_back(slicDistance(p, centres[size_t(r * grid.cols + c)], spatial));
  if (d.size() < 2) return false;
  std::sort(d.begin(), d.end());
  return d[1] - d[0] <= 1e-4 * (1 + d[0]);
}

std::vector<uint32_t> slicConnect(const std::vector<int>& superpixels, int width, int height, int64_t minRegion,
                                  int* regionCount) {
  const size_t n = size_t(width) * size_t(height);
  std::vector<uint32_t> root(n, UINT32_MAX);
  std::vector<int64_t> size(n, 0);
  std::deque<size_t> queue;
  for (size_t start = 0; start < n; ++start) {  // raster order: a component's first pixel is its least index
    if (root[start] != UINT32_MAX) continue;
    root[start] = uint32_t(start);
    queue.push_back(start);
    while (!queue.empty()) {
      const size_t i = queue.front();
      queue.pop_front();
      ++size[start];
      const int x = int(i % size_t(width)), y = int(i / size_t(width));
      const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
      for (int k = 0; k < 4; ++k) {
        if (nx[k] < 0 || nx[k] >= width || ny[k] < 0 || ny[k] >= height) continue;
        const size_t j = size_t(ny[k]) * size_t(width) + size_t(nx[k]);
        if (root[j] == UINT32_MAX && superpixels[j] == superpixels[i]) root[j] = uint32_t(start), queue.push_back(j);
      }
    }
  }
  // Roots in increasing order: a small one takes the region of the pixel left of it (else above).
  std::vector<uint32_t> region(n, UINT32_MAX);
  int count = 0;
  for (size_t r = 0; r < n; ++r) {
    if (root[r] != r) continue;
    if (r == 0 || size[r] >= minRegion) {
      region[r] = uint32_t(r);
      ++count;
    } else {
      region[r] = region[root[r % size_t(width) > 0 ? r - 1 : r - size_t(width)]];
    }
  }
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = region[root[i]];
  if (regionCount) *regionCount = count;
  return out;
}

SlicRefResult slicReference(const uint8_t* rgba, int width, int height, const SlicRefParams& p) {
  SlicRefResult out;
  const SlicGrid grid = slicGrid(width, height, p.superpixels);
  const std::vector<Feature> pixels = rgbxyFeatures(rgba, width, height, -1);
  std::vector<Feature> centres = slicInitialCentres(rgba, width, height, grid);
  const auto countTies = [&] {
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) out.nearTies += slicNearTie(pixels, width, height, grid, centres, p.compactness, x, y);
  };
  for (int it = 0; it < p.iterations; ++it) {
    countTies();
    const std::vector<int> labels = slicAssign(pixels, width, height, grid, centres, p.compactness);
    centres = centresOf(pixels, labels, centres);
    for (Feature& c : centres)
      for (double& v : c) v = double(float(v));  // the contract's centres are floats
  }
  countTies();
  out.superpixels = slicAssign(pixels, width, height, grid, centres, p.compactness);
  out.centres = centres;
  const int64_t minRegion = std::max<int64_t>(1, int64_t(width) * height / (4 * int64_t(p.superpixels)));
  out.regions = slicConnect(out.superpixels, width, height, minRegion, &out.regionCount);
  // Mean colours: sums per region id, rounded half up.
  const size_t n = size_t(width) * size_t(height);
  std::vector<uint64_t> sum(n * 3, 0), count(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = out.regions[i];
    for (int c = 0; c < 3; ++c) sum[r * 3 + size_t(c)] += rgba[i * 4 + size_t(c)];
    ++count[r];
  }
  out.rgba.assign(rgba, rgba + n * 4);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = out.regions[i];
    for (int c = 0; c < 3; ++c) out.rgba[i * 4 + size_t(c)] = uint8_t((2 * sum[r * 3 + size_t(c)] + count[r]) / (2 * count[r]));
  }
  return out;
}

}  // namespace vp::test::ref
