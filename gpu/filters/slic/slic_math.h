// SLIC arithmetic shared by the CUDA kernels and the CPU twin, written once so both
// round identically (slic.h has the contract; the twin is the kernels' bit-exact oracle).
//
// Float steps go through common/exact_float.h's mulRn / addRn / subRn: __fmul_rn & co. on
// the device (never contracted to FMA), plain operators on the host (compiled with
// -ffp-contract=off). Everything else is integer arithmetic.
#pragma once

#include "gpu/filters/common/exact_float.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>  // __host__ __device__
#include <vector_types.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace vp {

constexpr int kMaxSuperpixels = 16384;      // largest N
constexpr int kMaxSlicIterations = 50;      // most update rounds
constexpr float kMinCompactness = 1.f;      // m bounds
constexpr float kMaxCompactness = 80.f;
constexpr int kMaxSlicDimension = 16384;    // pixels per side

// A superpixel centre: mean colour (8-bit levels) and mean position (pixels). 32 bytes, so
// a kernel reads it as two float4.
struct alignas(16) SlicCentre {
  float r, g, b, x, y;
  float pad[3];
};

// Integer sums of a centre's assigned pixels (64-bit: the result does not depend on the
// order of the additions). unsigned long long for CUDA's atomicAdd.
struct SlicSums {
  unsigned long long r, g, b, x, y, count;
};

// Integer colour sums of one final region.
struct SlicRegionSums {
  unsigned long long r, g, b, count;
};

// The grid and the per-frame constants of a width x height frame with N superpixels and
// compactness m (host only: both backends call it).
struct SlicFrame {
  int width = 0, height = 0;  // pixels
  int cols = 1, rows = 1;     // grid cells; centre c = row * cols + col
  double interval = 1;        // S = sqrt(width * height / N), pixels
  float weight = 0;           // w = m^2 / S^2 = (float)(m * m * N / (width * height)), in double
  int64_t minRegion = 1;      // components of fewer pixels merge: max(1, floor(width * height / (4 N)))
  int centres() const { return cols * rows; }
};

inline SlicFrame slicFrameOf(int width, int height, int superpixels, float compactness) {
  SlicFrame f;
  f.width = width;
  f.height = height;
  const double area = double(width) * double(height), n = double(superpixels);
  f.interval = std::sqrt(area / n);
  f.cols = std::clamp(int(std::lround(double(width) / f.interval)), 1, width);
  f.rows = std::clamp(int(std::lround(double(height) / f.interval)), 1, height);
  f.weight = float(double(compactness) * double(compactness) * n / area);
  f.minRegion = std::max<int64_t>(1, int64_t(width) * int64_t(height) / (4 * int64_t(superpixels)));
  return f;
}

namespace slic {

// The cell column of pixel column x (or row of y): floor(x * cols / width).
__host__ __device__ inline int cellOf(int x, int width, int cells) { return int(int64_t(x) * cells / width); }
// The first pixel of cell c: ceil(c * width / cells) (cell c spans [cellStart(c), cellStart(c + 1))).
__host__ __device__ inline int cellStart(int c, int width, int cells) {
  return int((int64_t(c) * width + cells - 1) / cells);
}
// The middle pixel of cell c: floor((first + last) / 2).
__host__ __device__ inline int cellMiddle(int c, int width, int cells) {
  return (cellStart(c, width, cells) + cellStart(c + 1, width, cells) - 1) / 2;
}

// The initial centre c: at its cell's middle pixel, with that pixel's colour.
__host__ __device__ inline SlicCentre initialCentre(ConstRgbaView in, int c, int cols, int rows) {
  const int x = cellMiddle(c % cols, in.width, cols), y = cellMiddle(c / cols, in.height, rows);
  const uchar4 p = in.at(x, y);
  SlicCentre s{};
  s.r = float(p.x), s.g = float(p.y), s.b = float(p.z), s.x = float(x), s.y = float(y);
  return s;
}

// D = dc^2 + w ds^2 in this order: dc^2 = (dr*dr + dg*dg) + db*db, ds^2 = dx*dx + dy*dy,
// D = dc^2 + w * ds^2, d = pixel - centre, every step rounded to float. dx2 = dx*dx comes
// in computed: the persistent kernel keeps it per column of pixels and centre.
__host__ __device__ inline float distanceDx2(float pr, float pg, float pb, float py, float cr, float cg, float cb,
                                             float cy, float dx2, float w) {
  const float dr = subRn(pr, cr), dg = subRn(pg, cg), db = subRn(pb, cb), dy = subRn(py, cy);
  const float colour = addRn(addRn(mulRn(dr, dr), mulRn(dg, dg)), mulRn(db, db));
  const float space = addRn(dx2, mulRn(dy, dy));
  return addRn(colour, mulRn(w, space));
}

__host__ __device__ inline float distance(float pr, float pg, float pb, float px, float py, const SlicCentre& c,
                                          float w) {
  const float dx = subRn(px, c.x);
  return distanceDx2(pr, pg, pb, py, c.r, c.g, c.b, c.y, mulRn(dx, dx), w);
}

// The superpixel of pixel (x, y): the least D over the centres of the 3 x 3 cells around
// its own (clipped at the grid's edges), visited in increasing index; ties to the lowest.
__host__ __device__ inline uint32_t nearestCentre(uchar4 p, int x, int y, const SlicCentre* centres, int width,
                                                  int height, int cols, int rows, float w) {
  const int col = cellOf(x, width, cols), row = cellOf(y, height, rows);
  const float pr = float(p.x), pg = float(p.y), pb = float(p.z), px = float(x), py = float(y);
  const int c0 = col > 0 ? col - 1 : 0, c1 = col + 1 < cols ? col + 1 : cols - 1;
  const int r0 = row > 0 ? row - 1 : 0, r1 = row + 1 < rows ? row + 1 : rows - 1;
  float best = INFINITY;
  uint32_t bestIndex = uint32_t(row * cols + col);
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c) {
      const int j = r * cols + c;
      const float d = distance(pr, pg, pb, px, py, centres[j], w);
      if (d < best) best = d, bestIndex = uint32_t(j);
    }
  return bestIndex;
}

// The updated centre: each component (float)((double)sum / count); an empty centre keeps its values.
__host__ __device__ inline void updateCentre(SlicCentre& c, const SlicSums& s) {
  if (s.count == 0) return;
  c.r = meanChannel(s.r, s.count);
  c.g = meanChannel(s.g, s.count);
  c.b = meanChannel(s.b, s.count);
  c.x = meanChannel(s.x, s.count);
  c.y = meanChannel(s.y, s.count);
}

// A region's output channel: the mean of its integer sum rounded half up (away from zero),
// (2 sum + count) / (2 count) in integers.
__host__ __device__ inline uint8_t meanByte(unsigned long long sum, unsigned long long count) {
  return uint8_t((2 * sum + count) / (2 * count));
}

// A region's painted colour (R | G << 8 | B << 16) with `alpha` (A << 24) added.
__host__ __device__ inline uint32_t regionColour(const SlicRegionSums& s, uint32_t alpha) {
  return uint32_t(meanByte(s.r, s.count)) | uint32_t(meanByte(s.g, s.count)) << 8 |
         uint32_t(meanByte(s.b, s.count)) << 16 | alpha;
}

}  // namespace slic
}  // namespace vp
