// The edge filter's rounded square root as the device computes it (the approximate root,
// edges_math.h), over its whole domain: it must equal the exact rule the host checks.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/edges/edges_math.h"
#include "support/edges_reference.h"
#include "support/gpu_test.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace vp {
namespace {

constexpr uint32_t kDomain = 65281;  // n = 0..65280

__global__ void roundSqrtKernel(uint32_t* out) {
  const uint32_t n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < kDomain) out[n] = edges::roundSqrt65280(n);
}

TEST(EdgesGpu, RoundedSquareRootIsExactOnTheDevice) {
  VP_REQUIRE_GPU();
  DeviceBuffer buffer(kDomain * sizeof(uint32_t));
  roundSqrtKernel<<<(kDomain + 255) / 256, 256>>>(buffer.as<uint32_t>());
  VP_CUDA_CHECK_LAUNCH();
  std::vector<uint32_t> m(kDomain);
  VP_CUDA_CHECK(cudaMemcpy(m.data(), buffer.get(), kDomain * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  for (uint32_t n = 0; n < kDomain; ++n) ASSERT_EQ(int(m[n]), test::ref::edgesMagnitude(n)) << n;
}

}  // namespace
}  // namespace vp
