// k-means++ seeding on CUDA (kmeans.h): one block of 512 threads over M <= 16384 samples
// (kmeans_plusplus.cuh).
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/kmeans/kmeans_plusplus.cuh"

namespace vp {
namespace {

__global__ void __launch_bounds__(kmpp::kPlusPlusThreads)
    kmeansPlusPlusKernel(ConstRgbaView in, KmeansState* state, int k, uint64_t seed) {
  uchar4 s[kmpp::kSamplesPerThread];
  kmpp::loadSamples(in, s);
  kmpp::plusPlusSeeds(in, s, k, seed, [&](int j, uchar4 c, uint64_t at) {
    state->centres[j][0] = c.x, state->centres[j][1] = c.y, state->centres[j][2] = c.z;
    state->centres[j][3] = 0.f;
    state->positions[j][0] = float(at % uint32_t(in.width)),
    state->positions[j][1] = float(at / uint32_t(in.width));
  });
}

}  // namespace

namespace detail {
void launchKmeansPlusPlus(ConstRgbaView in, KmeansState* state, int k, uint64_t seed, cudaStream_t stream) {
  kmeansPlusPlusKernel<<<1, kmpp::kPlusPlusThreads, 0, stream>>>(in, state, k, seed);
  VP_CUDA_CHECK_LAUNCH();
}
}  // namespace detail
}  // namespace vp
