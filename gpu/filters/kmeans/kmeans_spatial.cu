// Spatial (RGBXY) K-means on CUDA (kmeans.h; arithmetic in kmeans_spatial_math.h).
//
// One frame is a short stream-ordered sequence of launches, no host synchronisation:
//   init     (1 warp)  initial centres and their score constants, sums zeroed;
//   assign   (grid)    per iteration: every pixel's nearest centre, summed per cluster;
//   update   (1 warp)  per iteration: new centres, the shift, the stop decision;
//   final    (grid)    labels, output pixels, cost;
//   finish   (1 warp)  the state.
// Once the stop rule fires, `done` is set and the remaining iterations' launches return at
// once. A warp takes 32 consecutive pixels of a row; its sums go through warp reductions
// (REDUX) once per cluster present in the warp (neighbouring pixels mostly share one), and
// lane c keeps cluster c's running sums in registers: no atomics until the block's end.
// Sums are integers, so the result does not depend on the order of the additions.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/warp_reduce.cuh"
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/kmeans/kmeans_spatial_math.h"

#include <algorithm>

namespace vp {
namespace {

using ull = unsigned long long;
constexpr int kThreads = 256;
constexpr int kFields = 6;  // r, g, b, x, y sums and the pixel count

struct SpatialWork {
  float centre[kMaxClusters][5];  // r, g, b, x, y (pixels)
  float4 rgb[kMaxClusters];       // score constants (km::SpatialCoeffs)
  float2 xy[kMaxClusters];
  ull sums[kMaxClusters][kFields];
  ull cost;
  float shift2;
  int iterations;
  int done;  // the stop rule fired: later iterations do nothing
};

struct Frame {
  ConstRgbaView in;
  int k;
  float s;                  // spatial scale
  uint32_t segmentsPerRow;  // 32-pixel segments of a row
  uint32_t segments;
};

__device__ __forceinline__ km::SpatialCoeffs coeffsOf(const float (&c)[5], float s) {
  return km::spatialCoeffs(c[0], c[1], c[2], c[3], c[4], s);
}

__global__ void initKernel(Frame f, const KmeansState* init, bool uniform, SpatialWork* w) {
  const int j = threadIdx.x;
  for (int i = j; i < kMaxClusters * kFields; i += 32) (&w->sums[0][0])[i] = 0;
  if (j < f.k) {
    float c[5];
    if (uniform) {
      const uint64_t i = km::spreadIndex(uint64_t(j), f.in.pixels(), uint64_t(f.k));
      const int x = int(i % uint64_t(f.in.width)), y = int(i / uint64_t(f.in.width));
      const uchar4 p = f.in.at(x, y);
      c[0] = p.x, c[1] = p.y, c[2] = p.z, c[3] = float(x), c[4] = float(y);
    } else {
      c[0] = init->centres[j][0], c[1] = init->centres[j][1], c[2] = init->centres[j][2];
      c[3] = init->positions[j][0], c[4] = init->positions[j][1];
    }
    for (int d = 0; d < 5; ++d) w->centre[j][d] = c[d];
    const km::SpatialCoeffs q = coeffsOf(c, f.s);
    w->rgb[j] = q.rgb, w->xy[j] = q.xy;
  }
  if (j == 0) w->cost = 0, w->shift2 = INFINITY, w->iterations = 0, w->done = 0;
}

// The score constants of the centres in shared memory (padding centres score +inf).
template <int KB>
__device__ __forceinline__ void loadCoeffs(const SpatialWork* w, int k, float4* rgb, float2* xy) {
  for (int j = threadIdx.x; j < KB; j += blockDim.x) {
    if (j < k) {
      rgb[j] = w->rgb[j], xy[j] = w->xy[j];
    } else {
      const km::SpatialCoeffs u = km::unusedSpatialCoeffs();
      rgb[j] = u.rgb, xy[j] = u.xy;
    }
  }
  __syncthreads();
}

// Nearest centre of pixel p at (x, y): lowest score, ties to the lowest index.
template <int KB>
__device__ __forceinline__ int nearestSpatial(uchar4 p, int x, int y, float s, const float4* rgb,
                                              const float2* xy) {
  const float pr = p.x, pg = p.y, pb = p.z;
  const float fx = km::spatialFeature(s, x), fy = km::spatialFeature(s, y);
  float best = INFINITY;
  int bi = 0;
#pragma unroll
  for (int j = 0; j < KB; ++j) {
    const km::SpatialCoeffs c{rgb[j], xy[j]};
    const float sc = km::spatialScore(pr, pg, pb, fx, fy, c);
    if (sc < best) best = sc, bi = j;
  }
  return bi;
}

template <int KB>
__global__ void __launch_bounds__(kThreads) assignKernel(Frame f, SpatialWork* w) {
  if (*reinterpret_cast<volatile int*>(&w->done)) return;  // uniform: written by an earlier launch
  __shared__ float4 rgb[KB];
  __shared__ float2 xy[KB];
  __shared__ ull blockSums[KB][kFields];
  for (int i = threadIdx.x; i < KB * kFields; i += kThreads) (&blockSums[0][0])[i] = 0;
  loadCoeffs<KB>(w, f.k, rgb, xy);
  const int lane = threadIdx.x % 32, warps = kThreads / 32;
  // Lane c: cluster c's sums over this warp's pixels.
  ull sr = 0, sg = 0, sb = 0, sx = 0, sy = 0, sn = 0;
  for (uint32_t seg = blockIdx.x * warps + threadIdx.x / 32; seg < f.segments; seg += gridDim.x * warps) {
    const int y = int(seg / f.segmentsPerRow), x = int(seg % f.segmentsPerRow) * 32 + lane;
    const bool valid = x < f.in.width;
    uchar4 p = make_uchar4(0, 0, 0, 0);
    int j = 0;
    if (valid) {
      p = f.in.at(x, y);
      j = nearestSpatial<KB>(p, x, y, f.s, rgb, xy);
    }
    uint32_t present = warpOr(valid ? 1u << j : 0u);
    while (present != 0) {  // warp-uniform
      const int c = __ffs(present) - 1;
      present &= present - 1;
      const bool mine = valid && j == c;
      // r + g << 13 and b + 1 << 13: 32 * 255 < 2^13, so the fields do not overlap.
      const uint32_t rg = warpSum(mine ? uint32_t(p.x) | uint32_t(p.y) << 13 : 0u);
      const uint32_t bn = warpSum(mine ? uint32_t(p.z) | 1u << 13 : 0u);
      const uint32_t xs = warpSum(mine ? uint32_t(x) : 0u);
      const uint32_t ys = warpSum(mine ? uint32_t(y) : 0u);
      if (lane == c) {
        sr += rg & 0x1FFFu, sg += rg >> 13, sb += bn & 0x1FFFu, sn += bn >> 13;
        sx += xs, sy += ys;
      }
    }
  }
  if (lane < f.k && sn != 0) {
    atomicAdd(&blockSums[lane][0], sr), atomicAdd(&blockSums[lane][1], sg),
        atomicAdd(&blockSums[lane][2], sb);
    atomicAdd(&blockSums[lane][3], sx), atomicAdd(&blockSums[lane][4], sy),
        atomicAdd(&blockSums[lane][5], sn);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < f.k * kFields; i += kThreads) {
    const ull v = (&blockSums[0][0])[i];
    if (v != 0) atomicAdd(&w->sums[0][0] + i, v);
  }
}

__global__ void updateKernel(int k, float s, float epsilon, SpatialWork* w) {
  if (w->done) return;
  const int j = threadIdx.x;
  float d2 = 0.f;
  if (j < k) {
    const ull n = w->sums[j][5];
    if (n != 0) {
      float oldC[5], newC[5];
      for (int d = 0; d < 5; ++d) oldC[d] = w->centre[j][d], newC[d] = km::meanChannel(w->sums[j][d], n);
      d2 = km::spatialShiftSquared(oldC, newC, s);
      for (int d = 0; d < 5; ++d) w->centre[j][d] = newC[d];
      const km::SpatialCoeffs q = coeffsOf(newC, s);
      w->rgb[j] = q.rgb, w->xy[j] = q.xy;
    }
    for (int f = 0; f < kFields; ++f) w->sums[j][f] = 0;
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) d2 = fmaxf(d2, __shfl_xor_sync(~0u, d2, off));  // exact, any order
  if (j == 0) {
    w->shift2 = d2;
    w->iterations += 1;
    if (d2 < epsilon) w->done = 1;
  }
}

template <int KB>
__global__ void __launch_bounds__(kThreads)
    finalKernel(Frame f, RgbaView out, uint8_t* labels, SpatialWork* w) {
  __shared__ float4 rgb[KB];
  __shared__ float2 xy[KB];
  __shared__ uchar4 colour[KB];
  __shared__ ull warpCost[kThreads / 32];
  for (int j = threadIdx.x; j < KB; j += kThreads)
    colour[j] = j < f.k ? km::centreColour(w->centre[j]) : make_uchar4(0, 0, 0, 0);
  loadCoeffs<KB>(w, f.k, rgb, xy);
  const int lane = threadIdx.x % 32, warps = kThreads / 32;
  ull cost = 0;
  for (uint32_t seg = blockIdx.x * warps + threadIdx.x / 32; seg < f.segments; seg += gridDim.x * warps) {
    const int y = int(seg / f.segmentsPerRow), x = int(seg % f.segmentsPerRow) * 32 + lane;
    if (x >= f.in.width) continue;
    const uchar4 p = f.in.at(x, y);
    const int j = nearestSpatial<KB>(p, x, y, f.s, rgb, xy);
    const uchar4 o = make_uchar4(colour[j].x, colour[j].y, colour[j].z, p.w);
    cost += km::pixelDistance2(p, o);
    out.at(x, y) = o;
    if (labels) labels[size_t(y) * size_t(f.in.width) + size_t(x)] = uint8_t(j);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) cost += __shfl_xor_sync(~0u, cost, off);
  if (lane == 0) warpCost[threadIdx.x / 32] = cost;
  __syncthreads();
  if (threadIdx.x == 0) {
    ull total = 0;
    for (int i = 0; i < warps; ++i) total += warpCost[i];
    if (total) atomicAdd(&w->cost, total);
  }
}

__global__ void finishKernel(int k, const SpatialWork* w, KmeansState* state) {
  const int j = threadIdx.x;
  if (j < k) {
    for (int c = 0; c < 3; ++c) state->centres[j][c] = w->centre[j][c];
    state->centres[j][3] = 0.f;
    state->positions[j][0] = w->centre[j][3], state->positions[j][1] = w->centre[j][4];
  }
  if (j == 0) {
    state->k = k;
    state->iterations = w->iterations;
    state->cost = w->cost;
    state->shift2 = w->shift2;
  }
}

template <int KB>
void launchFrame(const Frame& f, RgbaView out, uint8_t* labels, const KmeansParams& params, SpatialWork* w,
                 int grid, cudaStream_t stream) {
  for (int it = 0; it < params.maxIterations; ++it) {
    assignKernel<KB><<<grid, kThreads, 0, stream>>>(f, w);
    VP_CUDA_CHECK_LAUNCH();
    updateKernel<<<1, 32, 0, stream>>>(f.k, f.s, params.epsilon, w);
    VP_CUDA_CHECK_LAUNCH();
  }
  finalKernel<KB><<<grid, kThreads, 0, stream>>>(f, out, labels, w);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace detail {

size_t spatialScratchBytes() { return sizeof(SpatialWork); }

void kmeansSpatialGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state,
                      const KmeansParams& params, void* scratch, int smCount, cudaStream_t stream,
                      const KmeansState* warmFrom) {
  SpatialWork* const w = static_cast<SpatialWork*>(scratch);
  Frame f;
  f.in = in;
  f.k = params.k;
  f.s = km::spatialScale(params.spatial, in.width, in.height);
  f.segmentsPerRow = uint32_t((in.width + 31) / 32);
  f.segments = f.segmentsPerRow * uint32_t(in.height);
  if (params.init == KmeansInit::KmeansPlusPlus)
    launchKmeansPlusPlus(in, state, params.k, params.seed, stream);
  const KmeansState* init = params.init == KmeansInit::Warm && warmFrom ? warmFrom : state;
  initKernel<<<1, 32, 0, stream>>>(f, init, params.init == KmeansInit::Uniform, w);
  VP_CUDA_CHECK_LAUNCH();
  // Eight blocks per SM, fewer for small frames (a block's 8 warps take a segment each).
  const int grid =
      int(std::max<uint64_t>(1, std::min<uint64_t>(uint64_t(smCount) * 8, (f.segments + 7) / 8)));
  const int bucket = km::clusterBucket(params.k);
  if (bucket == 4)
    launchFrame<4>(f, out, labels, params, w, grid, stream);
  else if (bucket == 8)
    launchFrame<8>(f, out, labels, params, w, grid, stream);
  else if (bucket == 16)
    launchFrame<16>(f, out, labels, params, w, grid, stream);
  else
    launchFrame<32>(f, out, labels, params, w, grid, stream);
  finishKernel<<<1, 32, 0, stream>>>(params.k, w, state);
  VP_CUDA_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace vp
