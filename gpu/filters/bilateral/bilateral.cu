// Bilateral filter on CUDA (bilateral.h): the kernel, a thin wrapper of the per-thread
// phases in bilateral_tiles.h, one instance per radius and columns per thread; the
// workspace and the dispatch. The parameters travel as a kernel parameter (__grid_constant__,
// 72 bytes, computed on the host per call) and each block builds its weight tables from
// them in shared memory, so concurrent slots with different parameters share nothing.
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
__device__ __forceinline__ void bilateralBlock(ConstRgbaView in, RgbaView out, BorderMode border,
                                               const Tables& tab) {
  extern __shared__ float4 bilateralSmem[];
  const BilateralBlock<R, K> b(bilateralSmem, int(blockIdx.x), int(blockIdx.y));
  bilateralStage(b, in, border, tab, int(threadIdx.x));
  __syncthreads();
  bilateralOutputs(b, in, out, int(threadIdx.x));
}

// ptxas's register choice follows the launch bound, and with it the row loop's code: at
// K = 8, r <= 14 a 256-thread bound gives 64 registers and the tap code measured at e09c2f6,
// a 416-thread bound 65 and 9 more instructions a row at r = 5. So those kernels are capped
// at 64 registers instead (the same row loop, instruction for instruction; 2 blocks of 416
// or 1 of 512 threads fit). K = 4 (256 threads) keeps its bound; r = 15, K = 8 (384
// threads) takes 80 registers under its bound, 16 instructions more in a 248-tap row than
// the 166 registers of 256 threads.
template <int R, int K>
__global__ void __launch_bounds__(BilateralLayout<R, K>::kThreads)
    bilateralKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ Tables tab) {
  bilateralBlock<R, K>(in, out, border, tab);
}
template <int R, int K>
__global__ void __maxnreg__(64)
    bilateralKernel64(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ Tables tab) {
  bilateralBlock<R, K>(in, out, border, tab);
}

using Kernel = void (*)(ConstRgbaView, RgbaView, BorderMode, const Tables);
constexpr int kRadii = kMaxBilateralRadius - kMinBilateralRadius + 1;
constexpr int kColumnVariants = int(sizeof(kBilateralColumnChoices) / sizeof(kBilateralColumnChoices[0]));

// One kernel instance: its shared memory and block shape.
struct KernelInfo {
  Kernel kernel;
  size_t bytes;    // dynamic shared memory a block
  int threadRows;  // the block is kThreadCols x threadRows threads, the tile K kThreadCols x threadRows
};

template <int R, int K>
constexpr KernelInfo infoOf() {
  using Layout = BilateralLayout<R, K>;
  if constexpr (K == 8 && R < 15)
    return {bilateralKernel64<R, K>, Layout::kBytes, Layout::kThreadRows};
  else
    return {bilateralKernel<R, K>, Layout::kBytes, Layout::kThreadRows};
}

// The kernel of radius r and columns-per-thread index v (kBilateralColumnChoices[v]).
template <int... I>
KernelInfo kernelFor(int r, int v, std::integer_sequence<int, I...>) {
  constexpr KernelInfo kTable[] = {
      infoOf<I / kColumnVariants + kMinBilateralRadius, kBilateralColumnChoices[I % kColumnVariants]>()...};
  return kTable[(r - kMinBilateralRadius) * kColumnVariants + v];
}
KernelInfo kernelFor(int r, int v) {
  return kernelFor(r, v, std::make_integer_sequence<int, kRadii * kColumnVariants>{});
}

int columnVariant(int columns) {
  for (int v = 0; v < kColumnVariants; ++v)
    if (kBilateralColumnChoices[v] == columns) return v;
  return -1;
}

// Allows every kernel its shared memory (above the default 48 KB where needed) and asks
// for the largest shared-memory carveout: the occupancy bilateralThreadRows counts on
// (3 blocks of up to 72 KB at r <= 4, 2 of 106 KB at r = 5) needs nearly all 228 KB of an H100 SM.
void prepareKernels(size_t sharedOptin) {
  for (int r = kMinBilateralRadius; r <= kMaxBilateralRadius; ++r)
    for (int v = 0; v < kColumnVariants; ++v) {
      const auto [kernel, bytes, threadRows] = kernelFor(r, v);
      if (bytes > sharedOptin)
        throw std::invalid_argument("BilateralWorkspace: the device allows " + std::to_string(sharedOptin) +
                                    " bytes of shared memory per block, radius " + std::to_string(r) +
                                    " needs " + std::to_string(bytes));
      VP_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
      VP_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributePreferredSharedMemoryCarveout,
                                         int(cudaSharedmemCarveoutMaxShared)));
    }
}

void launch(ConstRgbaView in, RgbaView out, const BilateralParams& p, int columns, cudaStream_t stream) {
  const auto [kernel, bytes, threadRows] = kernelFor(p.radius, columnVariant(columns));
  const int tileCols = kThreadCols * columns;
  const dim3 grid((in.width + tileCols - 1) / tileCols, (in.height + threadRows - 1) / threadRows);
  launchKernel(kernel, grid, dim3(kThreadCols * threadRows), bytes, stream, false, in, out, p.border,
               makeTables(p));
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
