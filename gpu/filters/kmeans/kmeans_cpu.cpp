// CPU twin of the K-means kernel (kmeans.h): the same arithmetic (kmeans_math.h), rows
// spread over OpenMP threads, per-thread integer sums merged after the loop, so the
// result is independent of the thread count and equal to the GPU's bit for bit.
//
// The per-row loops are compiled twice: once with target("fma") so std::fma is one
// instruction, once plain (glibc's fmaf, slow but identical), chosen at run time.
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/kmeans/kmeans_spatial_math.h"

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
  if (!(params.spatial >= 0.f && params.spatial <= kMaxSpatialWeight))  // NaN too
    throw std::invalid_argument("kmeans: spatial weight " + std::to_string(params.spatial) + " outside 0.." +
                                std::to_string(int(kMaxSpatialWeight)));
}
}  // namespace detail

struct KmeansCpuScratchAccess {
  static std::vector<detail::KmeansCpuTile>& tiles(KmeansCpuScratch& s) { return s.tiles_; }
  static std::vector<uchar4>& sample(KmeansCpuScratch& s) { return s.sample_; }
  static std::vector<uint32_t>& d2(KmeansCpuScratch& s) { return s.d2_; }
};

namespace {

using detail::kCpuTilePixels;
using detail::KmeansCpuTile;
using Sums = uint64_t[kMaxClusters][4];  // per cluster: r, g, b sums and pixel count

int tilesPerRow(int width) { return (width + kCpuTilePixels - 1) / kCpuTilePixels; }

// One pass's centres: score constants and, when every centre lies in [0, 255] (the premise
// of the candidate test), the pair constants coeff_a - coeff_b.
struct Centres {
  float4 coeff[kMaxClusters];
  float4 pair[kMaxClusters][kMaxClusters];
  int k = 0;
  bool prune = false;
  uint32_t all = 0;

  Centres(const float (*centres)[3], int count) : k(count), all(count == 32 ? ~0u : (1u << count) - 1u) {
    prune = true;
    for (int j = 0; j < k; ++j) {
      coeff[j] = km::centreCoeffs(centres[j][0], centres[j][1], centres[j][2]);
      for (int f = 0; f < 3; ++f) prune &= centres[j][f] >= 0.f && centres[j][f] <= 255.f;  // false for NaN
    }
    if (prune)
      for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b) pair[a][b] = km::pairCoeffs(coeff[a], coeff[b]);
  }
};

// The tile's candidate centres (bit j: centre j; never empty), as the kernel's tileCandidates.
__attribute__((always_inline)) inline uint32_t tileCandidates(const KmeansCpuTile& t, const Centres& c) {
  if (!c.prune) return c.all;
  const float4 lo = make_float4(t.lo[0], t.lo[1], t.lo[2], 0.f), hi = make_float4(t.hi[0], t.hi[1], t.hi[2], 0.f);
  uint32_t cand = 0;
  for (int a = 0; a < c.k; ++a) {
    bool dominated = false;
    for (int b = 0; b < c.k && !dominated; ++b)
      dominated = b != a && km::pairMinOverBox(c.pair[a][b], lo, hi) > km::kCandidateMargin;
    if (!dominated) cand |= 1u << a;
  }
  return cand != 0 ? cand : c.all;
}

// Index of the candidate with the lowest score; ties to the lowest index.
__attribute__((always_inline)) inline int nearest(const uchar4& p, const float4* coeff, uint32_t cand) {
  const float pr = float(p.x), pg = float(p.y), pb = float(p.z);
  float best = INFINITY;
  int bi = __builtin_ctz(cand);
  for (; cand != 0; cand &= cand - 1) {
    const int j = __builtin_ctz(cand);
    const float s = km::score(pr, pg, pb, coeff[j]);
    if (s < best) {
      best = s;
      bi = j;
    }
  }
  return bi;
}

// Colour box and channel sums of each tile of one row (once per call: the pixels do not change).
void describeRow(const uchar4* row, int width, KmeansCpuTile* tiles) {
  for (int x0 = 0, t = 0; x0 < width; x0 += kCpuTilePixels, ++t) {
    KmeansCpuTile d{{255, 255, 255}, {0, 0, 0}, 0, {0, 0, 0}};
    const int x1 = std::min(width, x0 + kCpuTilePixels);
    for (int x = x0; x < x1; ++x) {
      const uint8_t v[3] = {row[x].x, row[x].y, row[x].z};
      for (int f = 0; f < 3; ++f) {
        d.lo[f] = std::min(d.lo[f], v[f]);
        d.hi[f] = std::max(d.hi[f], v[f]);
        d.sum[f] += v[f];
      }
    }
    d.count = uint16_t(x1 - x0);
    tiles[t] = d;
  }
}

__attribute__((always_inline)) inline void accumulateRowBody(const uchar4* row, const KmeansCpuTile* tiles, int width,
                                                             const Centres& c, Sums& sums) {
  for (int x0 = 0, t = 0; x0 < width; x0 += kCpuTilePixels, ++t) {
    const uint32_t cand = tileCandidates(tiles[t], c);
    if ((cand & (cand - 1)) == 0) {  // one candidate: the whole tile is its
      const int j = __builtin_ctz(cand);
      for (int f = 0; f < 3; ++f) sums[j][f] += tiles[t].sum[f];
      sums[j][3] += tiles[t].count;
      continue;
    }
    const int x1 = std::min(width, x0 + kCpuTilePixels);
    for (int x = x0; x < x1; ++x) {
      const uchar4 p = row[x];
      const int j = nearest(p, c.coeff, cand);
      sums[j][0] += p.x;
      sums[j][1] += p.y;
      sums[j][2] += p.z;
      sums[j][3] += 1;
    }
  }
}

// Final assignment of one row; returns the row's cost. in and out may alias.
__attribute__((always_inline)) inline uint64_t finalRowBody(const uchar4* in, const KmeansCpuTile* tiles, uchar4* out,
                                                            uint8_t* labels, int width, const Centres& c,
                                                            const uchar4* colours) {
  uint64_t cost = 0;
  for (int x0 = 0, t = 0; x0 < width; x0 += kCpuTilePixels, ++t) {
    const uint32_t cand = tileCandidates(tiles[t], c);
    const bool single = (cand & (cand - 1)) == 0;
    const int x1 = std::min(width, x0 + kCpuTilePixels);
    for (int x = x0; x < x1; ++x) {
      const uchar4 p = in[x];
      const int j = single ? __builtin_ctz(cand) : nearest(p, c.coeff, cand);
      if (labels) labels[x] = uint8_t(j);
      out[x] = make_uchar4(colours[j].x, colours[j].y, colours[j].z, p.w);
      cost += km::pixelDistance2(p, out[x]);
    }
  }
  return cost;
}

// Compiled twice: with hardware FMA, and plain (glibc's fmaf: slow, the same results).
__attribute__((target("fma"))) void accumulateRowFma(const uchar4* row, const KmeansCpuTile* tiles, int width,
                                                     const Centres& c, Sums& sums) {
  accumulateRowBody(row, tiles, width, c, sums);
}
void accumulateRowPlain(const uchar4* row, const KmeansCpuTile* tiles, int width, const Centres& c, Sums& sums) {
  accumulateRowBody(row, tiles, width, c, sums);
}
__attribute__((target("fma"))) uint64_t finalRowFma(const uchar4* in, const KmeansCpuTile* tiles, uchar4* out,
                                                    uint8_t* labels, int width, const Centres& c,
                                                    const uchar4* colours) {
  return finalRowBody(in, tiles, out, labels, width, c, colours);
}
uint64_t finalRowPlain(const uchar4* in, const KmeansCpuTile* tiles, uchar4* out, uint8_t* labels, int width,
                       const Centres& c, const uchar4* colours) {
  return finalRowBody(in, tiles, out, labels, width, c, colours);
}

uchar4 pixelAt(ConstRgbaView in, uint64_t index) {
  return in.at(int(index % uint64_t(in.width)), int(index / uint64_t(in.width)));
}

}  // namespace

namespace detail {
// k-means++ on the deterministic sample (see kmeans.h); writes k centres and their positions.
void kmeansPlusPlusCpu(ConstRgbaView in, int k, uint64_t seed, float (*centres)[3], float (*positions)[2],
                       KmeansCpuScratch& scratch) {
  uchar4* const sample = KmeansCpuScratchAccess::sample(scratch).data();
  uint32_t* const d2 = KmeansCpuScratchAccess::d2(scratch).data();
  const uint64_t n = in.pixels();
  const uint64_t m = std::min<uint64_t>(n, kKmeansPlusPlusSamples);
  for (uint64_t i = 0; i < m; ++i) sample[i] = pixelAt(in, km::spreadIndex(i, n, m)), d2[i] = UINT32_MAX;
  km::SplitMix64 rng(seed);
  uint64_t pickIndex = rng.next() % m;
  for (int j = 0;; ++j) {
    const uchar4 c = sample[pickIndex];
    const uint64_t at = km::spreadIndex(pickIndex, n, m);
    centres[j][0] = float(c.x);
    centres[j][1] = float(c.y);
    centres[j][2] = float(c.z);
    positions[j][0] = float(at % uint64_t(in.width));
    positions[j][1] = float(at / uint64_t(in.width));
    if (j + 1 == k) break;
    uint64_t total = 0;
    for (uint64_t i = 0; i < m; ++i) {
      d2[i] = std::min(d2[i], km::pixelDistance2(sample[i], c));
      total += d2[i];
    }
    if (total == 0) {
      pickIndex = rng.next() % m;
      continue;
    }
    const uint64_t u = rng.next() % total;
    uint64_t prefix = 0;
    pickIndex = 0;
    for (uint64_t i = 0; i < m; ++i) {
      prefix += d2[i];
      if (prefix > u) {
        pickIndex = i;
        break;
      }
    }
  }
}
}  // namespace detail

KmeansCpuScratch::KmeansCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1)
    throw std::invalid_argument("KmeansCpuScratch: size " + std::to_string(maxWidth) + "x" + std::to_string(maxHeight));
  tiles_.resize(size_t(tilesPerRow(maxWidth)) * size_t(maxHeight));
  sample_.resize(kKmeansPlusPlusSamples);
  d2_.resize(kKmeansPlusPlusSamples);
}

void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state, const KmeansParams& params) {
  detail::checkKmeansArgs(in, out, params);  // before the scratch: an empty frame gets kmeans' message
  KmeansCpuScratch scratch(in.width, in.height);
  kmeansCpu(in, out, labels, state, params, scratch);
}

void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state, const KmeansParams& params,
               KmeansCpuScratch& scratch) {
  detail::checkKmeansArgs(in, out, params);
  if (in.width > scratch.maxWidth() || in.height > scratch.maxHeight())
    throw std::invalid_argument("kmeans: frame larger than the CPU scratch");
  if (params.spatial > 0.f) return detail::kmeansSpatialCpu(in, out, labels, state, params, scratch);
  const int k = params.k, width = in.width, height = in.height, perRow = tilesPerRow(width);
  const bool fma = __builtin_cpu_supports("fma");
  auto accumulateRow = fma ? accumulateRowFma : accumulateRowPlain;
  auto finalRow = fma ? finalRowFma : finalRowPlain;
  KmeansCpuTile* const tiles = KmeansCpuScratchAccess::tiles(scratch).data();
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y) describeRow(in.row(y), width, tiles + size_t(y) * perRow);
  float centres[kMaxClusters][3];
  if (params.init == KmeansInit::Uniform) {
    for (int j = 0; j < k; ++j) {
      uchar4 p = pixelAt(in, km::spreadIndex(uint64_t(j), in.pixels(), uint64_t(k)));
      centres[j][0] = float(p.x);
      centres[j][1] = float(p.y);
      centres[j][2] = float(p.z);
    }
  } else if (params.init == KmeansInit::KmeansPlusPlus) {
    detail::kmeansPlusPlusCpu(in, k, params.seed, centres, state.positions, scratch);  // positions: as the kernel
  } else {
    for (int j = 0; j < k; ++j)
      for (int c = 0; c < 3; ++c) centres[j][c] = state.centres[j][c];
  }

  float shift2 = INFINITY;
  int iterations = 0;
  while (iterations < params.maxIterations) {
    const Centres now(centres, k);
    Sums total = {};
#pragma omp parallel
    {
      Sums local = {};
#pragma omp for schedule(static)
      for (int y = 0; y < height; ++y) accumulateRow(in.row(y), tiles + size_t(y) * perRow, width, now, local);
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
  for (int j = 0; j < k; ++j) colours[j] = km::centreColour(centres[j]);
  const Centres last(centres, k);
  uint64_t cost = 0;
#pragma omp parallel for schedule(static) reduction(+ : cost)
  for (int y = 0; y < height; ++y)
    cost += finalRow(in.row(y), tiles + size_t(y) * perRow, out.row(y), labels ? labels + size_t(y) * width : nullptr,
                     width, last, colours);

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
