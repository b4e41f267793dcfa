// Shared-memory tiles and pixel loads for kernels written as plain per-thread functions
// (gauss_tiles.h, edges_tiles.h): the kernels call them on the device; the tests call the
// same functions on the CPU, block by block and thread by thread, where every access is
// bounds-checked (VP_TILE_CHECK throws std::logic_error). On the device the checks vanish.
#pragma once

#include "gpu/image.h"

#include <vector_types.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__CUDA_ARCH__)
#define VP_TILE_CHECK(cond) ((void)0)
#else
namespace vp::tiles {
[[noreturn]] inline void accessFailed(const char* what, const char* file, int line) {
  throw std::logic_error(std::string(file) + ":" + std::to_string(line) + ": access out of bounds: " + what);
}
}  // namespace vp::tiles
#define VP_TILE_CHECK(cond) ((cond) ? (void)0 : ::vp::tiles::accessFailed(#cond, __FILE__, __LINE__))
#endif

// `#pragma unroll` for nvcc, nothing for the host compiler (which warns on it).
#if defined(__CUDACC__)
#define VP_UNROLL _Pragma("unroll")
#else
#define VP_UNROLL
#endif

namespace vp::tiles {

// rows x cols elements of a shared-memory array, `stride` elements from one row to the next.
template <class T>
struct Tile {
  T* data = nullptr;
  int rows = 0;    // rows in use
  int cols = 0;    // columns in use
  int stride = 0;  // elements between the starts of two rows, >= cols
  __host__ __device__ T& at(int r, int c) const {
    VP_TILE_CHECK(r >= 0 && r < rows && c >= 0 && c < cols);
    return data[r * stride + c];
  }
};

// Pixel (x, y) as the little-endian word R | G << 8 | B << 16 | A << 24.
__host__ __device__ inline uint32_t loadPixel(ConstRgbaView v, int x, int y) {
  VP_TILE_CHECK(x >= 0 && x < v.width && y >= 0 && y < v.height);
#if defined(__CUDA_ARCH__)
  return __ldg(reinterpret_cast<const unsigned int*>(v.row(y) + x));
#else
  uint32_t word;
  std::memcpy(&word, v.row(y) + x, sizeof word);
  return word;
#endif
}

__host__ __device__ inline void storePixel(RgbaView v, int x, int y, uint32_t word) {
  VP_TILE_CHECK(x >= 0 && x < v.width && y >= 0 && y < v.height);
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<unsigned int*>(v.row(y) + x) = word;
#else
  std::memcpy(v.row(y) + x, &word, sizeof word);
#endif
}

// A ushort4 (x, y, z, w) as the two words (x | y << 16, z | w << 16).
__host__ __device__ inline uint2 loadPair(ImageView<const ushort4> v, int x, int y) {
  VP_TILE_CHECK(x >= 0 && x < v.width && y >= 0 && y < v.height);
#if defined(__CUDA_ARCH__)
  return __ldg(reinterpret_cast<const uint2*>(v.row(y) + x));
#else
  uint2 words;
  std::memcpy(&words, v.row(y) + x, sizeof words);
  return words;
#endif
}

__host__ __device__ inline void storePair(ImageView<ushort4> v, int x, int y, uint2 words) {
  VP_TILE_CHECK(x >= 0 && x < v.width && y >= 0 && y < v.height);
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint2*>(v.row(y) + x) = words;
#else
  std::memcpy(v.row(y) + x, &words, sizeof words);
#endif
}

}  // namespace vp::tiles
