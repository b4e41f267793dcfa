#include "gpu/filters/edges/edges_filter.h"

#include "gpu/filters/edges/edges.h"

#include <memory>

namespace vp {
namespace {

constexpr OptionInfo kOptions[] = {
    {"t", OptionType::Int, 0, kMaxEdgesThreshold, kDefaultEdgesThreshold, nullptr,
     "edge threshold on the Sobel magnitude 0..255 (overlay: pixels at or above it turn black)", 0, true},
    {"overlay", OptionType::Bool, 0, 1, 0, nullptr,
     "0: the magnitude as grey; 1: edges painted black over the incoming frame", 0, true},
};

class GpuEdges final : public GpuFilter {
 public:
  // Nothing to size: the kernel needs no scratch.
  void configure(int, int, int) override {}
  void enqueue(int, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&,
               cudaStream_t stream) override {
    edgesGpu(in, out, edgesParamsOf(element), stream);
  }
};

class CpuEdges final : public CpuFilter {
 public:
  void configure(int width, int height) override { scratch_ = std::make_unique<EdgesCpuScratch>(width, height); }
  void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&) override {
    edgesCpu(in, out, edgesParamsOf(element), *scratch_);
  }

 private:
  std::unique_ptr<EdgesCpuScratch> scratch_;
};

}  // namespace

const FilterInfo kEdgesFilter = {
    "edges",
    "Sobel edges on the luma: the gradient magnitude as grey, or (overlay=1) edges painted black over the frame",
    kOptions,
    int(sizeof kOptions / sizeof kOptions[0]),
    edges_option::Threshold,
    false,
    [] { return std::unique_ptr<GpuFilter>(std::make_unique<GpuEdges>()); },
    [] { return std::unique_ptr<CpuFilter>(std::make_unique<CpuEdges>()); },
};

EdgesParams edgesParamsOf(const FilterElement& e) {
  EdgesParams p;
  p.threshold = e.intValue(edges_option::Threshold);
  p.overlay = e.boolValue(edges_option::Overlay);
  return p;
}

FilterElement edgesElement(const EdgesParams& p) {
  FilterElement e(kEdgesFilter);
  e.set(edges_option::Threshold, p.threshold);
  e.set(edges_option::Overlay, p.overlay ? 1 : 0);
  return e;
}

}  // namespace vp
