#include "gpu/filters/median/median_filter.h"

#include "gpu/filters/median/median.h"

#include <memory>

namespace vp {
namespace {

constexpr OptionInfo kOptions[] = {
    {"r", OptionType::Int, kMinMedianRadius, kMaxMedianRadius, 1, nullptr,
     "radius in pixels: the median of the (2r+1)x(2r+1) window", kMinMedianRadius, true},
    kBorderOption,
};

class GpuMedian final : public GpuFilter {
 public:
  void configure(int width, int height, int) override {
    // No device memory and nothing that changes: one workspace serves every slot.
    ws_ = std::make_unique<MedianWorkspace>(width, height);
  }
  void enqueue(int, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&,
               cudaStream_t stream) override {
    medianGpu(in, out, medianParamsOf(element), *ws_, stream);
  }

 private:
  std::unique_ptr<MedianWorkspace> ws_;
};

class CpuMedian final : public CpuFilter {
 public:
  void configure(int width, int height) override {
    scratch_ = std::make_unique<MedianCpuScratch>(width, height);
  }
  void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&) override {
    medianCpu(in, out, medianParamsOf(element), *scratch_);
  }

 private:
  std::unique_ptr<MedianCpuScratch> scratch_;
};

}  // namespace

const FilterInfo kMedianFilter = {
    "median",
    "exact median: per channel the middle value of the (2r+1)x(2r+1) window (removes speckle, keeps edges)",
    kOptions,
    int(sizeof kOptions / sizeof kOptions[0]),
    median_option::Radius,
    false,
    [] { return std::unique_ptr<GpuFilter>(std::make_unique<GpuMedian>()); },
    [] { return std::unique_ptr<CpuFilter>(std::make_unique<CpuMedian>()); },
};

MedianParams medianParamsOf(const FilterElement& e) {
  MedianParams p;
  p.radius = e.intValue(median_option::Radius);
  p.border = static_cast<BorderMode>(e.intValue(median_option::Border));
  return p;
}

FilterElement medianElement(const MedianParams& p) {
  FilterElement e(kMedianFilter);
  e.set(median_option::Radius, p.radius);
  e.set(median_option::Border, double(int(p.border)));
  return e;
}

}  // namespace vp
