// Device code shared by the colour (kmeans_tiles.cuh) and spatial (kmeans_spatial.cu) K-means
// kernels' candidate centres, k <= KB <= 32: a warp step drops centre a when some pair test
// (a, b) says b beats a by more than a margin everywhere in the step's box, and scores only
// the centres left.
#pragma once

#include <cstdint>

namespace vp {
namespace kmgpu {

// Bit j set for centres j < k (k in 1..32).
__device__ __forceinline__ uint32_t centreMask(int k) { return k == 32 ? ~0u : (1u << k) - 1u; }

// Pair tests per lane and step: lane L's test t is pair p = L + 32 t, centre p % KB = L % KB
// against centre p / KB. For KB = 4, lanes 16..31 have no pair: their tests drop nothing.
template <int KB>
constexpr int kPairTests = KB* KB / 32 > 0 ? KB* KB / 32 : 1;

// The step's candidates, bit j: centre j, from each lane's `dominated` (a pair test of the
// lane dropped its centre L % KB): one ballot, folded by KB so that bit j gathers every lane
// of centre j. Within `all` = centreMask(k); `all` when nothing is dropped; never empty
// (`all` should the tests drop every centre, which their margins rule out).
template <int KB>
__device__ __forceinline__ uint32_t candidatesFromBallot(bool dominated, uint32_t all) {
  uint32_t m = __ballot_sync(~0u, dominated);
#pragma unroll
  for (int s = KB; s < 32; s <<= 1) m |= m >> s;
  const uint32_t cand = ~m & all;
  return cand != 0 ? cand : all;
}

}  // namespace kmgpu
}  // namespace vp
