// Build and run from the repository root (CPU only, ~8 min on 2 cores):
//   g++ -O2 -std=c++17 -I. -Itests -I/usr/local/cuda/include notes/kmeans-tile-candidates.cpp \
//       tests/support/images.cpp -L/usr/local/cuda/lib64 -lcudart -o /tmp/cand && /tmp/cand
// Results and what they mean: notes/kmeans.md, "Per-tile candidate centres".
// CPU experiment: per warp tile (consecutive raster pixels), which centres can still be
// the nearest of some pixel in the tile's colour bounding box? Centre c drops out when
// another centre c' scores lower by more than a margin at every point of the box (the
// score difference is affine in the pixel, so its minimum over the box sits at a
// corner). The margin (1.0) exceeds twice the float score's rounding error (kmeans_math.h:
// within 0.1), so a dropped centre never wins or ties in float: the argmin over the
// candidates equals the kernel's argmin, which the run checks pixel by pixel. Cold
// (uniform init, 20 iterations, no early stop: the #2 benchmark) and warm frames.
#include "support/images.h"
#include "gpu/kmeans_math.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
using namespace vp;
struct Result { double meanCand = 0; double hist[9] = {}; size_t tiles = 0; int it = 0; size_t mismatches = 0; };
static Result run(const HostImage& img, std::vector<float>& c, int k, int maxIt, float eps, int tileSize, bool print) {
  const int n = img.width() * img.height();
  Result res;
  for (int it = 0; it < maxIt; ++it) {
    std::vector<float4> co(k);
    for (int j = 0; j < k; ++j) co[j] = km::centreCoeffs(c[3 * j], c[3 * j + 1], c[3 * j + 2]);
    std::vector<uint64_t> sum(4 * k, 0);
    double candSum = 0;
    size_t tiles = 0;
    for (int t0 = 0; t0 < n; t0 += tileSize) {
      const int t1 = std::min(n, t0 + tileSize);
      int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0};
      for (int i = t0; i < t1; ++i) {
        const uchar4 p = img.data()[i];
        const int v[3] = {p.x, p.y, p.z};
        for (int f = 0; f < 3; ++f) lo[f] = std::min(lo[f], v[f]), hi[f] = std::max(hi[f], v[f]);
      }
      bool cand[32];
      int count = 0;
      for (int a = 0; a < k; ++a) {
        cand[a] = true;
        for (int b = 0; b < k && cand[a]; ++b) {
          if (b == a) continue;
          const double m[3] = {double(co[a].x) - co[b].x, double(co[a].y) - co[b].y, double(co[a].z) - co[b].z};
          double dmin = double(co[a].w) - co[b].w;
          for (int f = 0; f < 3; ++f) dmin += m[f] >= 0 ? m[f] * lo[f] : m[f] * hi[f];
          if (dmin > 1.0) cand[a] = false;  // b beats a everywhere in the box
        }
        count += cand[a];
      }
      candSum += count;
      res.hist[std::min(count, 8)] += 1;
      ++tiles;
      for (int i = t0; i < t1; ++i) {
        const uchar4 p = img.data()[i];
        const float pr = p.x, pg = p.y, pb = p.z;
        float best = INFINITY, bestC = INFINITY;
        int bi = 0, biC = -1;
        for (int j = 0; j < k; ++j) {
          const float s = km::score(pr, pg, pb, co[j]);
          if (s < best) best = s, bi = j;
          if (cand[j] && s < bestC) bestC = s, biC = j;
        }
        if (bi != biC) ++res.mismatches;
        sum[4 * bi] += p.x, sum[4 * bi + 1] += p.y, sum[4 * bi + 2] += p.z, sum[4 * bi + 3] += 1;
      }
    }
    float shift2 = 0;
    for (int j = 0; j < k; ++j) {
      if (!sum[4 * j + 3]) continue;
      float nc[3];
      for (int f = 0; f < 3; ++f) nc[f] = km::meanChannel(sum[4 * j + f], sum[4 * j + 3]);
      shift2 = std::max(shift2, km::shiftSquared(c[3 * j], c[3 * j + 1], c[3 * j + 2], nc[0], nc[1], nc[2]));
      for (int f = 0; f < 3; ++f) c[3 * j + f] = nc[f];
    }
    if (print) std::printf("  it %2d: mean candidates %.2f of %d\n", it, candSum / tiles, k);
    res.meanCand += candSum;
    res.tiles += tiles;
    res.it = it + 1;
    if (shift2 < eps) break;
  }
  res.meanCand /= res.tiles;
  return res;
}
static void report(const char* what, const Result& r, int k) {
  std::printf("%s: %d iterations, mean candidates %.2f of %d, tiles with 1/2/3/4/5-8 candidates:", what, r.it,
              r.meanCand, k);
  double rest = 0;
  for (int i = 5; i <= 8; ++i) rest += r.hist[i];
  for (int i = 1; i <= 4; ++i) std::printf(" %.1f%%", 100 * r.hist[i] / r.tiles);
  std::printf(" %.1f%%; argmin mismatches %zu\n", 100 * rest / r.tiles, r.mismatches);
}
int main() {
  const int w = 1920, h = 1080;
  for (int k : {8, 32})
    for (int tile : {128, 32}) {
      HostImage img = test::makeNatural(w, h, 7);
      std::vector<float> c(3 * k);
      for (int j = 0; j < k; ++j) {
        const uchar4 p = img.data()[km::spreadIndex(j, uint64_t(w) * h, k)];
        c[3 * j] = p.x, c[3 * j + 1] = p.y, c[3 * j + 2] = p.z;
      }
      std::printf("k %d, tile %d px:\n", k, tile);
      Result cold = run(img, c, k, 20, 0.f, tile, k == 8 && tile == 128);
      report("  cold", cold, k);
      run(img, c, k, 200, 1e-6f, tile, false);
      Result warm;
      double its = 0, cand = 0;
      for (int f = 1; f <= 8; ++f) {
        HostImage fr = test::makeNatural(w, h, 7, 0.05f * f);
        Result r = run(fr, c, k, 20, 0.01f, tile, false);
        cand += r.meanCand * r.tiles;
        warm.tiles += r.tiles;
        warm.mismatches += r.mismatches;
        for (int i = 0; i <= 8; ++i) warm.hist[i] += r.hist[i];
        its += r.it;
      }
      warm.meanCand = cand / warm.tiles;
      warm.it = int(its / 8 + 0.5);
      report("  warm (8 frames)", warm, k);
    }
}
