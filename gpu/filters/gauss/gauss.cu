// Gaussian blur on CUDA (gauss.h): the kernels (each a thin wrapper of the phases in
// gauss_tiles.h or gauss_mma.cuh, a barrier between phases), the workspace and the dispatch.
// The taps travel as kernel parameters (__grid_constant__: read in place from the constant
// bank, all threads of a warp the same word), recomputed on the host only when sigma
// changes, so concurrent slots with different sigmas never share a buffer.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/filters/gauss/gauss.h"
#include "gpu/filters/gauss/gauss_math.h"
#include "gpu/filters/gauss/gauss_mma.cuh"
#include "gpu/filters/gauss/gauss_strips.h"
#include "gpu/filters/gauss/gauss_tiles.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vp {
namespace gauss {
namespace {

// Fused path: one 64-column output tile per block (gauss_tiles.h).
__global__ void __launch_bounds__(kThreads)
    fusedKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ GaussTaps rowTaps,
                const __grid_constant__ GaussTaps columnTaps) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  extern __shared__ uint4 fusedSmem[];
  const FusedBlock b(fusedSmem, FusedLayout(rowTaps.radius), int(blockIdx.x), int(blockIdx.y));
  fusedStage(b, in, border, int(threadIdx.x));
  __syncthreads();
  fusedRows(b, rowTaps, in.width, int(threadIdx.x));
  __syncthreads();
  fusedColumns(b, columnTaps, out, int(threadIdx.x));
}

// Tensor-core path: one kMmaCols x tileRows output tile per block (gauss_mma.cuh). Steps:
// k-steps of 32 samples (1 for R <= 8, 2 beyond); the register budget lets 4 and 3 blocks
// share an SM, as their shared memory does.
template <int Steps>
__global__ void __launch_bounds__(kMmaThreads, Steps == 1 ? 4 : 3)
    mmaKernel(ConstRgbaView in, RgbaView out, BorderMode border, const __grid_constant__ MmaTaps taps, bool vectors) {
  waitForPriorGrid();  // programmatic dependent launch (launch.cuh): before any memory access
  releaseNextGrid();
  extern __shared__ uint4 mmaSmem[];
  mma::blurTile<Steps>(reinterpret_cast<unsigned char*>(mmaSmem), in, out, border, taps, vectors,
                       int(blockIdx.x) * kMmaCols, int(blockIdx.y) * MmaLayout(taps.radius).tileRows, int(threadIdx.x));
}

// Two-pass path, rows: H of `tileRows` rows x kRowCols columns per block.
__global__ void __launch_bounds__(kThreads)
    rowKernel(ConstRgbaView in, ImageView<ushort4> sums, BorderMode border, int tileRows,
              const __grid_constant__ GaussTaps taps) {
  waitForPriorGrid();  // as every filter kernel (launch.cuh)
  releaseNextGrid();  // the column kernel may be scheduled now; it waits for this grid to finish
  extern __shared__ uint4 rowSmem[];
  const RowBlock b(rowSmem, RowLayout(taps.radius, tileRows), int(blockIdx.x), int(blockIdx.y));
  rowStage(b, in, border, int(threadIdx.x));
  __syncthreads();
  rowSums(b, taps, in.width, in.height, int(threadIdx.x));
  __syncthreads();
  rowStore(b, sums, int(threadIdx.x));
}

// Two-pass path, columns: kColumnCols x kColumnRows outputs per block, from H in global memory.
__global__ void __launch_bounds__(kThreads)
    columnKernel(ImageView<const ushort4> sums, RgbaView out, BorderMode border,
                 const __grid_constant__ GaussTaps taps) {
  waitForPriorGrid();  // H complete (a no-op when launched without programmatic dependency)
  columnOutputs(sums, out, taps, border, int(blockIdx.x), int(blockIdx.y), int(threadIdx.x));
}

int blocks(int n, int per) { return (n + per - 1) / per; }

// Allows the fused and row kernels the dynamic shared memory the opt-in limit leaves
// beside their static part; returns that many bytes.
size_t prepareKernels(size_t sharedOptin) {
  const void* kernels[] = {reinterpret_cast<const void*>(fusedKernel), reinterpret_cast<const void*>(rowKernel),
                           reinterpret_cast<const void*>(mmaKernel<1>), reinterpret_cast<const void*>(mmaKernel<2>)};
  size_t usable = sharedOptin;
  for (const void* k : kernels) {
    cudaFuncAttributes attr{};
    VP_CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
    usable = std::min(usable, sharedOptin - attr.sharedSizeBytes);
  }
  for (const void* k : kernels)
    VP_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(usable)));
  return usable;
}

void launchMma(ConstRgbaView in, RgbaView out, BorderMode border, const MmaTaps& taps, bool pdl,
               cudaStream_t stream) {
  const MmaLayout layout(taps.radius);
  const dim3 grid(blocks(in.width, kMmaCols), blocks(in.height, layout.tileRows));
  // 4 pixels as one 16-byte load or store where every group of 4 starts on a 16-byte boundary.
  const auto aligned = [](const void* p, size_t pitch) { return reinterpret_cast<uintptr_t>(p) % 16 == 0 && pitch % 16 == 0; };
  const bool vectors = aligned(in.data, in.pitch) && aligned(out.data, out.pitch);
  launchKernel(layout.steps == 1 ? mmaKernel<1> : mmaKernel<2>, grid, dim3(kMmaThreads), layout.bytes(),
               stream, pdl, in, out, border, taps, vectors);
}

void launchFused(ConstRgbaView in, RgbaView out, BorderMode border, const GaussTaps& rowTaps,
                 const GaussTaps& columnTaps, bool pdl, cudaStream_t stream) {
  const FusedLayout layout(rowTaps.radius);
  const dim3 grid(blocks(in.width, kFusedCols), blocks(in.height, layout.tileRows));
  launchKernel(fusedKernel, grid, dim3(kThreads), layout.bytes(), stream, pdl, in, out, border, rowTaps,
               columnTaps);
}

void launchTwoPass(ConstRgbaView in, RgbaView out, ImageView<ushort4> sums, BorderMode border,
                   const GaussTaps& rowTaps, const GaussTaps& columnTaps, size_t sharedOptin, bool pdl,
                   cudaStream_t stream) {
  const int tileRows = rowTileRows(rowTaps.radius, sharedOptin);
  launchKernel(rowKernel, dim3(blocks(in.width, kRowCols), blocks(in.height, tileRows)), dim3(kThreads),
               RowLayout(rowTaps.radius, tileRows).bytes(), stream, pdl, in, sums, border, tileRows, rowTaps);
  const ImageView<const ushort4> rowSums = sums;
  launchKernel(columnKernel, dim3(blocks(in.width, kColumnCols), blocks(in.height, kColumnRows)), dim3(kThreads),
               0, stream, pdl, rowSums, out, border, columnTaps);
}

}  // namespace
}  // namespace gauss

struct GaussWorkspaceAccess {
  // The two-pass path's row sums, allocated for the largest frame at their first use.
  static ImageView<ushort4> sums(GaussWorkspace& ws, int width, int height) {
    if (!ws.sums_.get())
      ws.sums_ = DevicePitchedBuffer(size_t(ws.maxWidth_) * sizeof(ushort4), size_t(ws.maxHeight_));
    return {static_cast<ushort4*>(ws.sums_.get()), ws.sums_.pitch(), width, height};
  }
  static size_t sharedOptin(const GaussWorkspace& ws) { return ws.sharedOptin_; }
  static bool pdl(const GaussWorkspace& ws) { return ws.pdl_; }
  static bool tensorCores(const GaussWorkspace& ws) { return ws.tensorCores_; }
  // The taps for `sigma`, recomputed on the host only when it differs from the last call's.
  static void updateTaps(GaussWorkspace& ws, double sigma) {
    if (ws.sigma_ == sigma) return;
    ws.rowTaps_ = makeGaussTaps(sigma, kGaussRowBits);
    ws.columnTaps_ = makeGaussTaps(sigma, kGaussColumnBits);
    ws.mmaTaps_ = gauss::makeMmaTaps(ws.rowTaps_, ws.columnTaps_);
    ws.sigma_ = sigma;
  }
  static const GaussTaps& rowTaps(const GaussWorkspace& ws) { return ws.rowTaps_; }
  static const GaussTaps& columnTaps(const GaussWorkspace& ws) { return ws.columnTaps_; }
  static const gauss::MmaTaps& mmaTaps(const GaussWorkspace& ws) { return ws.mmaTaps_; }
};

GaussWorkspace::GaussWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxGaussDimension, "GaussWorkspace");
  int device = 0, optin = 0, major = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  pdl_ = pdlAvailable();
  tensorCores_ = major >= 8;
  sharedOptin_ = gauss::prepareKernels(size_t(optin));
  if (gauss::RowLayout(kMaxGaussRadius, gauss::kRowTileRows[2]).bytes() > sharedOptin_)
    throw std::invalid_argument("GaussWorkspace: this device has too little shared memory per block");
}

GaussPath GaussWorkspace::path(double sigma) const {
  return gauss::selectGaussPath(gaussRadius(sigma), sharedOptin_, tensorCores_);
}

bool GaussWorkspace::runs(GaussPath path, double sigma) const {
  return gauss::gaussPathRuns(path, gaussRadius(sigma), sharedOptin_, tensorCores_);
}

namespace {

void run(ConstRgbaView in, RgbaView out, const GaussParams& params, const GaussPath* forced, GaussWorkspace& ws,
         cudaStream_t stream) {
  if (!gauss::checkGaussArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "gaussGpu")) return;
  const int radius = gaussRadius(params.sigma);
  const size_t optin = GaussWorkspaceAccess::sharedOptin(ws);
  const GaussPath path = forced ? *forced : ws.path(params.sigma);
  if (!ws.runs(path, params.sigma))
    throw std::invalid_argument(std::string("gaussGpu: the ") + gaussPathName(path) + " path cannot run radius " +
                                std::to_string(radius) + " on this device");
  GaussWorkspaceAccess::updateTaps(ws, params.sigma);
  const GaussTaps& rowTaps = GaussWorkspaceAccess::rowTaps(ws);
  const GaussTaps& columnTaps = GaussWorkspaceAccess::columnTaps(ws);
  const bool pdl = GaussWorkspaceAccess::pdl(ws);
  if (path == GaussPath::Strips) {
    gauss::launchStrips(in, out, params.border, rowTaps, columnTaps, pdl, stream);
  } else if (path == GaussPath::Mma) {
    gauss::launchMma(in, out, params.border, GaussWorkspaceAccess::mmaTaps(ws), pdl, stream);
  } else if (path == GaussPath::Fused) {
    gauss::launchFused(in, out, params.border, rowTaps, columnTaps, pdl, stream);
  } else {
    const ImageView<ushort4> sums = GaussWorkspaceAccess::sums(ws, in.width, in.height);
    gauss::launchTwoPass(in, out, sums, params.border, rowTaps, columnTaps, optin, pdl, stream);
  }
}

}  // namespace

void gaussGpu(ConstRgbaView in, RgbaView out, const GaussParams& params, GaussWorkspace& ws, cudaStream_t stream) {
  run(in, out, params, nullptr, ws, stream);
}

void detail::gaussGpuWithPath(ConstRgbaView in, RgbaView out, const GaussParams& params, GaussPath path,
                              GaussWorkspace& ws, cudaStream_t stream) {
  run(in, out, params, &path, ws, stream);
}

}  // namespace vp
