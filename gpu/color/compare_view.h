// The compare view: the unprocessed (converted) frame and the processed one composed into
// packed RGB24, in the pass that packs the output anyway (no extra pass, no extra copy).
//
//   Split: width w. Column x < c shows the original, x >= c the processed frame, with
//          c = splitColumn(split, w); columns c-1 and c (those inside the frame) are painted
//          kCompareLine: the line between them.
//   Side:  width 2w. x < w: the original at x; x >= w: the processed frame at x - w.
//
// Alpha is dropped as in rgbaToRgb24. GPU and CPU twin write the same bytes.
#pragma once

#include "gpu/image.h"
#include "gpu/color/compare_mode.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace vp {

constexpr uint8_t kCompareLine = 255;  // the split line's grey level

// The first column of the processed side for a split at `split` (0..1) of `width`:
// round(split * width), clamped to 0..width.
int splitColumn(float split, int width);
// Pixels wide the composed view is for frames `width` wide.
int compareWidth(CompareMode mode, int width);

// original, processed: device views of one size. dst: device memory, frame height rows of
// 3 * compareWidth(mode, width) bytes, dstPitch apart. mode must not be Off (that is
// rgbaToRgb24Gpu). Throws std::invalid_argument on bad arguments.
void composeCompareGpu(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                       uint8_t* dst, size_t dstPitch, cudaStream_t stream);
// CPU twin: host memory, the same bytes.
void composeCompareCpu(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                       uint8_t* dst, size_t dstPitch);

namespace detail {
void checkCompareArgs(ConstRgbaView original, ConstRgbaView processed, CompareMode mode, float split,
                      const uint8_t* dst, size_t dstPitch, const char* who);

// The source pixel of output column x (the line aside): original (false) or processed.
__host__ __device__ inline bool compareTakesProcessed(CompareMode mode, int x, int width, int column) {
  return mode == CompareMode::Side ? x >= width : x >= column;
}
__host__ __device__ inline bool compareIsLine(CompareMode mode, int x, int column) {
  return mode == CompareMode::Split && (x == column - 1 || x == column);
}
// Output pixel (x, y) of the view, as the contract above defines it.
__host__ __device__ inline uchar4 comparePixel(ConstRgbaView original, ConstRgbaView processed, CompareMode mode,
                                               int x, int y, int column) {
  const int w = original.width;
  if (compareIsLine(mode, x, column)) return make_uchar4(kCompareLine, kCompareLine, kCompareLine, 255);
  if (compareTakesProcessed(mode, x, w, column)) return processed.row(y)[mode == CompareMode::Side ? x - w : x];
  return original.row(y)[x];
}
}  // namespace detail

}  // namespace vp
