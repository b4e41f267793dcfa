// SLIC superpixels as a chain element (`slic=n=400:m=40:iterations=10:view=colour`): its
// option table and the typed view of an element's values. Kernels and contract: slic.h.
// Each frame is segmented afresh (no state carried between frames); the metric
// "superpixels" is the number of regions after connectivity.
#pragma once

#include "gpu/filters/filter.h"
#include "gpu/filters/common/segment_view.h"
#include "gpu/filters/slic/slic.h"

namespace vp {

// Option indices, in table order.
namespace slic_option {
enum : int { Superpixels, Compactness, Iterations, View };
}

extern const FilterInfo kSlicFilter;

SlicParams slicParamsOf(const FilterElement& element);
SegmentView slicViewOf(const FilterElement& element);
FilterElement slicElement(const SlicParams& params, SegmentView view = SegmentView::Colour);

}  // namespace vp
