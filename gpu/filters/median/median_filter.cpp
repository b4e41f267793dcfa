#include "gpu/filters/median/median_filter.h"

#include "gpu/filters/common/stateless_filter.h"
#include "gpu/filters/median/median.h"

namespace vp {
namespace {

struct MedianDecl {
  using Params = MedianParams;
  using Workspace = MedianWorkspace;
  using Scratch = MedianCpuScratch;
  static constexpr bool kWorkspacePerSlot = false;  // no device memory, nothing that changes
  static constexpr ParamOption<MedianParams> kOptions[] = {
      bindOption<&MedianParams::radius>({"r", OptionType::Int, kMinMedianRadius, kMaxMedianRadius, 1, nullptr,
                                         "radius in pixels: the median of the (2r+1)x(2r+1) window",
                                         kMinMedianRadius, true}),
      bindOption<&MedianParams::border>(kBorderOption),
  };
  static void gpu(ConstRgbaView in, RgbaView out, const Params& p, Workspace& ws, cudaStream_t stream) {
    medianGpu(in, out, p, ws, stream);
  }
  static void cpu(ConstRgbaView in, RgbaView out, const Params& p, Scratch& scratch) {
    medianCpu(in, out, p, scratch);
  }
};
using Median = StatelessFilter<MedianDecl>;

constexpr OptionCommand kCommands[] = {{"median-r", "r", "radius"}};

constexpr KeyBinding kKeys[] = {
    {"d", "median-r -1", "median radius -1"},
    {"shift+d", "median-r +1", "median radius +1"},
    {"4", "mode median", "chain: median"},
};

}  // namespace

const FilterInfo kMedianFilter = Median::info(
    "median",
    "exact median: per channel the middle value of the (2r+1)x(2r+1) window (removes speckle, keeps edges)", "r",
    kCommands, kKeys);

MedianParams medianParamsOf(const FilterElement& e) { return Median::paramsOf(e); }
FilterElement medianElement(const MedianParams& p) { return Median::elementOf(kMedianFilter, p); }

}  // namespace vp
