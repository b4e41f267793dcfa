// The filters' references (filter_reference.h): each reads its element by option name
// and runs the plain references of tests/support.
#include "support/filter_reference.h"

#include "support/bilateral_reference.h"
#include "support/blur_reference.h"
#include "support/borders.h"
#include "support/edges_reference.h"
#include "support/gauss_reference.h"
#include "support/kmeans_reference.h"
#include "support/median_reference.h"
#include "support/slic_reference.h"

#include <cstring>
#include <stdexcept>

namespace vp::test::ref {

double optionValue(const FilterElement& element, const char* name) {
  const int i = element.filter().optionIndex(name);
  if (i < 0)
    throw std::logic_error("filter_reference: " + std::string(element.name()) + " has no option '" + name + "'");
  return element.value(i);
}

std::string choiceValue(const FilterElement& element, const char* name) {
  const int i = element.filter().optionIndex(name);
  if (i < 0 || element.filter().option(i).type != OptionType::Choice)
    throw std::logic_error("filter_reference: " + std::string(element.name()) + " has no choice '" + name + "'");
  return formatOptionValue(element.filter().option(i), element.value(i));
}

namespace {

// ---- blur ----

BorderMode borderNamed(const std::string& name) {
  for (BorderMode mode : kBorderModes)
    if (name == borderName(mode)) return mode;
  throw std::logic_error("filter_reference: unknown blur border '" + name + "'");
}

ReferenceFrame blurFrame(const HostImage& in, const FilterElement& e) {
  BlurParams p;  // a plain struct: naiveBlur's parameters
  p.radius = int(optionValue(e, "r"));
  p.passes = int(optionValue(e, "passes"));
  p.border = borderNamed(choiceValue(e, "border"));
  ReferenceFrame out;
  out.rgba = naiveBlur(in, p);
  return out;
}

ReferenceFrame medianFrame(const HostImage& in, const FilterElement& e) {
  MedianParams p;  // a plain struct: medianFilter's parameters
  p.radius = int(optionValue(e, "r"));
  p.border = borderNamed(choiceValue(e, "border"));
  ReferenceFrame out;
  out.rgba = medianFilter(in, p);
  return out;
}

ReferenceFrame gaussFrame(const HostImage& in, const FilterElement& e) {
  GaussParams p;  // a plain struct: gaussFixed's parameters
  p.sigma = optionValue(e, "sigma");
  p.border = borderNamed(choiceValue(e, "border"));
  ReferenceFrame out;
  out.rgba = gaussFixed(in, p);
  return out;
}

ReferenceFrame edgesFrame(const HostImage& in, const FilterElement& e) {
  EdgesParams p;  // a plain struct: edgesFilter's parameters
  p.threshold = int(optionValue(e, "t"));
  p.overlay = optionValue(e, "overlay") != 0;
  ReferenceFrame out;
  out.rgba = edgesFilter(in, p);
  return out;
}

// ---- kmeans ----

RefInit initNamed(const std::string& name) {
  if (name == "uniform") return RefInit::Uniform;
  // "warm" on a first frame: nothing to warm from, k-means++ it is.
  if (name == "kmeans++" || name == "warm") return RefInit::PlusPlus;
  throw std::logic_error("filter_reference: unknown kmeans init '" + name + "'");
}

ReferenceFrame kmeansFrame(const HostImage& in, const FilterElement& e) {
  RefParams p;
  p.k = int(optionValue(e, "k"));
  p.maxIterations = int(optionValue(e, "iterations"));
  p.epsilon = float(optionValue(e, "epsilon"));
  p.init = initNamed(choiceValue(e, "init"));
  p.seed = uint64_t(optionValue(e, "seed"));
  const RefResult r = kmeansReference(reinterpret_cast<const uint8_t*>(in.data()), in.width(), in.height(), p);
  ReferenceFrame out;
  out.rgba = HostImage(in.width(), in.height());
  std::memcpy(out.rgba.data(), r.rgba.data(), r.rgba.size());
  out.metrics = {{"iterations", double(r.iterations)}, {"cost", double(r.cost)}, {"reinit", 1.0}};
  out.openChoices = r.ambiguousPixels + r.ambiguousStops;
  return out;
}

// ---- slic ----

ReferenceFrame slicFrame(const HostImage& in, const FilterElement& e) {
  SlicRefParams p;
  p.superpixels = int(optionValue(e, "n"));
  p.compactness = double(float(optionValue(e, "m")));  // the filter holds m as a float
  p.iterations = int(optionValue(e, "iterations"));
  const int w = in.width(), h = in.height();
  const SlicRefResult r = slicReference(reinterpret_cast<const uint8_t*>(in.data()), w, h, p);
  ReferenceFrame out;
  out.rgba = HostImage(w, h);
  std::memcpy(out.rgba.data(), r.rgba.data(), r.rgba.size());
  const std::string view = choiceValue(e, "view");
  if (view == "boundaries") {  // the input, yellow where the right or lower neighbour's region differs
    std::memcpy(out.rgba.data(), in.data(), r.rgba.size());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const size_t i = size_t(y) * size_t(w) + size_t(x);
        if ((x + 1 < w && r.regions[i + 1] != r.regions[i]) || (y + 1 < h && r.regions[i + size_t(w)] != r.regions[i]))
          out.rgba.at(x, y) = make_uchar4(255, 255, 0, in.at(x, y).w);
      }
  } else if (view != "colour") {
    throw std::logic_error("filter_reference: slic view '" + view + "' has no reference (test_slic.cpp checks it)");
  }
  out.metrics = {{"superpixels", double(r.regionCount)}};
  out.openChoices = r.nearTies;
  return out;
}

ReferenceFrame bilateralFrame(const HostImage& in, const FilterElement& e) {
  BilateralParams p;  // a plain struct: bilateralFilter's parameters
  p.radius = int(optionValue(e, "r"));
  p.sigmaSpace = float(optionValue(e, "sigma_s"));
  p.sigmaRange = float(optionValue(e, "sigma_r"));
  p.border = borderNamed(choiceValue(e, "border"));
  ReferenceFrame out;
  out.rgba = bilateralFilter(in, p);
  return out;
}

}  // namespace

const std::vector<FilterReference>& filterReferences() {
  static const std::vector<FilterReference> kReferences = {
      {"kmeans",
       "RGBA bytes, iterations, cost, reinit=1 of a fresh element (a re-initialisation) vs textbook Lloyd; exact",
       {
           "kmeans",                                            // defaults: k=8, k-means++
           "kmeans=k=1",                                        // one cluster: the mean colour
           "kmeans=k=2:iterations=0:init=uniform",              // the initial assignment only
           "kmeans=k=5:iterations=50:epsilon=0:init=uniform",   // run to the iteration cap
           "kmeans=k=12:epsilon=1:init=warm:seed=7:warm=0",     // warm with nothing to warm from
           "kmeans=k=32:iterations=10:seed=9007199254740991",   // most clusters, largest seed
       },
       kmeansFrame},
      {"blur",
       "RGBA bytes vs the direct (2r+1)^2 window sum with the border written plainly; exact",
       {
           "blur",                              // defaults: r=5, replicate
           "blur=r=0",                          // identity
           "blur=r=1:border=zero",
           "blur=r=3:passes=3:border=reflect",  // most passes
           "blur=r=7:passes=2:border=wrap",
           "blur=r=128:border=wrap",            // largest radius: windows wider than the frame
       },
       blurFrame},
      {"median",
       "RGBA bytes vs each channel's (2r+1)^2 window sorted, the middle sample, border written plainly; exact",
       {
           "median",                     // defaults: r=1, replicate (the 3x3 network)
           "median=r=2:border=zero",     // the 5x5 network
           "median=r=3:border=reflect",  // the largest network
           "median=r=4:border=wrap",     // the 8-bit histograms
           "median=r=15",                // the 16-bit histograms; windows wider than the small frames
       },
       medianFrame},
      {"gauss",
       "RGBA bytes vs gauss.h's fixed point written as plain loops (test_gauss.cpp holds it within 1 level of the double definition); exact",
       {
           "gauss",                           // defaults: sigma=2, replicate (the fused path)
           "gauss=sigma=0.3:border=zero",     // 3 taps, smallest sigma
           "gauss=sigma=1:border=reflect",    // the 5x5-ish kernel peers offer
           "gauss=sigma=5.5:border=wrap",     // the two-pass path (R = 17)
           "gauss=sigma=50",                  // 301 taps: windows wider than the small frames
       },
       gaussFrame},
      {"edges",
       "RGBA bytes vs the Sobel sums on the luma with clamped coordinates and the magnitude in double; exact",
       {
           "edges",                    // defaults: the magnitude as grey
           "edges=t=0:overlay=1",      // every pixel black
           "edges=t=80:overlay=1",     // the cartoon outline
           "edges=t=255:overlay=1",    // only saturated edges
       },
       edgesFrame},
      {"slic",
       "RGBA bytes (views colour, boundaries) and superpixels vs SLIC written from its definition (double distances, "
       "float centres, flood-fill connectivity); exact",
       {
           "slic",                                    // defaults: n=400, m=10, 10 iterations
           "slic=n=1",                                // one cell: the whole frame's mean
           "slic=n=16384:m=1:iterations=1",           // most superpixels (more than small frames' pixels)
           "slic=n=60:m=80:iterations=50",            // most compact, most rounds
           "slic=n=200:iterations=3:view=boundaries", // the region borders
       },
       slicFrame},
      {"bilateral",
       "RGB within 1 level of the definition in double (rounded), alpha exact",
       {
           "bilateral",                                    // defaults: r=5, sigma_s=3, sigma_r=30, replicate
           "bilateral=r=1:sigma_s=0.5:sigma_r=1:border=zero",  // smallest window and sigmas (weights underflow)
           "bilateral=r=3:sigma_s=2:sigma_r=80:border=reflect",
           "bilateral=r=8:sigma_s=5:sigma_r=20:border=wrap",
           "bilateral=r=15:sigma_s=20:sigma_r=255",        // largest: windows wider than the small frames
       },
       bilateralFrame,
       1},
  };
  return kReferences;
}

const FilterReference* findFilterReference(std::string_view name) {
  for (const FilterReference& r : filterReferences())
    if (name == r.filter) return &r;
  return nullptr;
}

}  // namespace vp::test::ref
