// GoogleTest helpers for GPU tests: skip with a reason when no CUDA device exists.
#pragma once

#include "gpu/cuda/device_info.h"

#include <gtest/gtest.h>

#define VP_REQUIRE_GPU()                                                        \
  do {                                                                          \
    if (::vp::cudaDeviceCountOrZero() == 0)                                     \
      GTEST_SKIP() << "no CUDA device: GPU test runs on the GPU machine only"; \
  } while (0)
