// Automatic K (`kmeans=k=auto:kmin=2:kmax=12`): K chosen by the silhouette coefficient,
// computed on the GPU over the K-means sample (the M = min(N, 16384) pixels at raster
// index floor(i N / M), the k-means++ sample of kmeans.h). CUDA functions and CPU twins;
// equal results bit for bit.
//
// Score of a labelled sample against centres c_1..c_k: the centroid (simplified)
// silhouette. Each sample pixel p goes to its nearest centre A by K-means' score
// (kmeans_math.h); a = sqrt(d2(p, c_A)), b = sqrt(min over j != A of d2(p, c_j)), with
// d2 the float squared r, g, b distance ((dr*dr + dg*dg) + db*db, d = p - c);
// s = (b - a) / max(a, b), or 0 when both are 0. The score is the mean of s over the
// sample, summed as integers round(s * 2^24) so the order of the additions does not
// matter. The centroid form costs O(M k) instead of the full silhouette's O(M^2): at M =
// 16384 and k up to 12 that is 200 k distances instead of 134 M, and on flat regions
// under noise it ranks K the same way (tests/support/segmentation_reference.h has both).
//
// Choosing K: for every K in kmin..kmax, K-means on the sample alone, kAutoRestarts
// times: seeded by k-means++ (kmeans.h) with seed + r for restart r, run for
// kAutoIterations Lloyd iterations (integer sums, means as (float)((double)sum / count),
// an empty cluster keeps its centre), then scored as above. The score of K is its best
// restart's (one seeding can land two centres in one region and miss another: the
// restarts make that unlikely); K = the best score, ties to the lower K. On the GPU one
// block per K and restart, all in one launch (44 blocks for 2..12: one wave).
#pragma once

#include "gpu/filters/kmeans/kmeans.h"

#include <cstdint>

namespace vp {

constexpr int kAutoIterations = 10;             // Lloyd iterations of each candidate K on the sample
constexpr int kAutoRestarts = 4;                // k-means++ seedings of each candidate K
constexpr double kSilhouetteUnit = 16777216.0;  // 2^24: one score point in the integer sums
constexpr int kAutoKMin = 2, kAutoKMax = 12;    // the default range

// Integer silhouette sums by K (kmin..kmax used) and restart; the score of K is its best
// restart's sum / (2^24 M).
struct AutoKScores {
  int64_t restart[kMaxClusters + 1][kAutoRestarts] = {};
  int64_t sum(int k) const {
    int64_t best = restart[k][0];
    for (int r = 1; r < kAutoRestarts; ++r) best = restart[k][r] > best ? restart[k][r] : best;
    return best;
  }
};

// Throws std::invalid_argument unless 2 <= kmin <= kmax <= kMaxClusters and the image is valid.
void checkAutoKArgs(ConstRgbaView in, int kmin, int kmax);

// GPU: `scores` is device memory; stream-ordered.
void autoKGpu(ConstRgbaView in, int kmin, int kmax, uint64_t seed, AutoKScores* scores, cudaStream_t stream);
// GPU: the silhouette sum of the sample against the first k centres of `state` (device
// memory) into *sum (device); stream-ordered. k >= 1 (k = 1 scores 0).
void silhouetteGpu(ConstRgbaView in, const KmeansState* state, int k, int64_t* sum, cudaStream_t stream);

// CPU twins (host memory); the scratch is kmeansCpu's (its k-means++ sample).
void autoKCpu(ConstRgbaView in, int kmin, int kmax, uint64_t seed, AutoKScores& scores,
              KmeansCpuScratch& scratch);
int64_t silhouetteCpu(ConstRgbaView in, const KmeansState& state, int k);

// The sample's size M for a frame of `pixels`.
uint32_t silhouetteSamples(uint64_t pixels);
// The score of a sum over a frame of `pixels`: in -1..1.
double silhouetteScore(int64_t sum, uint64_t pixels);
// The K with the best score in kmin..kmax, ties to the lower K.
int bestK(const AutoKScores& scores, int kmin, int kmax);

}  // namespace vp
