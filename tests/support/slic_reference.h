// An independent reference for SLIC superpixels (gpu/filters/slic/slic.h), written from the
// contract alone: no gpu/ header, no shared arithmetic. The grid and the assignment are
// segmentation_reference.h's slicGrid / slicAssign (double precision); the centres move to
// the float-rounded means the contract defines; connectivity is a breadth-first flood fill
// in raster order (each component's first pixel is its least index), then the merge rule
// of the contract; each region painted with its rounded mean colour.
#pragma once

#include "support/segmentation_reference.h"

#include <cstdint>
#include <vector>

namespace vp::test::ref {

struct SlicRefParams {
  int superpixels = 400;
  double compactness = 10;
  int iterations = 10;
};

struct SlicRefResult {
  std::vector<uint8_t> rgba;       // view colour: each region's rounded mean colour, alpha copied
  std::vector<uint32_t> regions;   // each pixel's region id (its kept component's root)
  std::vector<int> superpixels;    // the final assignment
  std::vector<Feature> centres;    // the final centres
  int regionCount = 0;
  // Pixels whose assignment (in any round) had a runner-up within 1e-4 (relative) of the
  // best D: there float and double arithmetic may choose differently.
  int64_t nearTies = 0;
};

// The initial centres: each cell's middle pixel (floor((first + last) / 2) on each axis,
// the first and last pixel found by scanning the cell map), with its colour.
std::vector<Feature> slicInitialCentres(const uint8_t* rgba, int width, int height, const SlicGrid& grid);
SlicRefResult slicReference(const uint8_t* rgba, int width, int height, const SlicRefParams& params);
// The regions of a superpixel map by the contract's connectivity rule (minRegion pixels).
std::vector<uint32_t> slicConnect(const std::vector<int>& superpixels, int width, int height, int64_t minRegion,
                                  int* regionCount);
// D of pixel p against centre q (double), and whether p's best D has a runner-up within
// 1e-4 (relative) among its 3 x 3 candidates.
double slicDistance(const Feature& p, const Feature& q, double spatial);
bool slicNearTie(const std::vector<Feature>& pixels, int width, int height, const SlicGrid& grid,
                 const std::vector<Feature>& centres, double compactness, int x, int y);

}  // namespace vp::test::ref
