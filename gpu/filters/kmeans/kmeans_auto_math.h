// Automatic K's per-sample arithmetic (kmeans_auto.h), shared by the CUDA kernels and
// their CPU twins so both round identically (as kmeans_math.h).
#pragma once

#include "gpu/filters/kmeans/kmeans_math.h"

#include <cmath>
#include <cstdint>

namespace vp {
namespace km {

// Round to the nearest integer, ties to even (the host's default rounding mode).
__host__ __device__ inline int64_t roundToInt64(float a) {
#ifdef __CUDA_ARCH__
  return __float2ll_rn(a);
#else
  return std::llrint(a);
#endif
}

// Float squared r, g, b distance of an exact pixel to a centre: (dr*dr + dg*dg) + db*db.
__host__ __device__ inline float colourDistance2(float pr, float pg, float pb, const float* c) {
  const float dr = subRn(pr, c[0]), dg = subRn(pg, c[1]), db = subRn(pb, c[2]);
  return addRn(addRn(mulRn(dr, dr), mulRn(dg, dg)), mulRn(db, db));
}

// The nearest of k centres by K-means' score (kmeans_math.h): lowest, ties to the lowest index.
__host__ __device__ inline int nearestByScore(uchar4 p, const float4* coeff, int k) {
  const float pr = p.x, pg = p.y, pb = p.z;
  float best = INFINITY;
  int bi = 0;
  for (int j = 0; j < k; ++j) {
    const float s = score(pr, pg, pb, coeff[j]);
    if (s < best) best = s, bi = j;
  }
  return bi;
}

// One pixel's silhouette term round(s * 2^24) against k centres (kmeans_auto.h): `coeff`
// the centres' score constants (centreCoeffs), `centre` their r, g, b (stride 3); the
// pixel's own centre is its nearest by score.
__host__ __device__ inline int64_t silhouetteTerm(uchar4 p, const float4* coeff, const float (*centre)[3],
                                                  int k) {
  const float pr = p.x, pg = p.y, pb = p.z;
  const int own = nearestByScore(p, coeff, k);
  float b2 = INFINITY;
  for (int j = 0; j < k; ++j)
    if (j != own) b2 = fminf(b2, colourDistance2(pr, pg, pb, centre[j]));
  if (k < 2) return 0;
  const float a = sqrtRn(colourDistance2(pr, pg, pb, centre[own])), b = sqrtRn(b2);
  const float m = fmaxf(a, b);
  if (!(m > 0.f) || !(m < INFINITY)) return 0;  // both 0, or a NaN / infinite centre
  const float s = divRn(subRn(b, a), m);
  return roundToInt64(mulRn(s, 16777216.f));
}

}  // namespace km
}  // namespace vp
