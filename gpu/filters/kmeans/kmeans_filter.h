// K-means colour segmentation as a chain element (`kmeans=k=8:iterations=20:...`): its
// option table and the typed view of an element's values. `view` picks what is painted
// (common/segment_view.h): the centre colours, a palette by label, or segment borders; `spatial`
// adds each pixel's position to its colour (RGBXY K-means); `k=auto` chooses K in
// kmin..kmax by the silhouette score (kmeans_auto.h). The kernels and their contract
// are in kmeans.h; frames warm-start from the previous frame's centres of the same
// element (per element, also after a blur), re-initialising on the first frame, a change
// of K or frame size, and a scene cut (kmeans_schedule.h).
#pragma once

#include "gpu/filters/filter.h"
#include "gpu/filters/kmeans/kmeans.h"
#include "gpu/filters/common/segment_view.h"

namespace vp {

// Option indices, in table order.
namespace kmeans_option {
enum : int { K, Iterations, Epsilon, Init, Warm, Seed, View, Spatial, KMin, KMax };
}

extern const FilterInfo kKmeansFilter;

// The kernel parameters of a kmeans element; `warm` = its warm option.
KmeansParams kmeansParamsOf(const FilterElement& element, bool* warm = nullptr);
// The view an element paints (common/segment_view.h).
SegmentView kmeansViewOf(const FilterElement& element);
// The automatic K range of an element (kmin..kmax, in order).
void kmeansAutoRangeOf(const FilterElement& element, int& kmin, int& kmax);
// A kmeans element with these values (params.k = 0: automatic K).
FilterElement kmeansElement(const KmeansParams& params, bool warm = true, SegmentView view = SegmentView::Colour);

}  // namespace vp
