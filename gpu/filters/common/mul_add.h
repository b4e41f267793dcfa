// An integer multiply-add the compiler keeps as written, on both backends. Given q a + q b,
// the compiler folds it into q (a + b), and it moves a constant addend out of a multiply-add
// into an add of its own: on the GPU both trade a multiply-add (FMA pipe) for an add (ALU
// pipe), which is the pipe the integer stencils run out of first (docs/design/gauss.md).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp {

// a * b + c (mod 2^32), one IMAD on the GPU.
__host__ __device__ __forceinline__ uint32_t mulAdd(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  uint32_t d;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
#else
  return a * b + c;
#endif
}

}  // namespace vp
