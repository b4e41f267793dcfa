// CPU twin of spatial (RGBXY) K-means (kmeans.h, kmeans_spatial.cu): the same arithmetic
// (kmeans_spatial_math.h), rows spread over OpenMP threads, per-thread integer sums
// merged after the loop, so the result is independent of the thread count and equal to
// the GPU's bit for bit. Like kmeans_cpu.cpp, the per-row loops are compiled with and
// without target("fma"), chosen at run time; both give the same results.
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/kmeans/kmeans_spatial_math.h"

#include <cmath>

namespace vp {
namespace {

constexpr int kFields = 6;  // r, g, b, x, y sums and the pixel count
using Sums = uint64_t[kMaxClusters][kFields];

struct Centres {
  km::SpatialCoeffs coeff[kMaxClusters];
  int k = 0;
  float s = 0.f;
  Centres(const float (*c)[5], int count, float scale) : k(count), s(scale) {
    for (int j = 0; j < k; ++j) coeff[j] = km::spatialCoeffs(c[j][0], c[j][1], c[j][2], c[j][3], c[j][4], s);
  }
};

// Lowest score, ties to the lowest index (as the kernel's nearestSpatial).
__attribute__((always_inline)) inline int nearest(const uchar4& p, int x, int y, const Centres& c) {
  const float pr = p.x, pg = p.y, pb = p.z;
  const float fx = km::spatialFeature(c.s, x), fy = km::spatialFeature(c.s, y);
  float best = INFINITY;
  int bi = 0;
  for (int j = 0; j < c.k; ++j) {
    const float sc = km::spatialScore(pr, pg, pb, fx, fy, c.coeff[j]);
    if (sc < best) best = sc, bi = j;
  }
  return bi;
}

__attribute__((always_inline)) inline void accumulateRowBody(const uchar4* row, int y, int width,
                                                             const Centres& c, Sums& sums) {
  for (int x = 0; x < width; ++x) {
    const uchar4 p = row[x];
    uint64_t* s = sums[nearest(p, x, y, c)];
    s[0] += p.x, s[1] += p.y, s[2] += p.z, s[3] += uint64_t(x), s[4] += uint64_t(y), s[5] += 1;
  }
}
__attribute__((always_inline)) inline uint64_t finalRowBody(const uchar4* in, int y, uchar4* out,
                                                            uint8_t* labels, int width, const Centres& c,
                                                            const uchar4* colours) {
  uint64_t cost = 0;
  for (int x = 0; x < width; ++x) {
    const uchar4 p = in[x];
    const int j = nearest(p, x, y, c);
    if (labels) labels[x] = uint8_t(j);
    out[x] = make_uchar4(colours[j].x, colours[j].y, colours[j].z, p.w);
    cost += km::pixelDistance2(p, out[x]);
  }
  return cost;
}

__attribute__((target("fma"))) void accumulateRowFma(const uchar4* row, int y, int width, const Centres& c,
                                                     Sums& sums) {
  accumulateRowBody(row, y, width, c, sums);
}
void accumulateRowPlain(const uchar4* row, int y, int width, const Centres& c, Sums& sums) {
  accumulateRowBody(row, y, width, c, sums);
}
__attribute__((target("fma"))) uint64_t finalRowFma(const uchar4* in, int y, uchar4* out, uint8_t* labels,
                                                    int width, const Centres& c, const uchar4* colours) {
  return finalRowBody(in, y, out, labels, width, c, colours);
}
uint64_t finalRowPlain(const uchar4* in, int y, uchar4* out, uint8_t* labels, int width, const Centres& c,
                       const uchar4* colours) {
  return finalRowBody(in, y, out, labels, width, c, colours);
}

}  // namespace

namespace detail {

void kmeansSpatialCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state,
                      const KmeansParams& params, KmeansCpuScratch& scratch) {
  const int k = params.k, width = in.width, height = in.height;
  const float s = km::spatialScale(params.spatial, width, height);
  const bool fma = __builtin_cpu_supports("fma");
  auto accumulateRow = fma ? accumulateRowFma : accumulateRowPlain;
  auto finalRow = fma ? finalRowFma : finalRowPlain;

  float centres[kMaxClusters][5];
  if (params.init == KmeansInit::Uniform) {
    for (int j = 0; j < k; ++j) {
      const uint64_t i = km::spreadIndex(uint64_t(j), in.pixels(), uint64_t(k));
      const int x = int(i % uint64_t(width)), y = int(i / uint64_t(width));
      const uchar4 p = in.at(x, y);
      const float c[5] = {float(p.x), float(p.y), float(p.z), float(x), float(y)};
      for (int d = 0; d < 5; ++d) centres[j][d] = c[d];
    }
  } else {
    if (params.init == KmeansInit::KmeansPlusPlus) {  // into the state first, as the kernel's seeding
      float colours[kMaxClusters][3];
      kmeansPlusPlusCpu(in, k, params.seed, colours, state.positions, scratch);
      for (int j = 0; j < k; ++j)
        for (int c = 0; c < 3; ++c) state.centres[j][c] = colours[j][c];
    }
    for (int j = 0; j < k; ++j) {
      for (int c = 0; c < 3; ++c) centres[j][c] = state.centres[j][c];
      centres[j][3] = state.positions[j][0];
      centres[j][4] = state.positions[j][1];
    }
  }

  float shift2 = INFINITY;
  int iterations = 0;
  while (iterations < params.maxIterations) {
    const Centres now(centres, k, s);
    Sums total = {};
#pragma omp parallel
    {
      Sums local = {};
#pragma omp for schedule(static)
      for (int y = 0; y < height; ++y) accumulateRow(in.row(y), y, width, now, local);
#pragma omp critical(vp_kmeans_spatial_cpu_sums)
      for (int j = 0; j < k; ++j)
        for (int f = 0; f < kFields; ++f) total[j][f] += local[j][f];
    }
    shift2 = 0.f;
    for (int j = 0; j < k; ++j) {
      const uint64_t count = total[j][5];
      if (count == 0) continue;  // an empty cluster keeps its centre (shift 0)
      float next[5];
      for (int d = 0; d < 5; ++d) next[d] = km::meanChannel(total[j][d], count);
      const float d2 = km::spatialShiftSquared(centres[j], next, s);
      shift2 = d2 > shift2 ? d2 : shift2;
      for (int d = 0; d < 5; ++d) centres[j][d] = next[d];
    }
    ++iterations;
    if (shift2 < params.epsilon) break;
  }

  uchar4 colours[kMaxClusters];
  for (int j = 0; j < k; ++j) colours[j] = km::centreColour(centres[j]);
  const Centres last(centres, k, s);
  uint64_t cost = 0;
#pragma omp parallel for schedule(static) reduction(+ : cost)
  for (int y = 0; y < height; ++y)
    cost += finalRow(in.row(y), y, out.row(y), labels ? labels + size_t(y) * width : nullptr, width, last,
                     colours);

  for (int j = 0; j < k; ++j) {
    for (int c = 0; c < 3; ++c) state.centres[j][c] = centres[j][c];
    state.centres[j][3] = 0.f;
    state.positions[j][0] = centres[j][3];
    state.positions[j][1] = centres[j][4];
  }
  state.k = k;
  state.iterations = iterations;
  state.cost = cost;
  state.shift2 = shift2;
}

}  // namespace detail
}  // namespace vp
