// Reductions over the 32 lanes of a full warp (every lane must call them): one REDUX
// instruction on sm_80 and later, a butterfly of shuffles before. Every lane gets the result.
// And the step of an inclusive scan.
#pragma once

#include <cstdint>

namespace vp {

constexpr unsigned kFullWarp = 0xffffffffu;  // every lane of a warp: the shuffles' and reductions' mask

__device__ __forceinline__ uint32_t warpSum(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
#endif
}

__device__ __forceinline__ uint32_t warpOr(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_or_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v |= __shfl_xor_sync(0xffffffffu, v, d);
  return v;
#endif
}

__device__ __forceinline__ uint32_t warpMin(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
#endif
}

__device__ __forceinline__ uint32_t warpMax(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
#endif
}

// One step of an inclusive warp scan: v + the v of lane - d where that lane exists, else v.
// The shuffle's own in-range predicate guards the add: two instructions, where the plain
// form (`if (lane >= d) v += __shfl_up_sync(...)`) compiles to a shuffle, a select and an add.
__device__ __forceinline__ uint32_t scanUpStep(uint32_t v, int d) {
  asm("{\n\t.reg .u32 t;\n\t.reg .pred p;\n\t"
      "shfl.sync.up.b32 t|p, %0, %1, 0, 0xffffffff;\n\t"
      "@p add.u32 %0, %0, t;\n\t}"
      : "+r"(v)
      : "r"(d));
  return v;
}

}  // namespace vp
