// K-means colour segmentation of RGBA8 frames: the CUDA launcher and its CPU twin.
//
// Method: Lloyd's algorithm on the R,G,B of all N = width*height pixels (alpha is
// carried through). Each iteration assigns every pixel to a nearest centre: the float
// score |c|^2 - 2 p.c of kmeans_math.h (a chain of fused multiply-adds), lowest wins,
// equal scores to the lowest index. The chosen centre's exact squared distance is within
// 0.25 (squared 8-bit levels) of the minimum; when every centre has integer channels
// (every Uniform / k-means++ start) the scores are exact, so the exact nearest wins and
// exact ties go to the lowest index. The assigned pixels are summed per cluster in 64-bit
// integers (so the sums do not depend on scheduling) and each centre moves to
// (float)((double)sum / count); an empty cluster keeps its centre. shift2 = the largest,
// over moved clusters, of ((dr*dr + dg*dg) + db*db) with d = new - old and every step
// rounded to float; the loop stops when that float is < epsilon or after maxIterations.
// A final assignment against the final centres writes the labels, the output image (each
// pixel = its centre's colour, roundf, clamped, NaN -> 0; alpha copied) and cost = the
// output's squared error, the sum over pixels of the integer squared r, g, b distance
// between input and output pixel. GPU and CPU results are equal bit for bit.
//
// Initial centres: Uniform = pixels at raster index floor(j*N/k). KmeansPlusPlus: M =
// min(N, 16384) samples S_i = pixel floor(i*N/M); r = SplitMix64(seed) (state +=
// 0x9E3779B97F4A7C15; z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) *
// 0x94D049BB133111EB; return z ^ z>>31). Centre 0 = S[r() % M]; each next centre: D_i =
// the integer squared r,g,b distance of S_i to its nearest chosen centre, T = sum D_i; if
// T == 0 it is S[r() % M], else S_i for the smallest i with D_0 + ... + D_i > r() % T.
// Warm = the centres already in the state (the previous frame's; any values, out of
// 0..255 allowed).
//
// Parameters: k in 1..32, maxIterations >= 0, epsilon (squared 8-bit levels), spatial.
// Complexity: O(N * k) per iteration, O(M * k^2) for k-means++.
//
// Spatial (RGBXY) K-means, spatial = W > 0: the features are (R, G, B, s x, s y) with
// s = (float)(W * 255 / max(width, height)) (in double), so W = 1 makes crossing the whole
// frame cost as much as the whole colour range. A centre is (r, g, b) plus its position
// (x, y) in pixels (KmeansState::positions). Distances, updates and the stop rule are
// today's over five features, each step spelled out in kmeans_spatial_math.h; integer
// sums of x and y give the positions as (float)((double)sum / count). Uniform starts take
// the pixel's position; k-means++ seeds by colour as above and each seed takes its
// sample pixel's position; warm starts carry positions too. Each pixel is painted with
// its centre's colour part; cost as above. No colour-box pruning (the score depends on
// the position). spatial = 0 is the colour-only K-means above, byte for byte.
//
// GPU: one persistent cooperative kernel runs every iteration (one grid barrier per
// iteration, multi-buffered cluster sums), so a frame costs one launch (two with
// k-means++) and no host synchronisation; everything it produces stays on the device.
// Its launch configuration comes from selectKmeansPolicy (kmeans_policy.h).
#pragma once

#include "gpu/cuda/cuda_resources.h"
#include "gpu/image.h"
#include "gpu/filters/kmeans/kmeans_math.h"
#include "gpu/filters/kmeans/kmeans_policy.h"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <vector>

namespace vp {

enum class KmeansInit { Uniform, KmeansPlusPlus, Warm };

struct KmeansParams {
  int k = 8;               // clusters, 1..kMaxClusters
  int maxIterations = 20;  // Lloyd iterations at most (0: assign to the initial centres)
  float epsilon = 0.01f;   // stop once the largest squared centre shift < epsilon (8-bit levels^2)
  KmeansInit init = KmeansInit::Uniform;
  uint64_t seed = 0x5eed;  // k-means++ random sequence
  float spatial = 0.f;     // W >= 0: weight of position against colour (0: colour only)
};

// Persistent across frames (device memory for the GPU, host memory for the CPU twin).
struct KmeansState {
  float centres[kMaxClusters][4] =
      {};              // r, g, b, unused; in: warm-start centres, out: final centres (first k)
  int k = 0;           // clusters of the last run
  int iterations = 0;  // Lloyd iterations the last run used
  uint64_t cost = 0;   // squared error of the output against the input (8-bit levels^2)
  float shift2 = 0.f;  // largest squared centre shift of the last iteration (+inf: none ran)
  float positions[kMaxClusters][2] = {};  // x, y in pixels: spatial K-means' centre positions (k-means++ writes them too)
};

namespace detail {
// The current device's SM count and the spatial kernels' occupancy: what the grids are sized by.
struct SpatialDevice {
  int smCount = 0;
  std::array<int, 4> coopBlocksPerSm{};  // each cooperative instance's resident blocks per SM (0: does not fit)
  int flushSteps = 0;  // > 0: flush the warps' 32-bit sums at least every this many steps (tests)
};
}  // namespace detail

constexpr int kMaxSumSlots = 4;  // copies of the per-cluster sums a policy may ask for

// Device scratch for kmeansGpu, sized once: multi-buffered per-cluster sums, the cost
// accumulator, the barrier's arrival counter and the finished-block counter (left zeroed by
// every launch), plus the occupancy of each kernel instance (spatial ones included) on the
// current device. `load` says whether the launches share the GPU with other streams'
// kernels (kmeans_policy.h). Not for concurrent use on two streams.
class KmeansWorkspace {
 public:
  explicit KmeansWorkspace(
      KmeansLoad load = KmeansLoad::Alone);  // queries the current device; throws vp::CudaError
  KmeansLoad load() const { return load_; }
  // The configuration kmeansGpu runs for a width x height frame with k clusters.
  KmeansPolicy policy(int width, int height, int k) const {
    return selectKmeansPolicy(device_.smCount, width, height, k, load_);
  }

 private:
  friend void kmeansGpu(ConstRgbaView, RgbaView, uint8_t*, KmeansState*, const KmeansParams&,
                        KmeansWorkspace&, cudaStream_t, const KmeansState*);
  static constexpr int kKernelInstances = 7;  // kernel instances (kmeans.cu)
  KmeansLoad load_;
  DeviceBuffer scratch_;
  DeviceBuffer spatialScratch_;  // spatial K-means (kmeans_spatial.cu)
  detail::SpatialDevice device_;  // the SM count (every kernel's grid) and the spatial kernels' occupancy
  int sharedOptin_ = 0, sharedPerSm_ = 0, sharedReserved_ = 0;  // shared memory per block / SM, bytes
  int staticShared_[kKernelInstances] = {};                     // each instance's static shared memory, bytes
  int maxBlocksPerSm_[kKernelInstances] = {};                   // each instance's occupancy; 0: does not fit
};

// GPU: in/out are device views of the same size (out may equal in); labels: device
// pointer to width*height bytes (row-major, pitch = width) or nullptr; state: device
// pointer. warmFrom (device, Warm init only, may be null): read the initial centres from
// there instead of from *state, e.g. the previous frame's state in a pipeline, which is
// left unchanged: the frame chain then needs no centre copy. Stream-ordered; no host
// synchronisation. Throws std::invalid_argument on bad arguments, vp::CudaError on
// launch failure.
void kmeansGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state,
               const KmeansParams& params, KmeansWorkspace& ws, cudaStream_t stream,
               const KmeansState* warmFrom = nullptr);

namespace detail {
// A run of up to kCpuTilePixels pixels of one row: its colour box and channel sums.
constexpr int kCpuTilePixels = 128;
struct KmeansCpuTile {
  uint8_t lo[3], hi[3];
  uint16_t count;
  uint32_t sum[3];
};
}  // namespace detail

// Host scratch for kmeansCpu, sized once for the largest frame: each 128-pixel tile's
// colour box and sums (found once per call), and the k-means++ sample.
class KmeansCpuScratch {
 public:
  // Throws std::invalid_argument for sizes below 1.
  KmeansCpuScratch(int maxWidth, int maxHeight);

  int maxWidth() const { return maxWidth_; }
  int maxHeight() const { return maxHeight_; }

 private:
  friend struct KmeansCpuScratchAccess;
  int maxWidth_ = 0, maxHeight_ = 0;          // pixels
  std::vector<detail::KmeansCpuTile> tiles_;  // per row, ceil(maxWidth / 128) tiles
  std::vector<uchar4> sample_;                // k-means++: the sampled pixels
  std::vector<uint32_t> d2_;                  //   and their squared distances to the nearest chosen centre
};

// CPU twin (OpenMP, deterministic): same semantics and results; everything in host memory.
// Like the kernel, it scores per 128-pixel tile only the centres that can be the nearest of
// some pixel in the tile's colour box, and adds a tile left with one candidate as a whole.
// No allocation; throws std::invalid_argument for frames larger than the scratch.
void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state,
               const KmeansParams& params, KmeansCpuScratch& scratch);
// The same with a scratch of the frame's size (allocates).
void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state,
               const KmeansParams& params);

namespace detail {
// Shared argument checks of both backends; throws std::invalid_argument.
void checkKmeansArgs(ConstRgbaView in, RgbaView out, const KmeansParams& params);
// The k-means++ seeding kernel (kmeans_plusplus.cu): writes state->centres[0..k) and
// state->positions[0..k).
void launchKmeansPlusPlus(ConstRgbaView in, KmeansState* state, int k, uint64_t seed, cudaStream_t stream);
// Spatial K-means (params.spatial > 0), called by kmeansGpu / kmeansCpu after their checks.
// kmeansSpatialGpu: one persistent cooperative kernel per frame on a scratch of
// spatialScratchBytes() (device memory, zero-filled before its first call; every call leaves
// it zeroed; calls on one scratch must follow one another);
// `device`: the current device's figures, from spatialDevice().
size_t spatialScratchBytes();
SpatialDevice spatialDevice();  // queries the current device; throws vp::CudaError
void kmeansSpatialGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state,
                      const KmeansParams& params, void* scratch, const SpatialDevice& device,
                      cudaStream_t stream, const KmeansState* warmFrom);
void kmeansSpatialCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state,
                      const KmeansParams& params, KmeansCpuScratch& scratch);
// k-means++ seeding on the host (kmeans_cpu.cpp): k centres' colours and their sample
// pixels' positions.
void kmeansPlusPlusCpu(ConstRgbaView in, int k, uint64_t seed, float (*centres)[3], float (*positions)[2],
                       KmeansCpuScratch& scratch);
}  // namespace detail

}  // namespace vp
