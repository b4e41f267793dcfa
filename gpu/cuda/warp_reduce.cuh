// Reductions over the 32 lanes of a full warp (every lane must call them): one REDUX
// instruction on sm_80 and later, a butterfly of shuffles before. Every lane gets the result.
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

}  // namespace vp
