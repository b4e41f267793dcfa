#include "gpu/filters/bilateral/bilateral_filter.h"

#include "gpu/filters/bilateral/bilateral.h"
#include "gpu/filters/common/stateless_filter.h"

namespace vp {
namespace {

struct BilateralDecl {
  using Params = BilateralParams;
  using Workspace = BilateralWorkspace;
  using Scratch = BilateralCpuScratch;
  // No device memory: each block builds its weight tables from the kernel parameters.
  static constexpr bool kWorkspacePerSlot = false;
  static constexpr ParamOption<BilateralParams> kOptions[] = {
      bindOption<&BilateralParams::radius>({"r", OptionType::Int, kMinBilateralRadius, kMaxBilateralRadius, 5,
                                            nullptr, "radius in pixels: the (2r+1)x(2r+1) window",
                                            kMinBilateralRadius, true}),
      bindOption<&BilateralParams::sigmaSpace>(
          {"sigma_s", OptionType::Float, kMinBilateralSigmaSpace, kMaxBilateralSigmaSpace, 3, nullptr,
           "spatial sigma in pixels: how fast a neighbour's weight falls "
           "with its distance",
           kMinBilateralSigmaSpace, true}),
      bindOption<&BilateralParams::sigmaRange>(
          {"sigma_r", OptionType::Float, kMinBilateralSigmaRange, kMaxBilateralSigmaRange, 30, nullptr,
           "range sigma in levels (RGB distance): colour steps well below it "
           "are smoothed, edges well above it kept",
           kMinBilateralSigmaRange, true}),
      bindOption<&BilateralParams::border>(kBorderOption),
  };
  static void gpu(ConstRgbaView in, RgbaView out, const Params& p, Workspace& ws, cudaStream_t stream) {
    bilateralGpu(in, out, p, ws, stream);
  }
  static void cpu(ConstRgbaView in, RgbaView out, const Params& p, Scratch& scratch) {
    bilateralCpu(in, out, p, scratch);
  }
};
using Bilateral = StatelessFilter<BilateralDecl>;

constexpr OptionCommand kCommands[] = {
    {"bilateral-r", "r", "radius in pixels"},
    {"bilateral-range", "sigma_r", "range sigma in levels (edges above it are kept)"},
};

constexpr KeyBinding kKeys[] = {
    {"i", "bilateral-range -5", "bilateral range sigma -5 (keeps weaker edges)"},
    {"shift+i", "bilateral-range +5", "bilateral range sigma +5 (smooths stronger steps)"},
    {"l", "mode bilateral", "chain: bilateral (edge-preserving smoothing)"},
};

}  // namespace

const FilterInfo kBilateralFilter = Bilateral::info(
    "bilateral",
    "bilateral smoothing: each neighbour weighted by its distance (sigma_s pixels) and its colour difference "
    "(sigma_r levels), so edges stay sharp; within 1 level of the exact definition",
    "r", kCommands, kKeys);

BilateralParams bilateralParamsOf(const FilterElement& e) { return Bilateral::paramsOf(e); }
FilterElement bilateralElement(const BilateralParams& p) { return Bilateral::elementOf(kBilateralFilter, p); }

}  // namespace vp
