// Box blur's passes (internal to gpu/blur*.cu and box_blur_policy.cpp): the host launchers
// of the kernels, each kernel family in a file of its own, and the shared-memory sizes the
// workspace and the policy plan with. Every launcher takes checked arguments (boxBlurGpu
// checks them) and radius >= 1; `pdl` launches it with programmatic dependent launch (the
// kernel may be scheduled while the previous one on the stream drains).
#pragma once

#include "gpu/filters/blur/box_blur.h"
#include "gpu/image.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace vp::blur {

// ---- column passes (blur_column.cu): vertical window sums of `in` into `sums`
constexpr int kColumnThreads = 1024;             // whole-column block: cw columns x segments
constexpr size_t kColumnSmemTarget = 100 << 10;  // bytes: two whole-column blocks per SM (sm_90: 227 KB)

// Dynamic shared memory of a whole-column block of cw columns on an h-row frame, bytes:
// the (h+1)-entry prefix per column, the segment totals, the alpha bytes.
inline size_t columnSmemBytes(int h, int cw) {
  const int segments = kColumnThreads / cw;
  return (size_t(h) + 1) * cw * sizeof(uint64_t) + size_t(segments) * cw * sizeof(uint64_t) + size_t(h) * cw;
}
// Columns per whole-column block: the most of 8, 4, 2 whose prefix keeps two blocks per SM
// within `optin` bytes; 1 otherwise (the workspace checked that one column fits).
inline int columnsPerBlock(int h, size_t optin) {
  const size_t budget = optin < kColumnSmemTarget ? optin : kColumnSmemTarget;
  for (int cw = 8; cw > 1; cw /= 2)
    if (columnSmemBytes(h, cw) <= budget) return cw;
  return 1;
}

// Allows the whole-column kernel the dynamic shared memory the device's opt-in limit
// leaves beside its static part; returns that many bytes.
size_t prepareColumnPasses(size_t sharedOptin);
// Sliding window, one column and a segment of rows per thread; `wide`: loads issued 8 rows
// at a time and the first window 16 (for r > 32), else 4.
void launchSlideColumns(bool wide, ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border,
                        bool pdl, cudaStream_t stream);
// Whole columns per block, the column prefix in shared memory (`optin`: prepareColumnPasses' bytes).
void launchWholeColumns(ConstRgbaView in, ImageView<ushort4> sums, int radius, BorderMode border,
                        size_t optin, bool pdl, cudaStream_t stream);

// ---- row passes (blur_row.cu): horizontal window sums of the column sums, divided, into `out`
constexpr int kRowItems = 4;               // consecutive sums per lane in the row scan
constexpr int kRowChunk = 32 * kRowItems;  // sums per warp step

// 3 pad words + w+1 entries per channel, rounded to a 16-byte multiple.
__host__ __device__ inline int rowPrefixWords(int w) { return (w + 4 + 3) & ~3; }
inline size_t rowSmemBytes(int w) { return size_t(3) * rowPrefixWords(w) * sizeof(uint32_t) + size_t(w); }

// Allows every row kernel the dynamic shared memory the opt-in limit leaves beside its
// static part; returns the bytes a row pass may use.
size_t prepareRowPasses(size_t sharedOptin);
void launchRowPass(BlurRowPass row, ImageView<const ushort4> sums, RgbaView out, int radius,
                   BorderMode border, bool pdl, cudaStream_t stream);

// ---- fused pass (blur_fused.cu): both axes in one kernel, no sums buffer; `stacked`: four row
// segments a block, one above the other (BlurPass::FusedStacked)
// Allows the stacked form its dynamic shared memory: 56 KB (within every sm_75+ opt-in limit),
// and up to the opt-in limit where it keeps its rows' alpha (4 KB a segment row);
// returns the bytes a stacked block may use.
size_t prepareFusedPasses(size_t sharedOptin);
// The device as the fused pass sizes its grid (multiprocessors) and its shared memory (the
// bytes prepareFusedPasses returned).
struct FusedLimits {
  int smCount = 1;
  size_t stackedShared = 0;
};
void launchFusedPass(bool stacked, ConstRgbaView in, RgbaView out, int radius, BorderMode border,
                     const FusedLimits& limits, bool pdl, cudaStream_t stream);

// ---- strip pass (blur_strips.cu): both axes in one kernel, a warp a strip of columns, no
// shared memory; radius 1..kMaxStripRadius (blur_strips.h), std::invalid_argument beyond
void launchStripPass(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl,
                     cudaStream_t stream);

}  // namespace vp::blur
