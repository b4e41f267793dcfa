// Plain image views shared by kernels, their CPU twins and the callers.
//
// A view is a non-owning (pointer, pitch in bytes, width, height) tuple; it says
// nothing about where the memory lives (host, pinned or device). Kernels take
// views, never owners, so the same launcher serves any allocation.
#pragma once

#include <cuda_runtime_api.h>  // __host__ __device__
#include <vector_functions.h>  // make_uchar4
#include <vector_types.h>      // uchar4

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace vp {

template <class T>
struct ImageView {
  T* data = nullptr;
  size_t pitch = 0;  // bytes between the starts of two rows
  int width = 0;     // pixels
  int height = 0;    // pixels

  __host__ __device__ T* row(int y) const {
    using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
    return reinterpret_cast<T*>(reinterpret_cast<Byte*>(data) + static_cast<size_t>(y) * pitch);
  }
  __host__ __device__ T& at(int x, int y) const { return row(y)[x]; }
  __host__ __device__ size_t pixels() const { return static_cast<size_t>(width) * height; }
  __host__ __device__ bool empty() const { return width <= 0 || height <= 0; }
  // A const view of the same pixels (mutable views only: for a const T it would convert a
  // view to its own type, which nvcc warns can never be called).
  template <typename U = T, typename = std::enable_if_t<!std::is_const_v<U>>>
  __host__ __device__ operator ImageView<const U>() const {
    return {data, pitch, width, height};
  }
};

using RgbaView = ImageView<uchar4>;
using ConstRgbaView = ImageView<const uchar4>;

// A tightly packed RGBA8 image in ordinary host memory: tests, CPU backend, screenshots.
class HostImage {
 public:
  HostImage() = default;
  HostImage(int width, int height) : width_(width), height_(height), pixels_(size_t(width) * height) {}

  int width() const { return width_; }
  int height() const { return height_; }
  size_t pitch() const { return size_t(width_) * sizeof(uchar4); }
  uchar4* data() { return pixels_.data(); }
  const uchar4* data() const { return pixels_.data(); }
  uchar4& at(int x, int y) { return pixels_[size_t(y) * width_ + x]; }
  const uchar4& at(int x, int y) const { return pixels_[size_t(y) * width_ + x]; }
  RgbaView view() { return {pixels_.data(), pitch(), width_, height_}; }
  ConstRgbaView view() const { return {pixels_.data(), pitch(), width_, height_}; }
  ConstRgbaView cview() const { return view(); }

 private:
  int width_ = 0;
  int height_ = 0;
  std::vector<uchar4> pixels_;
};

}  // namespace vp
