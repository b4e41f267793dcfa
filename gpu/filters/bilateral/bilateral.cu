// Bilateral filter on CUDA (bilateral.h): the kernel, a thin wrapper of the per-thread
// phases in bilateral_tiles.h, one instance per radius and rows per thread; the
// workspace and the dispatch. The weight tables travel as a kernel parameter
// (__grid_constant__: read in place from the constant bank, every lane the same word),
// computed on the host per call, so concurrent slots with different parameters share nothing.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/filters/bilateral/bilateral.h"
#include "gpu/filters/bilateral/bilateral_math.h"
#include "gpu/filters/bilateral/bilateral_tiles.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace vp {
namespace bilateral {
namespace {

template <int R, int K>
__global__ void __launch_bounds__(kThreads)
    bilateralKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ Tables tab) {
  extern __shared__ float4 bilateralSmem[];
  const BilateralBlock b(bilateralSmem, R, K, int(blockIdx.x), int(blockIdx.y));
  bilateralStage(b, in, border, R, int(threadIdx.x));
  __syncthreads();
  bilateralOutputs<R, K>(b, in, out, tab, int(threadIdx.x));
}

using Kernel = void (*)(ConstRgbaView, RgbaView, BorderMode, const Tables);
constexpr int kRadii = kMaxBilateralRadius - kMinBilateralRadius + 1;
constexpr int kRowVariants = int(sizeof(kBilateralRowChoices) / sizeof(kBilateralRowChoices[0]));

// The kernel of radius r and rows-per-thread index v (kBilateralRowChoices[v]).
template <int... I>
Kernel kernelFor(int r, int v, std::integer_sequence<int, I...>) {
  constexpr Kernel kTable[] = {bilateralKernel<I / kRowVariants + kMinBilateralRadius,
                                               kBilateralRowChoices[I % kRowVariants]>...};
  return kTable[(r - kMinBilateralRadius) * kRowVariants + v];
}
Kernel kernelFor(int r, int v) { return kernelFor(r, v, std::make_integer_sequence<int, kRadii * kRowVariants>{}); }

int rowVariant(int rows) {
  for (int v = 0; v < kRowVariants; ++v)
    if (kBilateralRowChoices[v] == rows) return v;
  return -1;
}

// Allows every kernel its shared memory (above the default 48 KB where needed).
void prepareKernels(size_t sharedOptin) {
  for (int r = kMinBilateralRadius; r <= kMaxBilateralRadius; ++r)
    for (int v = 0; v < kRowVariants; ++v) {
      const size_t bytes = stageBytes(r, kBilateralRowChoices[v]);
      if (bytes > sharedOptin)
        throw std::invalid_argument("BilateralWorkspace: the device allows " + std::to_string(sharedOptin) +
                                    " bytes of shared memory per block, radius " + std::to_string(r) + " needs " +
                                    std::to_string(bytes));
      VP_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernelFor(r, v)),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    }
}

void launch(ConstRgbaView in, RgbaView out, const BilateralParams& p, int rows, cudaStream_t stream) {
  const dim3 grid((in.width + kTileCols - 1) / kTileCols, (in.height + kThreadRows * rows - 1) / (kThreadRows * rows));
  launchKernel(kernelFor(p.radius, rowVariant(rows)), grid, dim3(kThreads), stageBytes(p.radius, rows), stream,
               false, in, out, p.border, makeTables(p));
}

}  // namespace
}  // namespace bilateral

BilateralWorkspace::BilateralWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxBilateralDimension, "BilateralWorkspace");
  int device = 0, optin = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  bilateral::prepareKernels(size_t(optin));
}

void bilateralGpu(ConstRgbaView in, RgbaView out, const BilateralParams& params, BilateralWorkspace& ws,
                  cudaStream_t stream) {
  if (!bilateral::checkBilateralArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "bilateralGpu")) return;
  bilateral::launch(in, out, params, selectBilateralRows(params.radius), stream);
}

void detail::bilateralGpuTuned(ConstRgbaView in, RgbaView out, const BilateralParams& params,
                               const BilateralTuning& tuning, BilateralWorkspace& ws, cudaStream_t stream) {
  if (!bilateral::checkBilateralArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "bilateralGpuTuned")) return;
  const int rows = tuning.rowsPerThread == 0 ? selectBilateralRows(params.radius) : tuning.rowsPerThread;
  if (bilateral::rowVariant(rows) < 0)
    throw std::invalid_argument("bilateralGpuTuned: " + std::to_string(tuning.rowsPerThread) +
                                " rows per thread: not a kernel variant");
  bilateral::launch(in, out, params, rows, stream);
}

}  // namespace vp
