#include "gpu/filters/edges/edges_filter.h"

#include "gpu/filters/common/stateless_filter.h"
#include "gpu/filters/edges/edges.h"

namespace vp {
namespace {

struct EdgesDecl {
  using Params = EdgesParams;
  using Workspace = NoWorkspace;  // the kernel needs no scratch
  using Scratch = EdgesCpuScratch;
  static constexpr bool kWorkspacePerSlot = false;
  static constexpr ParamOption<EdgesParams> kOptions[] = {
      bindOption<&EdgesParams::threshold>(
          {"t", OptionType::Int, 0, kMaxEdgesThreshold, kDefaultEdgesThreshold, nullptr,
           "edge threshold on the Sobel magnitude 0..255 (overlay: pixels at or above it turn black)", 0, true}),
      bindOption<&EdgesParams::overlay>({"overlay", OptionType::Bool, 0, 1, 0, nullptr,
                                         "0: the magnitude as grey; 1: edges painted black over the incoming frame",
                                         0, true}),
  };
  static void gpu(ConstRgbaView in, RgbaView out, const Params& p, Workspace&, cudaStream_t stream) {
    edgesGpu(in, out, p, stream);
  }
  static void cpu(ConstRgbaView in, RgbaView out, const Params& p, Scratch& scratch) {
    edgesCpu(in, out, p, scratch);
  }
};
using Edges = StatelessFilter<EdgesDecl>;

constexpr OptionCommand kCommands[] = {
    {"edges-t", "t", "threshold (overlay: edges at or above it turn black)"},
    {"edges-overlay", "overlay", "overlay: edges black over the frame (on) or the magnitude as grey (off)"},
};

constexpr KeyBinding kKeys[] = {
    {"t", "edges-t -10", "edge threshold -10"},
    {"shift+t", "edges-t +10", "edge threshold +10"},
    {"o", "edges-overlay toggle", "edges: black over the frame / magnitude"},
    {"6", "mode edges", "chain: Sobel edges"},
};

}  // namespace

const FilterInfo kEdgesFilter = Edges::info(
    "edges",
    "Sobel edges on the luma: the gradient magnitude as grey, or (overlay=1) edges painted black over the frame", "t",
    kCommands, kKeys);

EdgesParams edgesParamsOf(const FilterElement& e) { return Edges::paramsOf(e); }
FilterElement edgesElement(const EdgesParams& p) { return Edges::elementOf(kEdgesFilter, p); }

}  // namespace vp
