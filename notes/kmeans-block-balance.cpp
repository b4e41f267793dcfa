// Build and run from the repository root (CPU only, ~1 min on 2 cores):
//   g++ -O2 -fopenmp -std=c++17 -I. -Itests -I/usr/local/cuda/include notes/kmeans-block-balance.cpp
//       tests/support/images.cpp -L/usr/local/cuda/lib64 -lcudart -o /tmp/balance && /tmp/balance
// Results and what they mean: notes/kmeans.md, "Block and warp balance (CPU model)".
//
// How even is the candidate pass's work between blocks and between the warps of a block?
// Lloyd's loop on the benchmark frame (1080p / 4K makeNatural, seed 7, k 8, uniform init,
// 20 iterations) with the kernel's float scores; per iteration and tile of 32 quads, the
// number of candidate centres (the kernel's pair test, in double: the counts can differ
// from the GPU's by a tile at the margin, which does not matter for a balance estimate).
// A tile's cost in a warp step is modelled from the per-quad instruction estimates of
// notes/kmeans.md: 1 candidate 60, 2 candidates 110, 3-4 140, more 180 (k 8 scores all).
// For contiguous and interleaved blocks of 768 threads, one block per SM (132), it prints
// per iteration, averaged over the 20: the slowest block's total against the mean (what
// an issue-bound block waits for), the slowest warp's total against its block's mean warp
// (what a latency-bound block waits for), the slowest warp of all against the mean warp, and
// the same if warps took tiles dynamically (each the block's next tile when free).
#include "gpu/kmeans_math.h"
#include "support/images.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace vp;

namespace {

constexpr int kSms = 132, kThreads = 768, kWarps = kThreads / 32, kK = 8;

double tileCost(int candidates) { return candidates == 1 ? 60 : candidates == 2 ? 110 : candidates <= 4 ? 140 : 180; }

// Candidate count of each tile (32 quads = raster quads 32t .. 32t + 31) for centres c.
std::vector<int> candidateCounts(const HostImage& img, const std::vector<float4>& co) {
  const int w = img.width(), h = img.height(), qpr = (w + 3) / 4;
  const int quads = qpr * h, tiles = (quads + 31) / 32;
  std::vector<int> count(tiles);
#pragma omp parallel for schedule(static)
  for (int t = 0; t < tiles; ++t) {
    int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
    for (int q = 32 * t; q < std::min(quads, 32 * t + 32); ++q)
      for (int x = 4 * (q % qpr); x < std::min(w, 4 * (q % qpr) + 4); ++x) {
        const uchar4 p = img.data()[size_t(q / qpr) * w + x];
        const int v[3] = {p.x, p.y, p.z};
        for (int f = 0; f < 3; ++f) lo[f] = std::min(lo[f], v[f]), hi[f] = std::max(hi[f], v[f]);
      }
    int n = 0;
    for (int a = 0; a < kK; ++a) {
      bool cand = true;
      for (int b = 0; b < kK && cand; ++b) {
        if (b == a) continue;
        const double m[3] = {double(co[a].x) - co[b].x, double(co[a].y) - co[b].y, double(co[a].z) - co[b].z};
        double d = double(co[a].w) - co[b].w;
        for (int f = 0; f < 3; ++f) d += m[f] >= 0 ? m[f] * lo[f] : m[f] * hi[f];
        cand = d <= 1.0;
      }
      n += cand;
    }
    count[t] = std::max(n, 1);
  }
  return count;
}

// One Lloyd update with the kernel's float scores (ties to the lowest index).
void lloyd(const HostImage& img, std::vector<float>& c, std::vector<float4>& co) {
  std::vector<uint64_t> sum(4 * kK, 0);
  const size_t n = size_t(img.width()) * img.height();
#pragma omp parallel
  {
    std::vector<uint64_t> local(4 * kK, 0);
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; ++i) {
      const uchar4 p = img.data()[i];
      float best = INFINITY;
      int bi = 0;
      for (int j = 0; j < kK; ++j) {
        const float s = km::score(p.x, p.y, p.z, co[j]);
        if (s < best) best = s, bi = j;
      }
      local[4 * bi] += p.x, local[4 * bi + 1] += p.y, local[4 * bi + 2] += p.z, local[4 * bi + 3] += 1;
    }
#pragma omp critical
    for (int i = 0; i < 4 * kK; ++i) sum[i] += local[i];
  }
  for (int j = 0; j < kK; ++j)
    if (sum[4 * j + 3] != 0) {
      for (int f = 0; f < 3; ++f) c[3 * j + f] = km::meanChannel(sum[4 * j + f], sum[4 * j + 3]);
      co[j] = km::centreCoeffs(c[3 * j], c[3 * j + 1], c[3 * j + 2]);
    }
}

struct Balance {
  double blockSumRatio = 0, warpMaxRatio = 0, slowestByWarp = 0, slowestDynamic = 0;
};

// Finish time of the slowest warp when each warp takes the block's next tile as soon as it
// is free (tiles in local order): greedy list scheduling.
double dynamicFinish(const std::vector<double>& tileCosts) {
  std::vector<double> free(kWarps, 0);
  for (double c : tileCosts) *std::min_element(free.begin(), free.end()) += c;
  return *std::max_element(free.begin(), free.end());
}

// Tile t of block b: contiguous blocks own quads [b Q / G, (b + 1) Q / G), local tiles of 32
// from there (their tiles straddle the global ones; modelled by the global tile holding the
// local tile's first quad); interleaved blocks own global tiles b, b + G, ...
Balance balance(const std::vector<int>& count, int quads, bool interleaved) {
  const int tiles = int(count.size());
  std::vector<double> blockSum(kSms, 0), blockMaxWarp(kSms, 0);
  double warpRatio = 0, maxDynamic = 0;
  for (int b = 0; b < kSms; ++b) {
    std::vector<double> warp(kWarps, 0), costs;
    if (interleaved) {
      for (int t = b; t < tiles; t += kSms) costs.push_back(tileCost(count[t]));
    } else {
      const int q0 = int(int64_t(b) * quads / kSms), q1 = int(int64_t(b + 1) * quads / kSms);
      for (int q = q0; q < q1; q += 32) costs.push_back(tileCost(count[q / 32]));
    }
    for (size_t local = 0; local < costs.size(); ++local) warp[local % kWarps] += costs[local];
    maxDynamic = std::max(maxDynamic, dynamicFinish(costs));
    double sum = 0, mx = 0;
    for (double v : warp) sum += v, mx = std::max(mx, v);
    blockSum[b] = sum, blockMaxWarp[b] = mx;
    warpRatio += mx / (sum / kWarps) / kSms;
  }
  double meanSum = 0, maxSum = 0, maxWarp = 0, meanWarp = 0;
  for (int b = 0; b < kSms; ++b) {
    meanSum += blockSum[b] / kSms, maxSum = std::max(maxSum, blockSum[b]);
    maxWarp = std::max(maxWarp, blockMaxWarp[b]), meanWarp += blockMaxWarp[b] / kSms;
  }
  return {maxSum / meanSum, warpRatio, maxWarp / (meanSum / kWarps), maxDynamic / (meanSum / kWarps)};
}

void runFrame(int w, int h) {
  const HostImage img = test::makeNatural(w, h, 7);
  const size_t n = size_t(w) * h;
  std::vector<float> c(3 * kK);
  std::vector<float4> co(kK);
  for (int j = 0; j < kK; ++j) {
    const uchar4 p = img.data()[km::spreadIndex(uint64_t(j), n, uint64_t(kK))];
    c[3 * j] = p.x, c[3 * j + 1] = p.y, c[3 * j + 2] = p.z;
    co[j] = km::centreCoeffs(p.x, p.y, p.z);
  }
  const int quads = (w + 3) / 4 * h;
  Balance contiguous, interleaved;
  double meanCand = 0;
  const int iterations = 20;
  for (int it = 0; it < iterations; ++it) {
    const std::vector<int> count = candidateCounts(img, co);
    double s = 0;
    for (int v : count) s += v;
    meanCand += s / double(count.size()) / iterations;
    const Balance a = balance(count, quads, false), b = balance(count, quads, true);
    contiguous.blockSumRatio += a.blockSumRatio / iterations, contiguous.warpMaxRatio += a.warpMaxRatio / iterations;
    contiguous.slowestByWarp += a.slowestByWarp / iterations;
    contiguous.slowestDynamic += a.slowestDynamic / iterations;
    interleaved.blockSumRatio += b.blockSumRatio / iterations, interleaved.warpMaxRatio += b.warpMaxRatio / iterations;
    interleaved.slowestByWarp += b.slowestByWarp / iterations;
    interleaved.slowestDynamic += b.slowestDynamic / iterations;
    lloyd(img, c, co);
  }
  std::printf("%dx%d k %d, %d blocks x %d threads, mean candidates %.2f\n", w, h, kK, kSms, kThreads, meanCand);
  std::printf("  %-12s %14s %18s %14s %14s\n", "", "block work", "warp in its block", "slowest warp", "dynamic");
  for (auto [name, r] : {std::pair{"contiguous", contiguous}, {"interleaved", interleaved}})
    std::printf("  %-12s %14.3f %18.3f %14.3f %14.3f\n", name, r.blockSumRatio, r.warpMaxRatio, r.slowestByWarp,
                r.slowestDynamic);
}

}  // namespace

int main() {
  runFrame(1920, 1080);
  runFrame(3840, 2160);
}
