// Bilateral filter on CUDA (bilateral.h): the kernel, a thin wrapper of the per-thread
// phases in bilateral_tiles.h, one instance per radius and columns per thread; the
// workspace and the dispatch. The parameters travel as a kernel parameter (__grid_constant__,
// 72 bytes, computed on the host per call); each block builds the high table from them in
// shared memory and each lane its lowSpatial entries in registers, so concurrent slots with
// different parameters share nothing.
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

// Blocks an SM can hold by shared memory (sm_90: 228 KB an SM, 1 KB of it reserved a
// block), at most 3: the register budget ptxas is given (80 registers at 3, 128 at 2).
template <int R, int K>
constexpr int blocksPerSm() {
  const int n = int(233472 / (BilateralLayout<R, K>::kBytes + 1024));
  return n < 1 ? 1 : n > 3 ? 3 : n;
}

template <int R, int K>
__global__ void __launch_bounds__(kThreads, blocksPerSm<R, K>())
    bilateralKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ Tables tab) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  extern __shared__ float4 bilateralSmem[];
  const BilateralBlock<R, K> b(bilateralSmem, int(blockIdx.x), int(blockIdx.y));
  bilateralStage(b, in, border, tab, int(threadIdx.x));
  __syncthreads();
  bilateralOutputs(b, in, out, tab, int(threadIdx.x));
}

using Kernel = void (*)(ConstRgbaView, RgbaView, BorderMode, const Tables);
constexpr int kRadii = kMaxBilateralRadius - kMinBilateralRadius + 1;
constexpr int kColumnVariants = int(sizeof(kBilateralColumnChoices) / sizeof(kBilateralColumnChoices[0]));

// The kernel of radius r and columns-per-thread index v (kBilateralColumnChoices[v]), and
// its shared memory (bytes).
template <int... I>
std::pair<Kernel, size_t> kernelFor(int r, int v, std::integer_sequence<int, I...>) {
  constexpr std::pair<Kernel, size_t> kTable[] = {
      {bilateralKernel<I / kColumnVariants + kMinBilateralRadius,
                       kBilateralColumnChoices[I % kColumnVariants]>,
       BilateralLayout<I / kColumnVariants + kMinBilateralRadius,
                       kBilateralColumnChoices[I % kColumnVariants]>::kBytes}...};
  return kTable[(r - kMinBilateralRadius) * kColumnVariants + v];
}
std::pair<Kernel, size_t> kernelFor(int r, int v) {
  return kernelFor(r, v, std::make_integer_sequence<int, kRadii * kColumnVariants>{});
}

int columnVariant(int columns) {
  for (int v = 0; v < kColumnVariants; ++v)
    if (kBilateralColumnChoices[v] == columns) return v;
  return -1;
}

// Allows every kernel its shared memory (above the default 48 KB where needed).
void prepareKernels(size_t sharedOptin) {
  for (int r = kMinBilateralRadius; r <= kMaxBilateralRadius; ++r)
    for (int v = 0; v < kColumnVariants; ++v) {
      const auto [kernel, bytes] = kernelFor(r, v);
      if (bytes > sharedOptin)
        throw std::invalid_argument("BilateralWorkspace: the device allows " + std::to_string(sharedOptin) +
                                    " bytes of shared memory per block, radius " + std::to_string(r) +
                                    " needs " + std::to_string(bytes));
      VP_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    }
}

void launch(ConstRgbaView in, RgbaView out, const BilateralParams& p, int columns, cudaStream_t stream) {
  const int tileCols = kThreadCols * columns;
  const dim3 grid((in.width + tileCols - 1) / tileCols, (in.height + kThreadRows - 1) / kThreadRows);
  const auto [kernel, bytes] = kernelFor(p.radius, columnVariant(columns));
  launchKernel(kernel, grid, dim3(kThreads), bytes, stream, pdlAvailable(), in, out, p.border, makeTables(p));
}

}  // namespace
}  // namespace bilateral

BilateralWorkspace::BilateralWorkspace(int maxWidth, int maxHeight)
    : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxBilateralDimension, "BilateralWorkspace");
  int device = 0, optin = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  bilateral::prepareKernels(size_t(optin));
}

void bilateralGpu(ConstRgbaView in, RgbaView out, const BilateralParams& params, BilateralWorkspace& ws,
                  cudaStream_t stream) {
  if (!bilateral::checkBilateralArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "bilateralGpu")) return;
  bilateral::launch(in, out, params, selectBilateralColumns(params.radius), stream);
}

void detail::bilateralGpuTuned(ConstRgbaView in, RgbaView out, const BilateralParams& params,
                               const BilateralTuning& tuning, BilateralWorkspace& ws, cudaStream_t stream) {
  if (!bilateral::checkBilateralArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "bilateralGpuTuned"))
    return;
  const int columns =
      tuning.columnsPerThread == 0 ? selectBilateralColumns(params.radius) : tuning.columnsPerThread;
  if (bilateral::columnVariant(columns) < 0)
    throw std::invalid_argument("bilateralGpuTuned: " + std::to_string(tuning.columnsPerThread) +
                                " columns per thread: not a kernel variant");
  bilateral::launch(in, out, params, columns, stream);
}

}  // namespace vp
