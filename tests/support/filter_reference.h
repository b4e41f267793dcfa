// Independent references for every filter of the registry, for the conformance suite
// (tests/gpu/test_filter_conformance.cpp), which fails for a registered filter that has
// no entry here: adding a filter means adding its reference.
//
// A reference computes, from scratch, the RGBA output one element gives for one frame
// when it has seen no frame before (a fresh element: for a temporal filter, a
// re-initialisation), plus the metrics it must report for that frame. It reads the
// element's values by option name and choice name (not through the filters' typed views
// or kernels) and calls only the plain references of tests/support: no code of gpu/ runs.
//
// What is compared, and the tolerances (none on bytes but the bilateral's):
//   blur    every byte of the RGBA output (alpha included) against naiveBlur
//           (support/blur_reference.h: the (2r+1)^2 window summed directly per pixel,
//           the border extension written plainly, round half up, `passes` times).
//   median  every byte against medianFilter (support/median_reference.h: each channel's
//           window sorted, the middle sample).
//   gauss   every byte against gaussFixed (support/gauss_reference.h: gauss.h's fixed
//           point as plain loops; test_gauss.cpp holds it within 1 level of gaussDouble).
//   edges   every byte against edgesFilter (support/edges_reference.h: luma, Sobel sums on
//           clamped coordinates, the rounded square root in double).
//   kmeans  every byte of the RGBA output, and the metrics iterations, cost (exact) and
//           reinit = 1, against kmeansReference (support/kmeans_reference.h: textbook
//           Lloyd in double precision) started from the element's init: uniform, or
//           k-means++ with its seed; init=warm with nothing to warm from is k-means++
//           (kmeans_schedule.cpp). The contract leaves a pixel's label to the
//           implementation where two different centres (not both integral) lie within
//           0.25 squared levels of its nearest, and a stop decision where shift2 is within
//           rounding of epsilon; the reference takes the exact nearest / the double
//           comparison there and counts such open choices (`openChoices`). The suite still
//           compares exactly: on its inputs the twin makes the exact choice at every open
//           one (checked when this was written: up to 41 open choices per case, no byte
//           differs). A failure on a case with open choices names their number: then it
//           may be an allowed choice, and the case needs the implementation's labels as a
//           guide (kmeansReference's LabelGuide) before it says anything.
//   bilateral every r, g, b within 1 level of bilateralFilter (support/bilateral_reference.h:
//           the definition in double, rounded to nearest), alpha exact: its contract is
//           that bound (the GPU still equals the twin byte for byte).
//   slic    every byte (views colour and boundaries) and superpixels against slicReference
//           (support/slic_reference.h: double distances, float centres, flood-fill
//           connectivity). The float D of the implementation may choose differently where
//           two candidates are within rounding; the reference counts pixels with a
//           runner-up within 1e-4 (relative) as open choices. The labels view is checked
//           in test_slic.cpp (its palette is the implementation's).
#pragma once

#include "gpu/filters/filter.h"
#include "gpu/image.h"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vp::test::ref {

// What a fresh element must produce for one frame.
struct ReferenceFrame {
  HostImage rgba;                                        // the expected output, every byte
  std::vector<std::pair<std::string, double>> metrics;   // metrics it must report, exact values
  int64_t openChoices = 0;  // choices the contract leaves to the implementation (see above)
};

struct FilterReference {
  const char* filter;    // the registry name: "blur"
  const char* compared;  // one line: what the suite compares for it
  // Representative settings, as one element of --vf ("blur=r=3:passes=3:border=reflect"):
  // defaults, extremes of each option, each choice at least once.
  std::vector<std::string> settings;
  // The output of a fresh element with these values on `in`.
  std::function<ReferenceFrame(const HostImage& in, const FilterElement& element)> firstFrame;
  // How many levels an r, g or b byte of the twin may be from the reference (alpha: none):
  // 0, exact, for all but a filter whose contract is a bound on its distance from a
  // definition in real arithmetic (bilateral: 1).
  int levels = 0;
};

// Every reference, one per filter that has one.
const std::vector<FilterReference>& filterReferences();
// The reference of filter `name`, or nullptr.
const FilterReference* findFilterReference(std::string_view name);

// An option's value read by name (throws std::logic_error when the filter has no such
// option: the reference and the table disagree), and a Choice option's value as its name.
double optionValue(const FilterElement& element, const char* name);
std::string choiceValue(const FilterElement& element, const char* name);

}  // namespace vp::test::ref
