// The edge filter by its definition, for tests (contract: gpu/filters/edges/edges.h): luma
// and the rounded square root in double (exact here: no tie is closer than 1e-4 to the
// double's rounding), the Sobel sums on clamped coordinates written plainly. No code
// shared with gpu/filters/edges beyond the parameter type.
#pragma once

#include "gpu/filters/edges/edges_params.h"
#include "gpu/image.h"

#include <cstdint>

namespace vp::test::ref {

// round half up of 0.2126 R + 0.7152 G + 0.0722 B (as (2126 R + 7152 G + 722 B) / 10000).
int edgesLuma(uchar4 v);
// min(255, round(sqrt(n))).
int edgesMagnitude(int64_t n);
// The Sobel magnitude at (x, y).
int edgesMagnitudeAt(const HostImage& in, int x, int y);
// The whole filter.
HostImage edgesFilter(const HostImage& in, const EdgesParams& p);

}  // namespace vp::test::ref
