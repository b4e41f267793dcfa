#include "gpu/filters/gauss/gauss_filter.h"

#include "gpu/filters/common/stateless_filter.h"
#include "gpu/filters/gauss/gauss.h"

namespace vp {
namespace {

struct GaussDecl {
  using Params = GaussParams;
  using Workspace = GaussWorkspace;
  using Scratch = GaussCpuScratch;
  static constexpr bool kWorkspacePerSlot = true;  // the row sums: slots blur concurrently
  // sigma: add / cycle steps stay at or above 0.5 (0.3, its 3 taps at 0.992 / 0.004, is
  // nearly the identity; `set` still takes it).
  static constexpr ParamOption<GaussParams> kOptions[] = {
      bindOption<&GaussParams::sigma>({"sigma", OptionType::Float, kMinGaussSigma, kMaxGaussSigma, 2, nullptr,
                                       "standard deviation in pixels; the kernel reaches ceil(3 sigma) each side",
                                       0.5, true}),
      bindOption<&GaussParams::border>(kBorderOption),
  };
  static void gpu(ConstRgbaView in, RgbaView out, const Params& p, Workspace& ws, cudaStream_t stream) {
    gaussGpu(in, out, p, ws, stream);
  }
  static void cpu(ConstRgbaView in, RgbaView out, const Params& p, Scratch& scratch) {
    gaussCpu(in, out, p, scratch);
  }
};
using Gauss = StatelessFilter<GaussDecl>;

constexpr OptionCommand kCommands[] = {{"sigma", "sigma", "sigma in pixels"}};

constexpr KeyBinding kKeys[] = {
    {"g", "sigma -0.5", "Gaussian sigma -0.5"},
    {"shift+g", "sigma +0.5", "Gaussian sigma +0.5"},
    {"5", "mode gauss", "chain: Gaussian blur"},
};

}  // namespace

const FilterInfo kGaussFilter = Gauss::info(
    "gauss", "Gaussian blur: the sampled Gaussian out to 3 sigma, separable, within 1 level of the exact convolution",
    "sigma", kCommands, kKeys);

GaussParams gaussParamsOf(const FilterElement& e) { return Gauss::paramsOf(e); }
FilterElement gaussElement(const GaussParams& p) { return Gauss::elementOf(kGaussFilter, p); }

}  // namespace vp
