// The median's launchers (median_network.cu, median_histogram.cu) as median.cu
// dispatches them. Arguments are checked by the caller; each launcher checks its launch.
#pragma once

#include "gpu/filters/median/median_params.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace vp::median {

// Forgetful selection, r = 1..kMaxNetworkRadius: a 256-thread block per 64 x 16 outputs.
// channelsTogether: the three channels' networks interleaved (more registers, more
// independent instructions) instead of one after the other.
void launchNetwork(ConstRgbaView in, RgbaView out, int r, BorderMode border, bool channelsTogether,
                   cudaStream_t stream);

// Warp strips, r = 1..kMaxStripMedianRadius: the same selection on samples in registers,
// a warp per 60 x 8 outputs (median_strips.h).
void launchStrips(ConstRgbaView in, RgbaView out, int r, BorderMode border, cudaStream_t stream);

// Sorted columns, r = kMinSortedMedianRadius..kMaxSortedMedianRadius: the columns' windows
// sorted and merged, a warp per 60 x 8 (r = 2) or 56 x 8 (r = 3) outputs (median_sorted.h).
void launchSorted(ConstRgbaView in, RgbaView out, int r, BorderMode border, cudaStream_t stream);

// Sliding histograms: a 96-thread block (32 columns x 3 channels) per column strip and
// segment of rows. `wide`: 16-bit counters (any r), else 8-bit ((2r+1)^2 <= 255).
constexpr int kHistColumns = 32;                // output columns per block
constexpr int kHistThreads = 3 * kHistColumns;  // one warp per channel
size_t histogramSmemBytes(bool wide);           // dynamic shared memory per block
// Allows the kernels their shared memory (once per device) and returns the resident
// blocks per multiprocessor of the variant (wide, atomic).
int prepareHistogram(bool wide, bool atomic);
// rowsPerSegment >= 1: output rows each thread slides through.
void launchHistogram(ConstRgbaView in, RgbaView out, int r, BorderMode border, bool wide, bool atomic,
                     int rowsPerSegment, cudaStream_t stream);

}  // namespace vp::median
