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

}  // namespace km
}  // namespace vp
