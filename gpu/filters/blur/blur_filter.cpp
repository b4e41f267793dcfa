#include "gpu/filters/blur/blur_filter.h"

#include <memory>

namespace vp {
namespace {

constexpr OptionInfo kOptions[] = {
    {"r", OptionType::Int, 0, kMaxBlurRadius, 5, nullptr, "radius in pixels (0: identity)", 0, true},
    {"passes", OptionType::Int, 1, kMaxBlurPasses, 1, nullptr, "box passes (3 ~ Gaussian)", 1, true},
    kBorderOption,
};

class GpuBlur final : public GpuFilter {
 public:
  void configure(int width, int height, int slots) override {
    // One workspace per slot: slots blur concurrently on their own streams.
    ws_.clear();
    for (int i = 0; i < slots; ++i) ws_.push_back(std::make_unique<BoxBlurWorkspace>(width, height));
  }
  void enqueue(int slot, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&,
               cudaStream_t stream) override {
    boxBlurGpu(in, out, blurParamsOf(element), *ws_[size_t(slot)], stream);
  }

 private:
  std::vector<std::unique_ptr<BoxBlurWorkspace>> ws_;
};

class CpuBlur final : public CpuFilter {
 public:
  void configure(int width, int height) override { scratch_ = std::make_unique<BoxBlurCpuScratch>(width, height); }
  void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&) override {
    boxBlurCpu(in, out, blurParamsOf(element), *scratch_);
  }

 private:
  std::unique_ptr<BoxBlurCpuScratch> scratch_;
};

}  // namespace

const FilterInfo kBlurFilter = {
    "blur",
    "box blur: the mean of the (2r+1)x(2r+1) window, O(1) per pixel whatever r",
    kOptions,
    int(sizeof kOptions / sizeof kOptions[0]),
    blur_option::Radius,
    false,
    [] { return std::unique_ptr<GpuFilter>(std::make_unique<GpuBlur>()); },
    [] { return std::unique_ptr<CpuFilter>(std::make_unique<CpuBlur>()); },
};

BlurParams blurParamsOf(const FilterElement& e) {
  BlurParams p;
  p.radius = e.intValue(blur_option::Radius);
  p.passes = e.intValue(blur_option::Passes);
  p.border = static_cast<BorderMode>(e.intValue(blur_option::Border));
  return p;
}

FilterElement blurElement(const BlurParams& p) {
  FilterElement e(kBlurFilter);
  e.set(blur_option::Radius, p.radius);
  e.set(blur_option::Passes, p.passes);
  e.set(blur_option::Border, double(int(p.border)));
  return e;
}

}  // namespace vp
