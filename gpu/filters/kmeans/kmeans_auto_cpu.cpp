// CPU twins of automatic K (kmeans_auto.h, kmeans_auto.cu): the same sample, seeds,
// integer sums and per-sample arithmetic (kmeans_auto_math.h), so the same scores bit for
// bit; and the host-side choice of K.
#include "gpu/filters/kmeans/kmeans_auto.h"
#include "gpu/filters/kmeans/kmeans_auto_math.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp {
namespace {

std::vector<uchar4> sampleOf(ConstRgbaView in) {
  const uint64_t n = in.pixels(), m = silhouetteSamples(n);
  std::vector<uchar4> s(m);
  for (uint64_t i = 0; i < m; ++i) {
    const uint64_t at = km::spreadIndex(i, n, m);
    s[i] = in.at(int(at % uint64_t(in.width)), int(at / uint64_t(in.width)));
  }
  return s;
}

void setCoeffs(const float (*centre)[3], int k, float4* coeff) {
  for (int j = 0; j < k; ++j) coeff[j] = km::centreCoeffs(centre[j][0], centre[j][1], centre[j][2]);
}

__attribute__((always_inline)) inline int64_t silhouetteBody(const std::vector<uchar4>& sample,
                                                             const float (*centre)[3], int k) {
  float4 coeff[kMaxClusters];
  setCoeffs(centre, k, coeff);
  int64_t sum = 0;
  for (const uchar4& p : sample) {
    sum += km::silhouetteTerm(p, coeff, centre, k);
  }
  return sum;
}

// kAutoIterations Lloyd iterations of the sample from `centre` (updated in place), then its score.
__attribute__((always_inline)) inline int64_t searchBody(const std::vector<uchar4>& sample,
                                                         float (*centre)[3], int k) {
  for (int it = 0; it < kAutoIterations; ++it) {
    float4 coeff[kMaxClusters];
    setCoeffs(centre, k, coeff);
    uint64_t sums[kMaxClusters][4] = {};
    for (const uchar4& p : sample) {
      uint64_t* s = sums[km::nearestByScore(p, coeff, k)];
      s[0] += p.x, s[1] += p.y, s[2] += p.z, s[3] += 1;
    }
    for (int j = 0; j < k; ++j)
      if (sums[j][3] != 0)
        for (int c = 0; c < 3; ++c) centre[j][c] = km::meanChannel(sums[j][c], sums[j][3]);
  }
  return silhouetteBody(sample, centre, k);
}

// Compiled twice, as kmeans_cpu.cpp's loops: hardware FMA, or glibc's fmaf (the same results).
__attribute__((target("fma"))) int64_t silhouetteFma(const std::vector<uchar4>& sample,
                                                     const float (*centre)[3], int k) {
  return silhouetteBody(sample, centre, k);
}
int64_t silhouettePlain(const std::vector<uchar4>& sample, const float (*centre)[3], int k) {
  return silhouetteBody(sample, centre, k);
}
__attribute__((target("fma"))) int64_t searchFma(const std::vector<uchar4>& sample, float (*centre)[3],
                                                 int k) {
  return searchBody(sample, centre, k);
}
int64_t searchPlain(const std::vector<uchar4>& sample, float (*centre)[3], int k) {
  return searchBody(sample, centre, k);
}

int64_t silhouetteSum(const std::vector<uchar4>& sample, const float (*centre)[3], int k) {
  return __builtin_cpu_supports("fma") ? silhouetteFma(sample, centre, k)
                                       : silhouettePlain(sample, centre, k);
}

}  // namespace

void checkAutoKArgs(ConstRgbaView in, int kmin, int kmax) {
  if (in.empty() || in.data == nullptr) throw std::invalid_argument("automatic K: empty frame");
  if (kmin < 2 || kmax > kMaxClusters || kmin > kmax)
    throw std::invalid_argument("automatic K: the range " + std::to_string(kmin) + ".." +
                                std::to_string(kmax) + " is not within 2.." + std::to_string(kMaxClusters));
}

uint32_t silhouetteSamples(uint64_t pixels) {
  return uint32_t(std::min<uint64_t>(pixels, kKmeansPlusPlusSamples));
}

double silhouetteScore(int64_t sum, uint64_t pixels) {
  const uint32_t m = silhouetteSamples(pixels);
  return m == 0 ? 0.0 : double(sum) / kSilhouetteUnit / double(m);
}

int bestK(const AutoKScores& scores, int kmin, int kmax) {
  int best = kmin;
  for (int k = kmin + 1; k <= kmax; ++k)
    if (scores.sum(k) > scores.sum(best)) best = k;
  return best;
}

void autoKCpu(ConstRgbaView in, int kmin, int kmax, uint64_t seed, AutoKScores& scores,
              KmeansCpuScratch& scratch) {
  checkAutoKArgs(in, kmin, kmax);
  const std::vector<uchar4> sample = sampleOf(in);
  // Seeds first (the scratch holds one k-means++ sample at a time), then every K and
  // restart on its own thread.
  const int runs = (kmax - kmin + 1) * kAutoRestarts;
  std::vector<std::array<float[3], kMaxClusters>> centres(static_cast<size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    float positions[kMaxClusters][2];
    detail::kmeansPlusPlusCpu(in, kmin + i / kAutoRestarts, seed + uint64_t(i % kAutoRestarts),
                              centres[size_t(i)].data(), positions, scratch);
  }
  const auto search = __builtin_cpu_supports("fma") ? searchFma : searchPlain;
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < runs; ++i)
    scores.restart[kmin + i / kAutoRestarts][i % kAutoRestarts] =
        search(sample, centres[size_t(i)].data(), kmin + i / kAutoRestarts);
}

int64_t silhouetteCpu(ConstRgbaView in, const KmeansState& state, int k) {
  if (in.empty() || k < 1 || k > kMaxClusters)
    throw std::invalid_argument("silhouette: empty frame or bad k");
  float centre[kMaxClusters][3];
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < 3; ++c) centre[j][c] = state.centres[j][c];
  return silhouetteSum(sampleOf(in), centre, k);
}

}  // namespace vp
