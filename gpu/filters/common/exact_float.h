// Float arithmetic that rounds the same on the GPU and the CPU: each step one IEEE
// operation rounded to nearest (the device's __f*_rn intrinsics, which the compiler may not
// contract into FMAs; plain operators on the host, built with -ffp-contract=off). Kernels and
// CPU twins that must agree bit for bit (K-means, SLIC, bilateral) write every step with these.
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__

#include <cmath>
#include <cstdint>
#include <cstring>

namespace vp {

__host__ __device__ inline float fmaRn(float a, float b, float c) {
#ifdef __CUDA_ARCH__
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
__host__ __device__ inline float mulRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
__host__ __device__ inline float addRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
__host__ __device__ inline float subRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
__host__ __device__ inline float sqrtRn(float a) {
#ifdef __CUDA_ARCH__
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
__host__ __device__ inline float divRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
// The bits of a float and the float of some bits.
__host__ __device__ inline uint32_t bitsOf(float v) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(v);
#else
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
#endif
}
__host__ __device__ inline float floatOf(uint32_t b) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(b);
#else
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
#endif
}
// New centre channel: the mean of the cluster's integer channel sum, rounded once.
__host__ __device__ inline float meanChannel(uint64_t sum, uint64_t count) {
  return static_cast<float>(static_cast<double>(sum) / static_cast<double>(count));
}

}  // namespace vp
