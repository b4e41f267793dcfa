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
  // radius. On short frames (1080p, 720p) the stacked pass's 1024-thread blocks are too few
  // to beat one segment a block below r = 10, and its first windows, though split among its
  // groups, cost more than flat whole columns past r = 40 (at 1080p r 50 a tie).
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
  } else if (radius < 10) {
    p.pass = BlurPass::Fused;
    p.evidence =
        "BM_BoxBlurGpuPass (H100, batched, 356271c): 1080p r 6 15.5 us against stacked 16.5 and slide 20.6, "
        "r 10 17.8 against stacked 17.5; 720p r 6 11.1 against stacked 11.4";
  } else if (radius <= 40) {
    p.pass = BlurPass::FusedStacked;
    p.evidence =
        "BM_BoxBlurGpuPass (H100, batched, 356271c): 1080p r 10 / 15 / 30 17.5 / 18.7 / 21.9 us against one "
        "segment a block 17.8 / 20.8 / - and whole columns - / - / 24.1; with 6-warp groups (28da05a) 1080p "
        "r 35 / 40 / 50 22.7 / 23.1 / 24.6 against columns 23.9 / 23.9 / 24.2, 720p r 30 13.8 against 16.8";
  } else {
    p.pass = BlurPass::WholeColumns;
    p.evidence =
        "BM_BoxBlurGpuPass (H100, batched, 356271c, 957ad1d): 1080p r 50 / 100 / 128 24.2 / 25.2 / 24.8 us "
        "against the stacked pass (6-warp groups, 28da05a) 24.6 / 34.8 / -; 720p r 50 / 100 16.6 / 16.9 "
        "against 18.8 / -; flat in r";
  }
  p.name = blurPassName(p.pass);
  return p;
}

}  // namespace vp
