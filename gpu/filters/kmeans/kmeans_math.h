// K-means arithmetic shared by the CUDA kernel and its CPU twin, written once so both
// round identically (the twin is the kernel's bit-exact oracle).
//
// Every floating-point step is spelled out: on the device with __fmaf_rn/__fmul_rn/
// __fadd_rn (which nvcc never contracts or reorders), on the host with plain operators
// (the project compiles host code with -ffp-contract=off) and std::fma. std::fma is
// correctly rounded whether it becomes the hardware instruction (callers compiled with
// target("fma")) or glibc's fmaf, so the host result never depends on the CPU.
//
// Assignment score of pixel p to centre c: |c|^2 - 2 p.c, i.e. the squared distance
// minus |p|^2 (constant per pixel), as three fused multiply-adds with per-centre
// constants m = -2c (exact) and cc = |c|^2 computed once per iteration:
//   s = fma(p.b, m.b, fma(p.g, m.g, fma(p.r, m.r, cc)))
// Nearest centre = lowest score, ties to the lowest index. A score is within 0.1 of its
// exact value (|cc| < 2^18 and partial sums < 2^19: eight roundings of at most 2^-6), so
// the chosen centre is never more than 0.25 (squared 8-bit levels) farther from the
// pixel than the truly nearest one.
#pragma once

#include "gpu/filters/common/exact_float.h"

#include <cuda_runtime_api.h>  // __host__ __device__
#include <vector_functions.h>  // make_uchar4
#include <vector_types.h>      // float4

#include <cmath>
#include <cstdint>

namespace vp {

constexpr int kMaxClusters = 32;           // largest supported k
constexpr int kKmeansPlusPlusSamples = 16384;  // M: k-means++ runs on at most this many pixels

namespace km {

// The exact float steps both backends spell out (common/exact_float.h).
using vp::addRn;
using vp::fmaRn;
using vp::meanChannel;
using vp::mulRn;
using vp::subRn;

// Per-centre score constants: x,y,z = -2 * (r,g,b) (exact), w = |c|^2 = (r*r + g*g) + b*b.
__host__ __device__ inline float4 centreCoeffs(float r, float g, float b) {
  float4 c;
  c.x = mulRn(-2.f, r);
  c.y = mulRn(-2.f, g);
  c.z = mulRn(-2.f, b);
  c.w = addRn(addRn(mulRn(r, r), mulRn(g, g)), mulRn(b, b));
  return c;
}
// Coefficients of a padding centre (index >= k inside the kernel's cluster bucket):
// its score is +inf for every pixel, so it never wins.
__host__ __device__ inline float4 unusedCentreCoeffs() {
  float4 c;
  c.x = 0.f;
  c.y = 0.f;
  c.z = 0.f;
  c.w = INFINITY;
  return c;
}

// The assignment score (see the header comment); p channels are exact byte values.
__host__ __device__ inline float score(float pr, float pg, float pb, float4 c) {
  return fmaRn(pb, c.z, fmaRn(pg, c.y, fmaRn(pr, c.x, c.w)));
}


// Squared centre shift, fixed order: ((dr*dr + dg*dg) + db*db), d = new - old.
__host__ __device__ inline float shiftSquared(float oldR, float oldG, float oldB, float newR, float newG,
                                              float newB) {
  float dr = subRn(newR, oldR), dg = subRn(newG, oldG), db = subRn(newB, oldB);
  return addRn(addRn(mulRn(dr, dr), mulRn(dg, dg)), mulRn(db, db));
}

// Output byte of a centre channel: roundf (halves away from zero), clamped to 0..255.
__host__ __device__ inline uint8_t centreByte(float c) {
  float v = fminf(fmaxf(roundf(c), 0.f), 255.f);  // fmaxf maps NaN to 0
  return static_cast<uint8_t>(v);
}

// A centre's output colour (r, g, b: centreByte each; alpha 0).
__host__ __device__ inline uchar4 centreColour(const float* c) {
  return make_uchar4(centreByte(c[0]), centreByte(c[1]), centreByte(c[2]), 0);
}

// Exact integer squared distance between two pixels' r, g, b (k-means++ weights, and a
// pixel's cost term: its distance to its output colour); <= 195075.
__host__ __device__ inline uint32_t pixelDistance2(uchar4 a, uchar4 b) {
  int dr = int(a.x) - int(b.x), dg = int(a.y) - int(b.y), db = int(a.z) - int(b.z);
  return uint32_t(dr * dr + dg * dg + db * db);
}

// Raster index floor(i * n / m) in 64-bit (uniform init and k-means++ samples).
__host__ __device__ inline uint64_t spreadIndex(uint64_t i, uint64_t n, uint64_t m) { return i * n / m; }

// SplitMix64: the k-means++ random sequence, identical on host and device.
struct SplitMix64 {
  uint64_t state;
  __host__ __device__ explicit SplitMix64(uint64_t seed) : state(seed) {}
  __host__ __device__ uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// Per-tile candidate centres (kmeans_tiles.cuh has the reasoning). With d = coeff_a - coeff_b
// (pairCoeffs), s_a - s_b is affine in the pixel, so its lowest value over a colour box
// [lo, hi] is at the corner picked by the signs of d.x, d.y, d.z. When that exceeds
// kCandidateMargin for some b, centre a is the nearest of no pixel in the box (valid while
// every centre lies in [0, 255]): it never wins or ties, so dropping it leaves the argmin.
constexpr float kCandidateMargin = 1.f;  // squared 8-bit levels
__host__ __device__ inline float4 pairCoeffs(float4 a, float4 b) {
  float4 d;
  d.x = subRn(a.x, b.x);
  d.y = subRn(a.y, b.y);
  d.z = subRn(a.z, b.z);
  d.w = subRn(a.w, b.w);
  return d;
}
__host__ __device__ inline float pairMinOverBox(float4 d, float4 lo, float4 hi) {
  float m = fmaRn(d.x, d.x >= 0.f ? lo.x : hi.x, d.w);
  m = fmaRn(d.y, d.y >= 0.f ? lo.y : hi.y, m);
  return fmaRn(d.z, d.z >= 0.f ? lo.z : hi.z, m);
}

// The kernel's compile-time cluster bucket for k (unused slots score +inf).
__host__ __device__ constexpr int clusterBucket(int k) { return k <= 4 ? 4 : k <= 8 ? 8 : k <= 16 ? 16 : 32; }

}  // namespace km
}  // namespace vp
