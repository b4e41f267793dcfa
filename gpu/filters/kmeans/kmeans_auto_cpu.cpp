// CPU twins of automatic K (kmeans_auto.h, kmeans_auto.cu): the same sample, seeds,
// integer sums and per-sample arithmetic (kmeans_auto_math.h), so the same scores bit for
// bit; and the host-side choice of K.
#include "gpu/filters/kmeans/kmeans_auto.h"
#include "gpu/filters/kmeans/kmeans_auto_math.h"

#include <algorithm>
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

int nearestOf(uchar4 p, const float4* coeff, int k) {
  const float pr = p.x, pg = p.y, pb = p.z;
  float best = INFINITY;
  int bi = 0;
  for (int j = 0; j < k; ++j) {
    const float s = km::score(pr, pg, pb, coeff[j]);
    if (s < best) best = s, bi = j;
  }
  return bi;
}

void setCoeffs(const float (*centre)[3], int k, float4* coeff) {
  for (int j = 0; j < k; ++j) coeff[j] = km::centreCoeffs(centre[j][0], centre[j][1], centre[j][2]);
}

int64_t silhouetteSum(const std::vector<uchar4>& sample, const float (*centre)[3], int k) {
  float4 coeff[kMaxClusters];
  setCoeffs(centre, k, coeff);
  int64_t sum = 0;
  for (const uchar4& p : sample) {
    int label;
    sum += km::silhouetteTerm(p, coeff, centre, k, &label);
  }
  return sum;
}

}  // namespace

void checkAutoKArgs(ConstRgbaView in, int kmin, int kmax) {
  if (in.empty() || in.data == nullptr) throw std::invalid_argument("automatic K: empty frame");
  if (kmin < 2 || kmax > kMaxClusters || kmin > kmax)
    throw std::invalid_argument("automatic K: the range " + std::to_string(kmin) + ".." + std::to_string(kmax) +
                                " is not within 2.." + std::to_string(kMaxClusters));
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
    if (scores.sum[k] > scores.sum[best]) best = k;
  return best;
}

void autoKCpu(ConstRgbaView in, int kmin, int kmax, uint64_t seed, AutoKScores& scores, KmeansCpuScratch& scratch) {
  checkAutoKArgs(in, kmin, kmax);
  const std::vector<uchar4> sample = sampleOf(in);
  for (int k = kmin; k <= kmax; ++k) {
    float centre[kMaxClusters][3], positions[kMaxClusters][2];
    detail::kmeansPlusPlusCpu(in, k, seed, centre, positions, scratch);
    for (int it = 0; it < kAutoIterations; ++it) {
      float4 coeff[kMaxClusters];
      setCoeffs(centre, k, coeff);
      uint64_t sums[kMaxClusters][4] = {};
      for (const uchar4& p : sample) {
        uint64_t* s = sums[nearestOf(p, coeff, k)];
        s[0] += p.x, s[1] += p.y, s[2] += p.z, s[3] += 1;
      }
      for (int j = 0; j < k; ++j)
        if (sums[j][3] != 0)
          for (int c = 0; c < 3; ++c) centre[j][c] = km::meanChannel(sums[j][c], sums[j][3]);
    }
    scores.sum[k] = silhouetteSum(sample, centre, k);
  }
}

int64_t silhouetteCpu(ConstRgbaView in, const KmeansState& state, int k) {
  if (in.empty() || k < 1 || k > kMaxClusters) throw std::invalid_argument("silhouette: empty frame or bad k");
  float centre[kMaxClusters][3];
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < 3; ++c) centre[j][c] = state.centres[j][c];
  return silhouetteSum(sampleOf(in), centre, k);
}

}  // namespace vp
