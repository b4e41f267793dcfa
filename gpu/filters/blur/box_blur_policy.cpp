// The shipped box blur configurations and the choice between them (box_blur_policy.h).
// Figures: H200 unless said, replicate border, one pass, CUDA events around the whole call.
#include "gpu/filters/blur/box_blur_policy.h"

#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/blur_strips.h"

namespace vp {

const char* blurPassName(BlurPass pass) {
  switch (pass) {
    case BlurPass::Strips:
      return "strips";
    case BlurPass::Fused:
      return "fused";
    case BlurPass::FusedStacked:
      return "fused-stacked";
    case BlurPass::Slide:
      return "slide";
    case BlurPass::SlideWide:
      return "slide-wide";
    case BlurPass::WholeColumns:
      return "columns";
  }
  return "?";
}

BoxBlurPolicy selectBoxBlurPolicy(size_t columnSharedBytes, int width, int height, int radius) {
  // Tall frames (4K) get whole-column blocks narrower than 8 columns: a warp then reads
  // 16-byte row segments, and the two-pass forms lose to the stacked fused pass at every
  // radius; on short frames (1080p) the fused pass's first windows cost more, and it wins up
  // to r = 15.
  const bool tall = blur::columnsPerBlock(height, columnSharedBytes) < 8;
  BoxBlurPolicy p{};
  if (width > 32 * blur::kRowChunk) {
    p.row = BlurRowPass::Chunked;
    p.rowEvidence = "rows wider than 4096 pixels: the register scan holds at most 32 warps x 1 chunk of 128";
  } else if (width > 16 * blur::kRowChunk) {
    p.row = BlurRowPass::Warps32;
    p.rowEvidence = "BM_BoxBlurGpuVariant 4K r 15: 32 warps x 1 chunk 3 us faster than 16 x 2";
  } else {
    p.row = BlurRowPass::Warps8;
    p.rowEvidence = "BM_BoxBlurGpuVariant 1080p r 15: 8 warps x 2 chunks 1.3 us faster than 16 x 1";
  }
  if (radius <= blur::kMaxStripRadius) {
    p.pass = BlurPass::Strips;
    p.evidence =
        "BM_BoxBlurGpuPass (H100, batched) strips against fused: 1080p r 1 / 2 9.4 / 11.2 us against "
        "16.1 / 17.2; two columns a lane from r 3: 1080p r 3 / 4 / 5 10.0 / 10.9 / 12.5 us, 4K r 5 40.0 "
        "against fused 51.9";
  } else if (tall) {
    p.pass = BlurPass::FusedStacked;
    p.evidence =
        "BM_BoxBlurGpuPass (H100, batched): 4K r 15 / 50 / 100 / 128 51.4 / 62.2 / 71.6 / 80.7 us (84411f5); "
        "one segment a block 57.3 / 79.4 at r 15 / 50 (0a436b0), slide-wide 105 at r 100, whole columns 107 "
        "at r 101..128";
  } else if (radius <= 15) {
    p.pass = BlurPass::Fused;
    p.evidence =
        "BM_BoxBlurGpuPass (H100, batched): 1080p r 15 20.9 us against slide 23.3, r 50 39.6 against "
        "columns 24.3; r 6 / 15 15.4 / 20.7 against stacked 16.5 / 21.0";
  } else {
    p.pass = BlurPass::WholeColumns;
    p.evidence =
        "BM_BoxBlurGpuVariant col 1 against BM_BoxBlurGpuSlide: 1080p r 50 28 us against 36 sliding; whole "
        "columns "
        "cost the same at any r (4K 107-110 us at r 1-100)";
  }
  p.name = blurPassName(p.pass);
  return p;
}

}  // namespace vp
