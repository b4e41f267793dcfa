// SLIC's CPU twin (slic.h): the kernels' per-pixel functions of slic_math.h over rows in
// parallel (OpenMP); per-thread integer sums added in thread order (integers: the order
// does not matter); connectivity by a sequential union-find whose roots are the least
// raster indices, as on the GPU.
#include "gpu/filters/common/view_checks.h"
#include "gpu/filters/slic/slic.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vp {

// Bounds for every frame up to width x height and every N (so a workspace sized once
// serves smaller frames too). Centres: with S >= 1 (else one cell a pixel), cols <= w/S + 1/2
// and rows <= h/S + 1/2 give cols rows <= N + (w + h) / 2 + 1/4; a dimension below S/2 has one
// row (column) and at most w (h) cells. Regions: each kept component but pixel 0's holds
// minRegion = max(1, floor(P / 4N)) pixels or more, so there are at most P / minRegion + 1,
// which peaks just below P = 8N (minRegion 1).
int slicMaxCentres(int width, int height) {
  return int(std::min<int64_t>(int64_t(width) * height, int64_t(kMaxSuperpixels) + width + height));
}

int64_t slicMaxRegions(int width, int height) {
  return std::min<int64_t>(int64_t(width) * height, 8 * int64_t(kMaxSuperpixels) + 1);
}

namespace detail {

void checkSlicParams(const SlicParams& p, const char* who) {
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  if (p.superpixels < 1 || p.superpixels > kMaxSuperpixels)
    fail("superpixels " + std::to_string(p.superpixels) + " outside 1.." + std::to_string(kMaxSuperpixels));
  if (!(p.compactness >= kMinCompactness && p.compactness <= kMaxCompactness))
    fail("compactness " + std::to_string(p.compactness) + " outside 1..80");
  if (p.iterations < 0 || p.iterations > kMaxSlicIterations)
    fail("iterations " + std::to_string(p.iterations) + " outside 0.." + std::to_string(kMaxSlicIterations));
}

bool checkSlicArgs(ConstRgbaView in, ConstRgbaView out, const SlicParams& p, int maxWidth, int maxHeight,
                   const char* who) {
  checkSlicParams(p, who);
  auto fail = [&](const std::string& why) { throw std::invalid_argument(std::string(who) + ": " + why); };
  return checkFilterViews(in, out, BorderMode::Replicate, maxWidth, maxHeight, fail);
}

}  // namespace detail

SlicCpuScratch::SlicCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxSlicDimension || maxHeight > kMaxSlicDimension)
    throw std::invalid_argument("SlicCpuScratch: size outside 1.." + std::to_string(kMaxSlicDimension));
  const size_t pixels = size_t(maxWidth) * size_t(maxHeight), centres = size_t(slicMaxCentres(maxWidth, maxHeight));
  centres_.resize(centres);
  partial_.resize(centres * size_t(omp_get_max_threads()));
  labels_.resize(pixels);
  parent_.resize(pixels);
  regions_.resize(pixels);
  rank_.resize(pixels);
  regionSums_.resize(size_t(slicMaxRegions(maxWidth, maxHeight)));
}

struct SlicCpuAccess {
  // One assignment of every pixel to `s.centres_`; with `accumulate`, each centre's sums
  // of the assigned pixels in partial_[0..centres).
  static void assign(ConstRgbaView in, const SlicFrame& f, SlicCpuScratch& s, bool accumulate) {
    const int n = f.centres();
    const int most = int(s.partial_.size() / s.centres_.size());
    int threads = 1;  // the threads that ran: their partial sums are the ones to add
#pragma omp parallel num_threads(most)
    {
#pragma omp single
      threads = omp_get_num_threads();
      SlicSums* sums = s.partial_.data() + size_t(omp_get_thread_num()) * s.centres_.size();
      if (accumulate) std::fill(sums, sums + n, SlicSums{});
#pragma omp for schedule(static)
      for (int y = 0; y < f.height; ++y) {
        const uchar4* row = in.row(y);
        uint32_t* labels = s.labels_.data() + size_t(y) * size_t(f.width);
        for (int x = 0; x < f.width; ++x) {
          const uint32_t l =
              slic::nearestCentre(row[x], x, y, s.centres_.data(), f.width, f.height, f.cols, f.rows, f.weight);
          labels[x] = l;
          if (accumulate) {
            SlicSums& c = sums[l];
            c.r += row[x].x, c.g += row[x].y, c.b += row[x].z, c.x += unsigned(x), c.y += unsigned(y), ++c.count;
          }
        }
      }
    }
    if (!accumulate) return;
    for (int t = 1; t < threads; ++t) {  // integer sums: any order gives the same totals
      const SlicSums* add = s.partial_.data() + size_t(t) * s.centres_.size();
      for (int j = 0; j < n; ++j) {
        SlicSums& c = s.partial_[size_t(j)];
        c.r += add[j].r, c.g += add[j].g, c.b += add[j].b, c.x += add[j].x, c.y += add[j].y, c.count += add[j].count;
      }
    }
  }

  static void superpixels(ConstRgbaView in, const SlicFrame& f, const SlicParams& p, SlicCpuScratch& s) {
    for (int c = 0; c < f.centres(); ++c) s.centres_[size_t(c)] = slic::initialCentre(in, c, f.cols, f.rows);
    for (int it = 0; it < p.iterations; ++it) {
      assign(in, f, s, true);
      for (int c = 0; c < f.centres(); ++c) slic::updateCentre(s.centres_[size_t(c)], s.partial_[size_t(c)]);
    }
    assign(in, f, s, false);
  }

  // Union-find root with path halving; parents always point to smaller indices.
  static uint32_t find(uint32_t* parent, uint32_t i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  // Connected components, merges of small ones, region ids, ranks and colour sums.
  static void connect(ConstRgbaView in, const SlicFrame& f, SlicCpuScratch& s) {
    const uint32_t w = uint32_t(f.width), pixels = w * uint32_t(f.height);
    const uint32_t* label = s.labels_.data();
    uint32_t* parent = s.parent_.data();
    // Pass 1: raster order; link with the left and upper neighbours of the same superpixel,
    // the larger root under the smaller one, so every root is its component's least index.
    for (uint32_t i = 0; i < pixels; ++i) {
      const uint32_t x = i % w;
      uint32_t root = i;
      if (x > 0 && label[i - 1] == label[i]) root = find(parent, i - 1);
      if (i >= w && label[i - w] == label[i]) {
        const uint32_t up = find(parent, i - w);
        if (root == i) root = up;
        else if (up != root) {
          parent[std::max(up, root)] = std::min(up, root);
          root = std::min(up, root);
        }
      }
      parent[i] = root;
    }
    // Pass 2: every pixel to its root (parents are smaller indices, already resolved); sizes.
    uint32_t* size = s.regions_.data();  // a root's pixels, then its region (in place)
    std::fill(size, size + pixels, 0u);
    for (uint32_t i = 0; i < pixels; ++i) {
      parent[i] = parent[parent[i]];
      ++size[parent[i]];
    }
    // Pass 3: roots in increasing order: kept ones are their own region and get the next
    // rank; a small one joins the region of the left (else upper) neighbour of its root,
    // a smaller root whose region is already known.
    uint32_t* region = size;
    uint32_t regions = 0;
    for (uint32_t i = 0; i < pixels; ++i) {
      if (parent[i] != i) continue;
      if (i == 0 || int64_t(size[i]) >= f.minRegion) {
        region[i] = i;
        s.rank_[i] = regions++;
      } else {
        region[i] = region[parent[i % w > 0 ? i - 1 : i - w]];
      }
    }
    // Pass 4: each pixel's region id (parent[i] is a root, region[root] known) and the
    // regions' colour sums.
    std::fill(s.regionSums_.begin(), s.regionSums_.begin() + regions, SlicRegionSums{});
    for (uint32_t y = 0, i = 0; y < uint32_t(f.height); ++y) {
      const uchar4* row = in.row(int(y));
      for (uint32_t x = 0; x < w; ++x, ++i) {
        const uint32_t r = region[parent[i]];
        parent[i] = r;
        SlicRegionSums& sum = s.regionSums_[s.rank_[r]];
        sum.r += row[x].x, sum.g += row[x].y, sum.b += row[x].z, ++sum.count;
      }
    }
    std::copy(parent, parent + pixels, s.regions_.begin());
    s.stats_.regions = regions;
    s.stats_.centres = uint32_t(f.centres());
  }

  static void paint(ConstRgbaView in, RgbaView out, const SlicFrame& f, SlicCpuScratch& s) {
#pragma omp parallel for schedule(static)
    for (int y = 0; y < f.height; ++y) {
      const uint32_t* region = s.regions_.data() + size_t(y) * size_t(f.width);
      for (int x = 0; x < f.width; ++x) {
        const uint32_t alpha = uint32_t(in.at(x, y).w) << 24;
        tiles::storePixel(out, x, y, slic::regionColour(s.regionSums_[s.rank_[region[x]]], alpha));
      }
    }
  }
};

namespace detail {

void slicSuperpixelsCpu(ConstRgbaView in, const SlicParams& params, SlicCpuScratch& scratch) {
  checkSlicParams(params, "slicSuperpixelsCpu");
  if (in.empty() || !in.data || in.width > scratch.maxWidth() || in.height > scratch.maxHeight())
    throw std::invalid_argument("slicSuperpixelsCpu: no frame, or larger than the scratch");
  const SlicFrame f = slicFrameOf(in.width, in.height, params.superpixels, params.compactness);
  SlicCpuAccess::superpixels(in, f, params, scratch);
}

}  // namespace detail

void slicCpu(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicCpuScratch& scratch) {
  if (!detail::checkSlicArgs(in, out, params, scratch.maxWidth(), scratch.maxHeight(), "slicCpu")) return;
  const SlicFrame f = slicFrameOf(in.width, in.height, params.superpixels, params.compactness);
  SlicCpuAccess::superpixels(in, f, params, scratch);
  SlicCpuAccess::connect(in, f, scratch);
  if (view == SegmentView::Colour)
    SlicCpuAccess::paint(in, out, f, scratch);
  else
    segmentViewCpu(view, in, scratch.regions().data(), out);
}

}  // namespace vp
