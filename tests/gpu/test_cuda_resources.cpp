#include "gpu/cuda/cuda_resources.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

namespace vp {
namespace {

TEST(CudaCheck, ThrowsWithExpressionAndLocation) {
  try {
    VP_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "no throw";
  } catch (const CudaError& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidValue"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("test_cuda_resources.cpp"), std::string::npos);
  }
}

TEST(CudaResources, DefaultOwnersHoldNothing) {
  DeviceBuffer d;
  PinnedBuffer p;
  DevicePitchedBuffer q;
  EXPECT_EQ(d.get(), nullptr);
  EXPECT_EQ(p.get(), nullptr);
  EXPECT_EQ(q.get(), nullptr);
}

TEST(CudaResources, MoveTransfersOwnershipAndRoundTripsPixels) {
  VP_REQUIRE_GPU();
  HostImage src = test::makeNatural(37, 11, 7);
  DeviceImage a = test::upload(src);
  DeviceImage b = std::move(a);
  EXPECT_EQ(a.view().data, nullptr);
  EXPECT_GE(b.pitch(), 37u * 4u);
  HostImage back = test::download(b);
  EXPECT_EQ(test::compare(back, src).differing, 0u);

  PinnedBuffer pinned(1024);
  PinnedBuffer moved = std::move(pinned);
  EXPECT_EQ(pinned.get(), nullptr);
  EXPECT_NE(moved.get(), nullptr);

  Stream s;
  Event e0, e1;
  e0.record(s);
  e1.record(s);
  e1.synchronize();
  EXPECT_TRUE(e1.ready());
  EXPECT_GE(Event::elapsedMs(e0, e1), 0.f);
}

}  // namespace
}  // namespace vp
