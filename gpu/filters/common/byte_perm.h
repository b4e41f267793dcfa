// A byte permute usable on both backends: the kernels' PRMT, the same bytes on the host (the
// tests run the kernels' per-lane stages on the CPU).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp {

// Byte i of the result is byte (s >> 4i) & 7 of the 8 bytes b:a (CUDA's __byte_perm
// without the sign modes).
__host__ __device__ __forceinline__ uint32_t bytePerm(uint32_t a, uint32_t b, uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, s);
#else
  const uint64_t v = uint64_t(b) << 32 | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= uint32_t(v >> (8 * ((s >> (4 * i)) & 7u)) & 0xFFu) << (8 * i);
  return r;
#endif
}

}  // namespace vp
