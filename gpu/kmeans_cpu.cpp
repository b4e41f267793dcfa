// CPU twin of the K-means kernel (kmeans.h): the same arithmetic (kmeans_math.h), rows
// spread over OpenMP threads, per-thread integer sums merged after the loop, so the
// result is independent of the thread count and equal to the GPU's bit for bit.
//
// The per-row loops are compiled twice: once with target("fma") so std::fma is one
// instruction, once plain (glibc's fmaf, slow but identical), chosen at run time.
#include "gpu/kmeans.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {

namespace detail {
void checkKmeansArgs(ConstRgbaView in, RgbaView out, const KmeansParams& params) {
  if (in.empty() || in.data == nullptr) throw std::invalid_argument("kmeans: empty input image");
  if (in.pitch < size_t(in.width) * sizeof(uchar4)) throw std::invalid_argument("kmeans: input pitch < width * 4");
  if (out.data == nullptr || out.width != in.width || out.height != in.height)
    throw std::invalid_argument("kmeans: output must be a non-null image of the input's size");
  if (out.pitch < size_t(out.width) * sizeof(uchar4)) throw std::invalid_argument("kmeans: output pitch < width * 4");
  if (params.k < 1 || params.k > kMaxClusters)
    throw std::invalid_argument("kmeans: k = " + std::to_string(params.k) + " outside 1.." +
                                std::to_string(kMaxClusters));
  if (params.maxIterations < 0) throw std::invalid_argument("kmeans: maxIterations < 0");
}
}  // namespace detail

namespace {

using Sums = uint64_t[kMaxClusters][4];  // per cluster: r, g, b sums and pixel count

// Index of the centre with the lowest score; ties to the lowest index.
__attribute__((always_inline)) inline int nearest(float pr, float pg, float pb, const float4* coeff, int k) {
  float best = INFINITY;
  int bi = 0;
  for (int j = 0; j < k; ++j) {
    float s = km::score(pr, pg, pb, coeff[j]);
    if (s < best) {
      best = s;
      bi = j;
    }
  }
  return bi;
}

__attribute__((always_inline)) inline void accumulateRowBody(const uchar4* row, int width, const float4* coeff,
                                                             int k, Sums& sums) {
  for (int x = 0; x < width; ++x) {
    uchar4 p = row[x];
    int j = nearest(float(p.x), float(p.y), float(p.z), coeff, k);
    sums[j][0] += p.x;
    sums[j][1] += p.y;
    sums[j][2] += p.z;
    sums[j][3] += 1;
  }
}

// Final assignment of one row; returns the row's cost. in and out may alias.
__attribute__((always_inline)) inline uint64_t finalRowBody(const uchar4* in, uchar4* out, uint8_t* labels,
                                                            int width, const float4* coeff,
                                                            const uchar4* colours, int k) {
  uint64_t cost = 0;
  for (int x = 0; x < width; ++x) {
    uchar4 p = in[x];
    int j = nearest(float(p.x), float(p.y), float(p.z), coeff, k);
    if (labels) labels[x] = uint8_t(j);
    out[x] = make_uchar4(colours[j].x, colours[j].y, colours[j].z, p.w);
    cost += km::pixelDistance2(p, out[x]);
  }
  return cost;
}

__attribute__((target("fma"))) void accumulateRowFma(const uchar4* row, int width, const float4* coeff, int k,
                                                     Sums& sums) {
  accumulateRowBody(row, width, coeff, k, sums);
}
void accumulateRowPlain(const uchar4* row, int width, const float4* coeff, int k, Sums& sums) {
  accumulateRowBody(row, width, coeff, k, sums);
}
__attribute__((target("fma"))) uint64_t finalRowFma(const uchar4* in, uchar4* out, uint8_t* labels, int width,
                                                    const float4* coeff, const uchar4* colours, int k) {
  return finalRowBody(in, out, labels, width, coeff, colours, k);
}
uint64_t finalRowPlain(const uchar4* in, uchar4* out, uint8_t* labels, int width, const float4* coeff,
                       const uchar4* colours, int k) {
  return finalRowBody(in, out, labels, width, coeff, colours, k);
}

uchar4 pixelAt(ConstRgbaView in, uint64_t index) {
  return in.at(int(index % uint64_t(in.width)), int(index / uint64_t(in.width)));
}

// k-means++ on the deterministic sample (see kmeans.h); writes k centres.
void kmeansPlusPlus(ConstRgbaView in, int k, uint64_t seed, float (*centres)[3]) {
  const uint64_t n = in.pixels();
  const uint64_t m = std::min<uint64_t>(n, kKmeansPlusPlusSamples);
  std::vector<uchar4> sample(m);
  for (uint64_t i = 0; i < m; ++i) sample[i] = pixelAt(in, km::spreadIndex(i, n, m));
  std::vector<uint32_t> d2(m, UINT32_MAX);
  km::SplitMix64 rng(seed);
  uchar4 c = sample[rng.next() % m];
  for (int j = 0;; ++j) {
    centres[j][0] = float(c.x);
    centres[j][1] = float(c.y);
    centres[j][2] = float(c.z);
    if (j + 1 == k) break;
    uint64_t total = 0;
    for (uint64_t i = 0; i < m; ++i) {
      d2[i] = std::min(d2[i], km::pixelDistance2(sample[i], c));
      total += d2[i];
    }
    if (total == 0) {
      c = sample[rng.next() % m];
      continue;
    }
    const uint64_t u = rng.next() % total;
    uint64_t prefix = 0, pick = 0;
    for (uint64_t i = 0; i < m; ++i) {
      prefix += d2[i];
      if (prefix > u) {
        pick = i;
        break;
      }
    }
    c = sample[pick];
  }
}

}  // namespace

void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state, const KmeansParams& params) {
  detail::checkKmeansArgs(in, out, params);
  const int k = params.k, width = in.width, height = in.height;
  const bool fma = __builtin_cpu_supports("fma");
  auto accumulateRow = fma ? accumulateRowFma : accumulateRowPlain;
  auto finalRow = fma ? finalRowFma : finalRowPlain;

  float centres[kMaxClusters][3];
  if (params.init == KmeansInit::Uniform) {
    for (int j = 0; j < k; ++j) {
      uchar4 p = pixelAt(in, km::spreadIndex(uint64_t(j), in.pixels(), uint64_t(k)));
      centres[j][0] = float(p.x);
      centres[j][1] = float(p.y);
      centres[j][2] = float(p.z);
    }
  } else if (params.init == KmeansInit::KmeansPlusPlus) {
    kmeansPlusPlus(in, k, params.seed, centres);
  } else {
    for (int j = 0; j < k; ++j)
      for (int c = 0; c < 3; ++c) centres[j][c] = state.centres[j][c];
  }

  float4 coeff[kMaxClusters];
  float shift2 = INFINITY;
  int iterations = 0;
  while (iterations < params.maxIterations) {
    for (int j = 0; j < k; ++j) coeff[j] = km::centreCoeffs(centres[j][0], centres[j][1], centres[j][2]);
    Sums total = {};
#pragma omp parallel
    {
      Sums local = {};
#pragma omp for schedule(static)
      for (int y = 0; y < height; ++y) accumulateRow(in.row(y), width, coeff, k, local);
#pragma omp critical(vp_kmeans_cpu_sums)
      for (int j = 0; j < k; ++j)
        for (int f = 0; f < 4; ++f) total[j][f] += local[j][f];
    }
    shift2 = 0.f;
    for (int j = 0; j < k; ++j) {
      const uint64_t count = total[j][3];
      if (count == 0) continue;  // empty cluster keeps its centre (shift 0)
      float nr = km::meanChannel(total[j][0], count), ng = km::meanChannel(total[j][1], count),
            nb = km::meanChannel(total[j][2], count);
      float d2 = km::shiftSquared(centres[j][0], centres[j][1], centres[j][2], nr, ng, nb);
      shift2 = d2 > shift2 ? d2 : shift2;
      centres[j][0] = nr;
      centres[j][1] = ng;
      centres[j][2] = nb;
    }
    ++iterations;
    if (shift2 < params.epsilon) break;
  }

  uchar4 colours[kMaxClusters];
  for (int j = 0; j < k; ++j) {
    coeff[j] = km::centreCoeffs(centres[j][0], centres[j][1], centres[j][2]);
    colours[j] = make_uchar4(km::centreByte(centres[j][0]), km::centreByte(centres[j][1]),
                             km::centreByte(centres[j][2]), 0);
  }
  uint64_t cost = 0;
#pragma omp parallel for schedule(static) reduction(+ : cost)
  for (int y = 0; y < height; ++y)
    cost += finalRow(in.row(y), out.row(y), labels ? labels + size_t(y) * width : nullptr, width, coeff, colours,
                     k);

  for (int j = 0; j < k; ++j) {
    for (int c = 0; c < 3; ++c) state.centres[j][c] = centres[j][c];
    state.centres[j][3] = 0.f;
  }
  state.k = k;
  state.iterations = iterations;
  state.cost = cost;
  state.shift2 = shift2;
}

}  // namespace vp
