// The one CUDA error-check macro of the project.
//
// VP_CUDA_CHECK(expr) evaluates a CUDA runtime call and throws vp::CudaError
// naming the expression, file and line when it fails. After a kernel launch use
// VP_CUDA_CHECK(cudaGetLastError()) (or VP_CUDA_CHECK_LAUNCH()) so launch
// configuration errors surface at the launcher, not at some later sync.
// It throws, never exit()s: the caller decides whether the program can go on.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace vp {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* expr, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                           " failed: " + cudaGetErrorName(code) + " (" +
                           cudaGetErrorString(code) + ")"),
        code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
inline void cudaCheck(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw CudaError(code, expr, file, line);
}
}  // namespace detail

}  // namespace vp

#define VP_CUDA_CHECK(expr) ::vp::detail::cudaCheck((expr), #expr, __FILE__, __LINE__)
#define VP_CUDA_CHECK_LAUNCH() VP_CUDA_CHECK(cudaGetLastError())
