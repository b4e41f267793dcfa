#include "gpu/filters/slic/slic_filter.h"

#include "gpu/cuda/cuda_resources.h"

#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

namespace vp {
namespace {

constexpr OptionInfo kOptions[] = {
    {"n", OptionType::Int, 1, kMaxSuperpixels, 400, nullptr,
     "superpixels asked for (the grid's cells; more than the pixels: one a pixel)", 1, true},
    {"m", OptionType::Float, kMinCompactness, kMaxCompactness, 40, nullptr,
     "compactness: weight of distance in space against distance in colour (RGB; lower values follow colour "
     "closer but fragment on noise)",
     kMinCompactness, true},
    {"iterations", OptionType::Int, 1, kMaxSlicIterations, 10, nullptr, "assign / update rounds per frame", 1, true},
    {"view", OptionType::Choice, 0, 2, 0, "colour|labels|boundaries",
     "what is painted: region mean colours, a fixed colour per region, or region borders over the frame", 0, true},
};
static_assert(sizeof kOptions / sizeof kOptions[0] <= kMaxFilterOptions);

constexpr OptionCommand kCommands[] = {
    {"superpixels", "n", "superpixel count"},
    {"view", "view", "view: its segments' colours, a fixed colour per label, or segment borders over the frame"},
};

constexpr KeyBinding kKeys[] = {
    {"n", "superpixels -100", "SLIC superpixels -100"},
    {"shift+n", "superpixels +100", "SLIC superpixels +100"},
    {"8", "mode slic", "chain: SLIC superpixels"},
};

// Per slot: the workspace, and the stats' host copy read by finish().
struct SlicSlot {
  SlicSlot(int width, int height) : ws(width, height) {}
  SlicWorkspace ws;
  PinnedBuffer stats{sizeof(SlicStats)};
};

class GpuSlic final : public GpuFilter {
 public:
  void configure(int width, int height, int slots) override {
    slots_.clear();
    for (int i = 0; i < slots; ++i) slots_.push_back(std::make_unique<SlicSlot>(width, height));
  }
  void enqueue(int slot, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&,
               cudaStream_t stream) override {
    SlicSlot& s = *slots_[size_t(slot)];
    std::memset(s.stats.get(), 0, sizeof(SlicStats));
    slicGpu(in, out, slicViewOf(element), slicParamsOf(element), s.ws, stream);
    VP_CUDA_CHECK(cudaMemcpyAsync(s.stats.get(), s.ws.stats(), sizeof(SlicStats), cudaMemcpyDeviceToHost, stream));
  }
  void finish(int slot, ElementResult& result) override {
    SlicStats st;
    std::memcpy(&st, slots_[size_t(slot)]->stats.get(), sizeof st);
    result.set("superpixels", st.regions);
  }

 private:
  std::vector<std::unique_ptr<SlicSlot>> slots_;
};

class CpuSlic final : public CpuFilter {
 public:
  void configure(int width, int height) override { scratch_ = std::make_unique<SlicCpuScratch>(width, height); }
  void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult& result) override {
    slicCpu(in, out, slicViewOf(element), slicParamsOf(element), *scratch_);
    result.set("superpixels", scratch_->stats().regions);
  }

 private:
  std::unique_ptr<SlicCpuScratch> scratch_;
};

}  // namespace

const FilterInfo kSlicFilter = {
    "slic",
    "SLIC superpixels: compact regions of similar colour, each painted with its mean colour (view: or a colour per "
    "region, or the region borders over the frame)",
    kOptions,
    int(sizeof kOptions / sizeof kOptions[0]),
    slic_option::Superpixels,
    false,
    [] { return std::unique_ptr<GpuFilter>(std::make_unique<GpuSlic>()); },
    [] { return std::unique_ptr<CpuFilter>(std::make_unique<CpuSlic>()); },
    kCommands,
    int(std::size(kCommands)),
    kKeys,
    int(std::size(kKeys)),
};

SlicParams slicParamsOf(const FilterElement& e) {
  SlicParams p;
  p.superpixels = e.intValue(slic_option::Superpixels);
  p.compactness = float(e.value(slic_option::Compactness));
  p.iterations = e.intValue(slic_option::Iterations);
  return p;
}

SegmentView slicViewOf(const FilterElement& e) { return static_cast<SegmentView>(e.intValue(slic_option::View)); }

FilterElement slicElement(const SlicParams& p, SegmentView view) {
  FilterElement e(kSlicFilter);
  e.set(slic_option::Superpixels, p.superpixels);
  if (float(e.value(slic_option::Compactness)) != p.compactness) e.set(slic_option::Compactness, double(p.compactness));
  e.set(slic_option::Iterations, p.iterations);
  e.set(slic_option::View, double(int(view)));
  return e;
}

}  // namespace vp
