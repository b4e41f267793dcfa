#include "gpu/filters/gauss/gauss_filter.h"

#include "gpu/filters/gauss/gauss.h"

#include <memory>
#include <vector>

namespace vp {
namespace {

// sigma: add / cycle steps stay at or above 0.5 (0.3, its 3 taps at 0.992 / 0.004, is
// nearly the identity; `set` still takes it).
constexpr OptionInfo kOptions[] = {
    {"sigma", OptionType::Float, kMinGaussSigma, kMaxGaussSigma, 2, nullptr,
     "standard deviation in pixels; the kernel reaches ceil(3 sigma) each side", 0.5, true},
    kBorderOption,
};

class GpuGauss final : public GpuFilter {
 public:
  void configure(int width, int height, int slots) override {
    // One workspace per slot: slots blur concurrently on their own streams (the row sums).
    ws_.clear();
    for (int i = 0; i < slots; ++i) ws_.push_back(std::make_unique<GaussWorkspace>(width, height));
  }
  void enqueue(int slot, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&,
               cudaStream_t stream) override {
    gaussGpu(in, out, gaussParamsOf(element), *ws_[size_t(slot)], stream);
  }

 private:
  std::vector<std::unique_ptr<GaussWorkspace>> ws_;
};

class CpuGauss final : public CpuFilter {
 public:
  void configure(int width, int height) override { scratch_ = std::make_unique<GaussCpuScratch>(width, height); }
  void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult&) override {
    gaussCpu(in, out, gaussParamsOf(element), *scratch_);
  }

 private:
  std::unique_ptr<GaussCpuScratch> scratch_;
};

}  // namespace

const FilterInfo kGaussFilter = {
    "gauss",
    "Gaussian blur: the sampled Gaussian out to 3 sigma, separable, within 1 level of the exact convolution",
    kOptions,
    int(sizeof kOptions / sizeof kOptions[0]),
    gauss_option::Sigma,
    false,
    [] { return std::unique_ptr<GpuFilter>(std::make_unique<GpuGauss>()); },
    [] { return std::unique_ptr<CpuFilter>(std::make_unique<CpuGauss>()); },
};

GaussParams gaussParamsOf(const FilterElement& e) {
  GaussParams p;
  p.sigma = e.value(gauss_option::Sigma);
  p.border = static_cast<BorderMode>(e.intValue(gauss_option::Border));
  return p;
}

FilterElement gaussElement(const GaussParams& p) {
  FilterElement e(kGaussFilter);
  e.set(gauss_option::Sigma, p.sigma);
  e.set(gauss_option::Border, double(int(p.border)));
  return e;
}

}  // namespace vp
