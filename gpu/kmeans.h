// K-means colour segmentation of RGBA8 frames: the CUDA launcher and its CPU twin.
//
// Method: Lloyd's algorithm on the R,G,B of all N = width*height pixels (alpha is
// carried through). Each iteration assigns every pixel to the centre with the lowest
// score (kmeans_math.h: |c|^2 - 2 p.c as a chain of fused multiply-adds, ties to the
// lowest index), sums the assigned pixels per cluster in 64-bit integers (so the sums
// do not depend on scheduling), and moves each centre to (float)((double)sum / count);
// an empty cluster keeps its centre. shift2 = the largest squared centre move; the loop
// stops when shift2 < epsilon or after maxIterations. A final assignment against the
// final centres writes the labels, the output image (each pixel = its centre's colour,
// roundf, clamped; alpha copied) and cost = the output's squared error, the sum over
// pixels of the integer squared r, g, b distance between input and output pixel. GPU and
// CPU results are equal bit for bit.
//
// Initial centres: Uniform = pixels at raster index floor(j*N/k); KmeansPlusPlus =
// k-means++ on M = min(N, 16384) pixels at floor(i*N/M) with integer D2 weights and
// SplitMix64(seed); Warm = the centres already in the state (the previous frame's).
//
// Parameters: k in 1..32, maxIterations >= 0, epsilon (squared 8-bit levels).
// Complexity: O(N * k) per iteration, O(M * k^2) for k-means++.
//
// GPU: one persistent cooperative kernel runs every iteration (one grid barrier per
// iteration, multi-buffered cluster sums), so a frame costs one launch (two with
// k-means++) and no host synchronisation; everything it produces stays on the device.
#pragma once

#include "gpu/cuda_resources.h"
#include "gpu/image.h"
#include "gpu/kmeans_math.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace vp {

enum class KmeansInit { Uniform, KmeansPlusPlus, Warm };

struct KmeansParams {
  int k = 8;                 // clusters, 1..kMaxClusters
  int maxIterations = 20;    // Lloyd iterations at most (0: assign to the initial centres)
  float epsilon = 0.01f;     // stop once the largest squared centre shift < epsilon (8-bit levels^2)
  KmeansInit init = KmeansInit::Uniform;
  uint64_t seed = 0x5eed;    // k-means++ random sequence
};

// Persistent across frames (device memory for the GPU, host memory for the CPU twin).
struct KmeansState {
  float centres[kMaxClusters][4] = {};  // r, g, b, unused; in: warm-start centres, out: final centres (first k)
  int k = 0;                       // clusters of the last run
  int iterations = 0;              // Lloyd iterations the last run used
  uint64_t cost = 0;               // squared error of the output against the input (8-bit levels^2)
  float shift2 = 0.f;              // largest squared centre shift of the last iteration (+inf: none ran)
};

// Launch-shape knobs, measured in bench_kmeans.cpp; the defaults are the measured best.
// No knob changes a result: every combination is bit-exact with the CPU twin.
struct KmeansTuning {
  int blocksPerSm = 0;     // resident blocks per SM, capped by occupancy; 0: with 256-thread blocks 3 when a
                           // thread would get >= 16 quads at 2 (4K), else 2 (1080p); with wider blocks 1.
                           // Fewer blocks = cheaper barriers
  bool fullGrid = false;   // use every allowed block even for tiny images (benchmarks the barrier cost)
  bool treeArgmin = true;  // nearest centre by a min tree (fewer compare/selects) or a plain scan
                           // (the scan exists for 256-thread blocks only; wider blocks always use the tree)
  // Variant "wide": threads per block, 256, 512, 768 or 1024; 0 (default) = with interleaveTiles 768 for
  // k <= 16, else 256; without, 768 for k <= 8, else 256, and with tileCandidates 256 when a thread
  // would get >= 16 quads at 2 blocks/SM (4K, contiguous: 432 against 452 us).
  // One wide block per SM has the warps of 2-4 narrow ones but a quarter to a half of the barrier
  // arrivals and sum atomics. 1024 is built for k <= 8 only (64 registers); k > 8 runs with 768.
  // Measured on the H200 (k=8, 20 iterations, alone, counted barrier): 768 threads 198 / 569 us
  // at 1080p / 4K against 199 / 622 with 256; warm clip 89 / 168 against 91 / 180 us. The
  // pipeline sets 256: its streams run side by side, and a 768-thread block waits for a
  // whole SM (notes/kmeans.md, notes/pipeline.md).
  int blockThreads = 0;
  // Variant "spread": copies of the per-cluster sums, 1 to kMaxSumSlots, 0 (default) = 4 with
  // interleaveTiles and k > 4, else 1; block b adds into copy b % sumSlots, the centre update adds the
  // copies (integers: the same sums), so at most blocks / sumSlots atomics hit one address per iteration
  // instead of every block's. Interleaved blocks each add to every cluster (a contiguous block's few
  // rows hold few of them): k 8 at 1080p, 768 threads, 158 us with 4 copies, 164 with 8, 184 with 1.
  int sumSlots = 0;
  // Variant "pairs": quads a thread scores per step, 1 (default) or 2. With 2 each chunk of centre
  // constants is loaded once per 8 pixels and the loop/address work is shared by two quads (the tree
  // argmin always; 1024-thread blocks run pairs with 768).
  int quadsPerStep = 1;
  // The per-iteration grid barrier: a counted one (true) or cooperative groups' grid.sync() (false).
  // Counted: each block adds its sums as count << 32 | channel sum, adds 1 to an arrival counter
  // without a fence, and reads the sums once the counter is full, again until their counts
  // add up to the frame (a late atomic): no memory fence and no second barrier phase per iteration.
  // Frames over 16.8 Mpx (N * 255 >= 2^32) use grid.sync().
  bool countedBarrier = true;
  // Per-tile candidate centres (kmeans_tiles.cuh): a warp step scores only the centres that can be the
  // nearest of some pixel in its tile's colour box (32 quads); one candidate: no scoring at all. Labels
  // are unchanged by construction. Built for k <= 16; pairs (quadsPerStep 2) and blocks of more than
  // 1024 tiles (frames over ~17 Mpx) run the plain pass. Measured (H200, k 8, 20 iterations): 1080p
  // 170 against 201 us, 4K 432 against 588, warm clip 78 / 151 against 90 / 172; k 16 250 against 313.
  bool tileCandidates = true;
  // Pixel cache: each block keeps its quads (as loaded, 16 bytes each) in shared memory from the first
  // read of the launch on, so every later read is a shared-memory load instead of an L2 round trip.
  // Negative (default -1): as many of the block's quads as fit beside its other shared memory at its
  // blocks per SM (1080p at 768 threads: all; 4K: a part); 0: off; n > 0: at most n quads per block.
  // Measured (k 8, 20 iterations): 1080p 168 against 172 us; 4K at 768 threads 372 against 389.
  int pixelCacheQuads = -1;
  // Block b of G owns the tiles of 32 quads b, b + G, b + 2G, ... (true) or a contiguous range of the
  // raster order (false). Interleaved, every block samples the whole frame (meant to even out the
  // candidate pass's content-dependent work between the blocks each iteration waits for) and tiles
  // start on multiples of 32 quads (at 1080p and 4K never across a row end); ncu at 1080p: 4.5 % fewer
  // instructions. It needs sum copies: every block then adds to every cluster.
  // Measured (k 8, 20 iterations, 768 threads, 4 sum copies): 1080p 158 against 168 us contiguous
  // (1 copy, its best), 4K 370 against 436 (contiguous 256 x 3: 433).
  bool interleaveTiles = true;
  // The launch's first read of the pixels (pixel cache and tile boxes) issues the loads of 4 warp
  // steps before their box reductions (true) or one step at a time (false): at 4K a thread reads
  // ~20 quads there, each waiting a full memory latency when done one at a time. Measured (k 8):
  // 4K 356 against 361 us (it 0: 60.7 against 64.3), 1080p 151 either way.
  bool batchedPrologue = true;
};
constexpr int kMaxSumSlots = 8;

// Device scratch for kmeansGpu, sized once: multi-buffered per-cluster sums, the cost
// accumulator, the barrier's arrival counter and the finished-block counter (left zeroed by
// every launch), plus the occupancy of each kernel variant on the current device. Not for
// concurrent use on two streams.
class KmeansWorkspace {
 public:
  KmeansWorkspace();  // queries the current device; throws vp::CudaError
  KmeansTuning tuning;

 private:
  friend void kmeansGpu(ConstRgbaView, RgbaView, uint8_t*, KmeansState*, const KmeansParams&, KmeansWorkspace&,
                        cudaStream_t, const KmeansState*);
  DeviceBuffer scratch_;
  int smCount_ = 0;
  int sharedOptin_ = 0, sharedPerSm_ = 0, sharedReserved_ = 0;  // shared memory per block / SM, bytes
  int staticShared_[4][3][4] = {};  // each kernel's static shared memory (same indices as below)
  int maxBlocksPerSm_[4][3][4] = {};  // per block size (256, 512, 768, 1024), kernel variant (scan, tree,
                                      // tree + pairs) and cluster bucket 4, 8, 16, 32; 0: not built or does not fit
};

// GPU: in/out are device views of the same size (out may equal in); labels: device
// pointer to width*height bytes (row-major, pitch = width) or nullptr; state: device
// pointer. warmFrom (device, Warm init only, may be null): read the initial centres from
// there instead of from *state, e.g. the previous frame's state in a pipeline, which is
// left unchanged: the frame chain then needs no centre copy. Stream-ordered; no host
// synchronisation. Throws std::invalid_argument on bad arguments, vp::CudaError on
// launch failure.
void kmeansGpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state, const KmeansParams& params,
               KmeansWorkspace& ws, cudaStream_t stream, const KmeansState* warmFrom = nullptr);

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
  int maxWidth_ = 0, maxHeight_ = 0;  // pixels
  std::vector<detail::KmeansCpuTile> tiles_;  // per row, ceil(maxWidth / 128) tiles
  std::vector<uchar4> sample_;        // k-means++: the sampled pixels
  std::vector<uint32_t> d2_;          //   and their squared distances to the nearest chosen centre
};

// CPU twin (OpenMP, deterministic): same semantics and results; everything in host memory.
// Like the kernel, it scores per 128-pixel tile only the centres that can be the nearest of
// some pixel in the tile's colour box, and adds a tile left with one candidate as a whole.
// No allocation; throws std::invalid_argument for frames larger than the scratch.
void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state, const KmeansParams& params,
               KmeansCpuScratch& scratch);
// The same with a scratch of the frame's size (allocates).
void kmeansCpu(ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState& state, const KmeansParams& params);

namespace detail {
// Shared argument checks of both backends; throws std::invalid_argument.
void checkKmeansArgs(ConstRgbaView in, RgbaView out, const KmeansParams& params);
// The k-means++ seeding kernel (kmeans_plusplus.cu): writes state->centres[0..k).
void launchKmeansPlusPlus(ConstRgbaView in, KmeansState* state, int k, uint64_t seed, cudaStream_t stream);
}  // namespace detail

}  // namespace vp
