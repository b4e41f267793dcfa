// K-means launch policy: which of the shipped kernel configurations a call runs.
//
// selectKmeansPolicy() is the one place that decides; kmeansGpu() calls it on every launch,
// and the benchmarks call it to name what they time, so a benchmark figure is the
// configuration the application runs. Three configurations ship (docs/design/kmeans.md
// has the alternatives that were measured and dropped):
//
//   alone        k <= 16, the GPU to itself: 768-thread blocks, one per SM, tiles of 32
//                quads interleaved over the blocks, 4 copies of the cluster sums (1 for
//                k <= 4), block pixels cached in shared memory.
//   alone-k32    k > 16, the GPU to itself: the same with 256-thread blocks, 3 per SM on
//                frames where a thread would get >= 16 quads at 2 per SM (4K), else 2.
//   shared       other streams' kernels run beside it (the pipeline with >= 2 slots):
//                256-thread blocks, 2 per SM, contiguous block ranges, 1 copy of the sums,
//                no pixel cache, so a launch never waits for a whole SM or its shared memory.
//
// Every configuration scores per tile only the candidate centres (k <= 16) and uses the
// counted grid barrier; frames over 16.8 Mpx use cooperative groups' grid.sync() instead
// (kmeans.cu). No configuration changes a result: each is bit-exact with the CPU twin.
// The benchmarks an evidence line names are those of tests/bench at commit faf8ca1, where
// every alternative could still be selected.
#pragma once

namespace vp {

// Whether a K-means launch has the GPU to itself or shares it with other streams' kernels.
enum class KmeansLoad { Alone, Shared };

struct KmeansPolicy {
  const char* name;      // "alone", "alone-k32" or "shared"
  const char* evidence;  // the measurement that chose it (figure and benchmark)
  int blockThreads;      // 256 or 768
  int blocksPerSm;       // wanted resident blocks per SM (the launcher caps it by occupancy)
  bool interleaveTiles;  // block b of G owns tiles b, b + G, ...; else a contiguous quad range
  int sumSlots;          // copies of the per-cluster sums, 1..kMaxSumSlots (block b adds into b % copies)
  bool pixelCache;       // keep the block's quads in the shared memory its blocks per SM leave
};

// The policy for a width x height frame with k clusters on a device with smCount SMs.
KmeansPolicy selectKmeansPolicy(int smCount, int width, int height, int k, KmeansLoad load);

}  // namespace vp
