// Median filter on CUDA (median.h): the workspace and the dispatch to the methods
// (median_network.cu for small r, median_histogram.cu for the rest).
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/median/median.h"
#include "gpu/filters/median/median_kernels.h"
#include "gpu/filters/median/median_math.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vp {

struct MedianWorkspaceAccess {
  static int smCount(const MedianWorkspace& ws) { return ws.smCount_; }
  static int blocksPerSm(const MedianWorkspace& ws, bool wide, bool plain) {
    return ws.blocksPerSm_[int(wide) * 2 + int(plain)];
  }
};

MedianWorkspace::MedianWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  checkDimensions(maxWidth, maxHeight, kMaxMedianDimension, "MedianWorkspace");
  int device = 0, optin = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&smCount_, cudaDevAttrMultiProcessorCount, device));
  if (size_t(optin) < median::histogramSmemBytes(true))
    throw std::invalid_argument("MedianWorkspace: the device allows " + std::to_string(optin) +
                                " bytes of shared memory per block, the histograms need " +
                                std::to_string(median::histogramSmemBytes(true)));
  for (int wide = 0; wide < 2; ++wide)
    for (int plain = 0; plain < 2; ++plain)
      blocksPerSm_[wide * 2 + plain] = std::max(1, median::prepareHistogram(wide != 0, plain == 0));
}

namespace {

// Output rows per histogram thread. Blocks run in waves of `resident` (all take about
// the same time), and each segment pays a first window of (2r+1)^2 samples besides its
// 2(2r+1) per row (plus ~8 for the search): among grids of k = 1..8 nearly full waves,
// the one with the least modelled cost per multiprocessor. (On the H200 at 1080p r = 15:
// one wave of 135-row segments 0.80 ms, against 1.27 ms for 120-row segments whose last
// 12 blocks made a second wave.)
int rowsPerSegment(const MedianWorkspace& ws, int width, int height, int r, bool wide, bool plain) {
  const int columnBlocks = (width + median::kHistColumns - 1) / median::kHistColumns;
  const int resident =
      MedianWorkspaceAccess::smCount(ws) * MedianWorkspaceAccess::blocksPerSm(ws, wide, plain);
  const long long side = 2 * r + 1;
  long long bestCost = -1;
  int best = height;
  for (int k = 1; k <= 8; ++k) {
    const int wanted = std::max(1, k * resident / columnBlocks);  // segments per column strip
    const int rows = (height + wanted - 1) / wanted;
    const int segments = (height + rows - 1) / rows;
    const long long waves = (static_cast<long long>(columnBlocks) * segments + resident - 1) / resident;
    const long long cost = waves * (side * side + rows * (2 * side + 8));
    if (bestCost < 0 || cost < bestCost) {
      bestCost = cost;
      best = rows;
    }
  }
  return best;
}

void run(ConstRgbaView in, RgbaView out, const MedianParams& p, const detail::MedianTuning& tuning,
         MedianWorkspace& ws, cudaStream_t stream) {
  switch (tuning.method) {
    case MedianMethod::Network:
      median::launchNetwork(in, out, p.radius, p.border, tuning.channelsTogether, stream);
      return;
    case MedianMethod::Strips:
      median::launchStrips(in, out, p.radius, p.border, stream);
      return;
    case MedianMethod::Sorted:
      median::launchSorted(in, out, p.radius, p.border, stream);
      return;
    case MedianMethod::Histogram:
    case MedianMethod::HistogramWide: {
      const bool wide = tuning.method == MedianMethod::HistogramWide;
      const int rows = tuning.rowsPerSegment > 0
                           ? tuning.rowsPerSegment
                           : rowsPerSegment(ws, in.width, in.height, p.radius, wide, tuning.plainUpdates);
      median::launchHistogram(in, out, p.radius, p.border, wide, !tuning.plainUpdates, rows, stream);
      return;
    }
  }
  throw std::invalid_argument("medianGpu: unknown method");
}

}  // namespace

void medianGpu(ConstRgbaView in, RgbaView out, const MedianParams& params, MedianWorkspace& ws,
               cudaStream_t stream) {
  if (!median::checkMedianArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "medianGpu")) return;
  detail::MedianTuning tuning;
  tuning.method = ws.method(params.radius);
  run(in, out, params, tuning, ws, stream);
}

void detail::medianGpuTuned(ConstRgbaView in, RgbaView out, const MedianParams& params,
                            const MedianTuning& tuning, MedianWorkspace& ws, cudaStream_t stream) {
  if (!median::checkMedianArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "medianGpuTuned")) return;
  if (!medianMethodSupports(tuning.method, params.radius))
    throw std::invalid_argument(std::string("medianGpuTuned: method ") + medianMethodName(tuning.method) +
                                " does not support radius " + std::to_string(params.radius));
  if (tuning.rowsPerSegment < 0) throw std::invalid_argument("medianGpuTuned: negative rowsPerSegment");
  run(in, out, params, tuning, ws, stream);
}

}  // namespace vp
