// Spatial (RGBXY) K-means arithmetic shared by the CUDA kernel and its CPU twin
// (kmeans.h has the contract), written once so both round identically; the colour part
// is kmeans_math.h's.
//
// Features of pixel (x, y): (r, g, b, fx, fy), fx = s * x, fy = s * y (one rounding each).
// A centre (r, g, b, px, py) has cx = s * px, cy = s * py, constants m = -2 (r, g, b, cx, cy)
// (exact) and cc = (((r*r + g*g) + b*b) + cx*cx) + cy*cy, and the score of a pixel is
//   fma(fy, m.y', fma(fx, m.x', fma(b, m.b, fma(g, m.g, fma(r, m.r, cc)))))
// = the squared feature distance minus the pixel's own |p|^2, lowest wins, ties to the
// lowest index. With W <= 1 every magnitude stays below 2^19, so a score is within about
// 0.2 of its exact value (ten roundings of at most 2^-5) and the chosen centre is within
// about 0.5 (squared levels) of the truly nearest; a larger W scales that bound with W^2.
#pragma once

#include "gpu/filters/kmeans/kmeans_math.h"

#include <algorithm>

namespace vp {

constexpr float kMaxSpatialWeight = 100.f;  // largest W: position weighs 100 times the colour range

namespace km {

// s = W * 255 / max(width, height), in double, rounded once to float.
inline float spatialScale(float weight, int width, int height) {
  return static_cast<float>(double(weight) * 255.0 / double(std::max(width, height)));
}

// The score constants of a centre: rgb = kmeans_math.h's (x, y, z = -2 r, g, b; w = the
// whole |c|^2 over five features), xy = -2 (cx, cy).
struct SpatialCoeffs {
  float4 rgb;
  float2 xy;
};

__host__ __device__ inline SpatialCoeffs spatialCoeffs(float r, float g, float b, float px, float py,
                                                       float s) {
  SpatialCoeffs c;
  c.rgb = centreCoeffs(r, g, b);
  const float cx = mulRn(s, px), cy = mulRn(s, py);
  c.rgb.w = addRn(addRn(c.rgb.w, mulRn(cx, cx)), mulRn(cy, cy));
  c.xy.x = mulRn(-2.f, cx);
  c.xy.y = mulRn(-2.f, cy);
  return c;
}
// A padding centre (index >= k in the kernel's bucket): +inf for every pixel.
__host__ __device__ inline SpatialCoeffs unusedSpatialCoeffs() {
  SpatialCoeffs c;
  c.rgb = unusedCentreCoeffs();
  c.xy.x = 0.f;
  c.xy.y = 0.f;
  return c;
}

// A pixel coordinate's feature s * v (v < 2^24 is exact as a float).
__host__ __device__ inline float spatialFeature(float s, int v) { return mulRn(s, float(v)); }

// The score of a pixel with channels pr, pg, pb (exact byte values) and features fx, fy.
__host__ __device__ inline float spatialScore(float pr, float pg, float pb, float fx, float fy,
                                              const SpatialCoeffs& c) {
  return fmaRn(fy, c.xy.y, fmaRn(fx, c.xy.x, score(pr, pg, pb, c.rgb)));
}

// Squared shift of a centre over the five features: the colour part as kmeans_math.h,
// then + dx*dx, then + dy*dy, with dx = s*newX - s*oldX (each product rounded).
__host__ __device__ inline float spatialShiftSquared(const float (&oldC)[5], const float (&newC)[5],
                                                     float s) {
  const float d2 = shiftSquared(oldC[0], oldC[1], oldC[2], newC[0], newC[1], newC[2]);
  const float dx = subRn(mulRn(s, newC[3]), mulRn(s, oldC[3]));
  const float dy = subRn(mulRn(s, newC[4]), mulRn(s, oldC[4]));
  return addRn(addRn(d2, mulRn(dx, dx)), mulRn(dy, dy));
}

// Per-step candidate centres (the kernel drops a centre that cannot be the nearest of any
// pixel of a warp step; the labels are those of the full argmin). A step's pixels lie in a
// box: each colour channel in [lo, hi] (its pixels' extremes), fx in [fxLo, fxHi] (s times
// its first and last column: rounding is monotone), fy one value (one row). With
// d = coeffs_a - coeffs_b (spatialPairCoeffs), s_a - s_b is affine in the features, so its
// least value over the box sits at the corner the signs of d pick (spatialPairMinOverBox).
// Centre a is dropped when that exceeds spatialCandidateMargin(W) for some b.
//
// Why a dropped centre never wins or ties: let every feature of the pixels and centres lie
// in [0, F], F = 255 max(1, W) (colours in [0, 255], positions in [0, max(w, h)]; the kernel
// checks the centres). Then |m| <= 2F, cc <= 5F^2 and every partial sum of a score is
// below 25F^2 in magnitude, so each of a score's five roundings is within 25F^2 2^-24 and
// a float score within E1 = 125F^2 2^-24 of its exact value on the stored constants. The
// test's differences round once each (cc: 5F^2 2^-24; each m: 4F 2^-24, times a feature
// <= F, five of them) and its five fused multiply-adds have partial sums below 25F^2:
// E2 = (5 + 20 + 125) F^2 2^-24. A dropped a has s_a - s_b > margin - E2 - 2 E1 =
// margin - 400F^2 2^-24 > 0 at every pixel of the box, since the margin 4 max(1, W)^2 =
// 4F^2 / 255^2 is 2.6 times that bound: b scores strictly lower, so a is never the argmin,
// and no centre that attains a pixel's least score is dropped (ties included).
struct SpatialBox {
  float lo[3], hi[3];  // r, g, b
  float fxLo, fxHi, fy;
};

__host__ __device__ inline float spatialCandidateMargin(float weight) {
  const float w = weight > 1.f ? weight : 1.f;
  return 4.f * w * w;
}

__host__ __device__ inline SpatialCoeffs spatialPairCoeffs(const SpatialCoeffs& a, const SpatialCoeffs& b) {
  SpatialCoeffs d;
  d.rgb = pairCoeffs(a.rgb, b.rgb);
  d.xy.x = subRn(a.xy.x, b.xy.x);
  d.xy.y = subRn(a.xy.y, b.xy.y);
  return d;
}

__host__ __device__ inline float spatialPairMinOverBox(const SpatialCoeffs& d, const SpatialBox& box) {
  float m = fmaRn(d.xy.y, box.fy, d.rgb.w);
  m = fmaRn(d.xy.x, d.xy.x >= 0.f ? box.fxLo : box.fxHi, m);
  m = fmaRn(d.rgb.x, d.rgb.x >= 0.f ? box.lo[0] : box.hi[0], m);
  m = fmaRn(d.rgb.y, d.rgb.y >= 0.f ? box.lo[1] : box.hi[1], m);
  return fmaRn(d.rgb.z, d.rgb.z >= 0.f ? box.lo[2] : box.hi[2], m);
}

// Whether a centre (r, g, b, x, y in pixels) lies where the margin's premise holds:
// colours in [0, 255], positions in [0, max(width, height)] (false for NaN).
__host__ __device__ inline bool spatialCentreInRange(const float (&c)[5], int width, int height) {
  const float pmax = float(width > height ? width : height);
  return c[0] >= 0.f && c[0] <= 255.f && c[1] >= 0.f && c[1] <= 255.f && c[2] >= 0.f && c[2] <= 255.f &&
         c[3] >= 0.f && c[3] <= pmax && c[4] >= 0.f && c[4] <= pmax;
}

}  // namespace km
}  // namespace vp
