// Box blur launch policy: which of the shipped pass configurations a call runs.
//
// selectBoxBlurPolicy() is the one place that decides; boxBlurGpu() calls it on every call
// and the benchmarks call it to name what they time, so a benchmark figure is the
// configuration the application runs. By frame size and radius (r >= 1; r = 0 is a copy):
//
//   strips         one kernel per pass for both axes, a warp a strip of columns, no shared
//                  memory (blur_strips.cu): r <= 5
//   fused          one kernel per pass for both axes (blur_fused.cu): 5 < r < 10 on short
//                  frames
//   fused-stacked  the same with four row segments a block, one above the other (their first
//                  windows share rows; groups of 6 warps where their tiles need fewer
//                  threads): tall frames (whole-column blocks narrower than 8 columns: 4K),
//                  r > 5; short frames, 10 <= r <= 40
//   slide          two passes, the sliding-window column pass, loads 4 rows at a time: no
//                  longer chosen (the fused pass beat it at 1080p r 15); forced by the tests
//                  and BM_BoxBlurGpuPass
//   slide-wide     the same with loads 8 rows at a time and the first window 16: no longer
//                  chosen (the stacked fused pass beat it at 4K r 64..100); forced by the tests
//                  and BM_BoxBlurGpuPass
//   columns        two passes, whole columns per block with the prefix in shared memory:
//                  short frames, r > 40
//
// The two-pass configurations' row pass goes by width (BlurRowPass). Measured alternatives
// that were dropped: docs/design/box_blur.md. Results never depend on the policy: every
// configuration is bit-exact with the CPU twin. The benchmarks an evidence line names are
// those of tests/bench at commit faf8ca1, where every alternative could still be selected.
#pragma once

#include <cstddef>

namespace vp {

enum class BlurPass { Strips, Fused, FusedStacked, Slide, SlideWide, WholeColumns };
// Row pass of the two-pass configurations: a register scan by 8 warps (rows up to 2048
// pixels) or 32 warps (up to 4096), else a chunked scan through shared memory.
enum class BlurRowPass { Warps8, Warps32, Chunked };

struct BoxBlurPolicy {
  const char* name;      // blurPassName(pass)
  const char* evidence;  // the measurement that chose the pass (figure and benchmark)
  BlurPass pass;
  BlurRowPass row;          // unused by the one-kernel passes (strips, fused, fused-stacked)
  const char* rowEvidence;  // the measurement that chose the row pass
};

// A pass's name, as the policy, the benchmark labels and the tests write it: "strips", "fused",
// "fused-stacked", "slide", "slide-wide" or "columns".
const char* blurPassName(BlurPass pass);

// The policy for a width x height frame at radius >= 1, given the dynamic shared memory a
// whole-column block may use on this device (bytes; BoxBlurWorkspace knows it).
BoxBlurPolicy selectBoxBlurPolicy(size_t columnSharedBytes, int width, int height, int radius);

}  // namespace vp
