#include "gpu/filters/blur/blur_filter.h"

#include "gpu/filters/common/stateless_filter.h"

namespace vp {
namespace {

struct BlurDecl {
  using Params = BlurParams;
  using Workspace = BoxBlurWorkspace;
  using Scratch = BoxBlurCpuScratch;
  static constexpr bool kWorkspacePerSlot = true;  // the column sums: slots blur concurrently
  static constexpr ParamOption<BlurParams> kOptions[] = {
      bindOption<&BlurParams::radius>(
          {"r", OptionType::Int, 0, kMaxBlurRadius, 5, nullptr, "radius in pixels (0: identity)", 0, true}),
      bindOption<&BlurParams::passes>(
          {"passes", OptionType::Int, 1, kMaxBlurPasses, 1, nullptr, "box passes (3 ~ Gaussian)", 1, true}),
      bindOption<&BlurParams::border>(kBorderOption),
  };
  static void gpu(ConstRgbaView in, RgbaView out, const Params& p, Workspace& ws, cudaStream_t stream) {
    boxBlurGpu(in, out, p, ws, stream);
  }
  static void cpu(ConstRgbaView in, RgbaView out, const Params& p, Scratch& scratch) {
    boxBlurCpu(in, out, p, scratch);
  }
};
using Blur = StatelessFilter<BlurDecl>;

constexpr OptionCommand kCommands[] = {
    {"radius", "r", "radius in pixels"},
    {"passes", "passes", "passes"},
    {"border", "border", "border mode"},
};

constexpr KeyBinding kKeys[] = {
    {"r", "radius -1", "blur radius -1"},
    {"shift+r", "radius +1", "blur radius +1"},
    {"b", "passes cycle", "blur passes 1..3"},
    {"e", "border cycle", "blur border mode"},
    {"2", "mode blur", "chain: box blur"},
};

}  // namespace

const FilterInfo kBlurFilter = Blur::info(
    "blur", "box blur: the mean of the (2r+1)x(2r+1) window, O(1) per pixel whatever r", "r", kCommands, kKeys);

BlurParams blurParamsOf(const FilterElement& e) { return Blur::paramsOf(e); }
FilterElement blurElement(const BlurParams& p) { return Blur::elementOf(kBlurFilter, p); }

}  // namespace vp
