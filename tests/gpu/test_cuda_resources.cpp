#include "gpu/cuda/cuda_resources.h"
#include "support/gpu_test.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

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

// Kernels read a whole aligned 16-byte group at a row's end (spatial K-means' short quad):
// the padding past the width must hold defined bytes, so every byte of the pitch is zero.
TEST(CudaResources, PitchedBufferStartsZeroedPaddingIncluded) {
  VP_REQUIRE_GPU();
  for (auto [widthBytes, rows] : {std::pair<size_t, size_t>{1332, 187}, {4, 1}, {15361, 3}}) {
    DevicePitchedBuffer q(widthBytes, rows);
    ASSERT_GT(q.pitch(), 0u);
    std::vector<unsigned char> all(q.pitch() * rows, 0xAB);
    VP_CUDA_CHECK(cudaMemcpy(all.data(), q.get(), all.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::count(all.begin(), all.end(), 0), std::ptrdiff_t(all.size())) << widthBytes << " x " << rows;
  }
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
