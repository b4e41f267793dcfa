// Build and run from the repository root (CPU only, ~40 s on 2 cores):
//   g++ -O2 -std=c++17 -I. -Itests -I/usr/local/cuda/include notes/kmeans-tile-skip.cpp \
//       tests/support/images.cpp -L/usr/local/cuda/lib64 -lcudart -o /tmp/tile && /tmp/tile
// Results and what they mean: notes/kmeans.md, "Warp-uniform skipping".
// CPU experiment: Hamerly bounds per pixel, and how often a whole warp tile (128
// consecutive raster pixels) could skip. Cold (uniform init, 20 it, eps 0) and warm
// (previous frame's centres, eps 0.01) at 1080p on makeNatural frames.
#include "support/images.h"
#include "gpu/kmeans_math.h"
#include <cmath>
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace vp;
struct Stats { double px = 0, tile = 0; size_t vis = 0, tiles = 0; int it = 0; };
static Stats run(const HostImage& img, std::vector<double>& c, int k, int maxIt, double eps, int tileSize, bool print) {
  const int n = img.width() * img.height();
  std::vector<double> u(n, INFINITY), l(n, 0), d(n);  // upper (assigned), lower (second)
  std::vector<int> lab(n, 0);
  Stats s;
  size_t pxSkip = 0, tileSkip = 0;
  std::vector<double> mv(k, 0);
  for (int it = 0; it < maxIt; ++it) {
    std::vector<double> sum(4 * k, 0);
    double maxMv = 0; int argMax = 0; double second = 0;
    for (int j = 0; j < k; ++j) { if (mv[j] > maxMv) { second = maxMv; maxMv = mv[j]; argMax = j; } else second = std::max(second, mv[j]); }
    size_t itSkipPx = 0, itSkipTile = 0, itTiles = 0;
    for (int t0 = 0; t0 < n; t0 += tileSize) {
      bool all = true;
      for (int i = t0; i < std::min(n, t0 + tileSize); ++i) {
        // bounds update from last iteration's moves
        u[i] += mv[lab[i]];
        l[i] -= (lab[i] == argMax ? second : maxMv);
        const bool safe = it > 0 && u[i] < l[i];
        if (safe) ++itSkipPx; else all = false;
        const uchar4 p = img.data()[i];
        double b1 = INFINITY, b2 = INFINITY; int bi = 0;
        for (int j = 0; j < k; ++j) {
          double dr = p.x - c[3*j], dg = p.y - c[3*j+1], db = p.z - c[3*j+2];
          double dd = std::sqrt(dr*dr + dg*dg + db*db);
          if (dd < b1) { b2 = b1; b1 = dd; bi = j; } else if (dd < b2) b2 = dd;
        }
        if (safe && bi != lab[i]) { std::printf("BUG: unsafe skip\n"); }
        if (!safe) { u[i] = b1; l[i] = b2; lab[i] = bi; }
        const int j = lab[i];
        sum[4*j] += p.x; sum[4*j+1] += p.y; sum[4*j+2] += p.z; sum[4*j+3] += 1;
      }
      ++itTiles;
      if (all && it > 0) ++itSkipTile;
    }
    double shift2 = 0;
    for (int j = 0; j < k; ++j) {
      if (sum[4*j+3] == 0) { mv[j] = 0; continue; }
      double nc[3]; for (int f = 0; f < 3; ++f) nc[f] = sum[4*j+f] / sum[4*j+3];
      double d2 = 0; for (int f = 0; f < 3; ++f) d2 += (nc[f]-c[3*j+f])*(nc[f]-c[3*j+f]);
      mv[j] = std::sqrt(d2) * 1.0000001 + 1e-9; shift2 = std::max(shift2, d2);
      for (int f = 0; f < 3; ++f) c[3*j+f] = nc[f];
    }
    if (print) std::printf("  it %2d: px skip %5.1f%%  tile skip %5.1f%%  shift2 %.4f\n", it, 100.0*itSkipPx/n, 100.0*itSkipTile/itTiles, shift2);
    pxSkip += itSkipPx; tileSkip += itSkipTile; s.vis += n; s.tiles += itTiles; s.it = it + 1;
    if (shift2 < eps) break;
  }
  s.px = double(pxSkip) / s.vis; s.tile = double(tileSkip) / s.tiles;
  return s;
}
int main() {
  const int w = 1920, h = 1080, k = 8;
  for (int tile : {128, 32}) {
    HostImage img = test::makeNatural(w, h, 7);
    std::vector<double> c(3 * k);
    for (int j = 0; j < k; ++j) { uint64_t i = uint64_t(j) * (w*h) / k; uchar4 p = img.data()[i]; c[3*j]=p.x; c[3*j+1]=p.y; c[3*j+2]=p.z; }
    std::printf("cold, tile %d px:\n", tile);
    Stats s = run(img, c, k, 20, 0, tile, tile == 128);
    std::printf("cold total: px skip %.1f%%, tile skip %.1f%%\n", 100*s.px, 100*s.tile);
    // warm: converge frame 0, then frames 1..8 with phase 0.05 f, eps 0.01
    run(img, c, k, 200, 1e-6, tile, false);
    double px = 0, tl = 0, its = 0;
    for (int f = 1; f <= 8; ++f) {
      HostImage fr = test::makeNatural(w, h, 7, 0.05f * f);
      Stats ws = run(fr, c, k, 20, 0.01, tile, false);
      px += ws.px * ws.it; tl += ws.tile * ws.it; its += ws.it;
    }
    std::printf("warm (8 frames, %.1f it/frame): px skip %.1f%%, tile skip %.1f%%\n", its / 8, 100*px/its, 100*tl/its);
  }
}
