// The shipped K-means launch configurations and the choice between them (kmeans_policy.h).
#include "gpu/filters/kmeans/kmeans_policy.h"

#include <cstdint>

namespace vp {

KmeansPolicy selectKmeansPolicy(int smCount, int width, int height, int k, KmeansLoad load) {
  if (load == KmeansLoad::Shared)
    return {"shared",
            "pipeline, 3 / 4 streams (scripts/pipeline_ab.sh, H200): 1080p K-means 5767 / 5761 fps against "
            "4642 / "
            "5449 with 768-thread blocks; 4K 1791 / 1829 without the pixel cache against 1471 / 1693 with "
            "it, 1809 "
            "with 2 blocks/SM against 1068 with 3; 6554 fps contiguous against 5136 interleaved with 1 copy",
            256,
            2,
            false,
            1,
            false};
  if (k <= 16)
    return {
        "alone",
        "BM_KmeansGpu k 8, 20 it (H200, 2026-12-02): 1080p 148 us, 4K 349 us; contiguous 256-thread blocks "
        "168 / 430 us; 4 sum copies 156 against 183 with 1 (k 4: 1 copy 126 against 137 with 8)",
        768,
        1,
        true,
        k > 4 ? 4 : 1,
        true};
  // A thread's share of the frame at 2 blocks of 256 per SM: >= 16 quads (4K) takes a third block.
  const uint64_t quads = uint64_t((width + 3) / 4) * uint64_t(height);
  const bool manyQuads = quads >= uint64_t(smCount) * 2 * 256 * 16;
  return {"alone-k32",
          "BM_KmeansCandidates k 32, 1080p (H200, 2026-12-01): 507 us with 256-thread blocks; k 32 runs the "
          "plain "
          "pass (not tiled), and 768 threads x 32 clusters take 192 KB of shared memory for the sum columns",
          256,
          manyQuads ? 3 : 2,
          true,
          4,
          true};
}

}  // namespace vp
