// Box blur's sliding strips (blur_slide_strips.h): the kernel, the per-lane stages joined by
// warp shuffles, one instantiation per C and r mod C, and its launcher.
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/blur/blur_passes.h"
#include "gpu/filters/blur/blur_slide_strips.h"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

namespace vp::blur {
namespace {

// v of the lane `offset` to the right (left when negative).
__device__ __forceinline__ uint64_t laneAt(uint64_t v, int offset) {
  return offset >= 0 ? __shfl_down_sync(kFullWarp, v, unsigned(offset))
                     : __shfl_up_sync(kFullWarp, v, unsigned(-offset));
}

// Each row's E[0..C]: its exclusive prefix plus the totals of the lanes to its left; the G
// rows' scans interleaved.
template <int C, int G>
__device__ __forceinline__ void spanPrefix(uint64_t (&e)[G][C + 1], int lane) {
  uint64_t inclusive[G];
#pragma unroll
  for (int g = 0; g < G; ++g) inclusive[g] = e[g][C];
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    uint64_t t[G];
#pragma unroll
    for (int g = 0; g < G; ++g) t[g] = __shfl_up_sync(kFullWarp, inclusive[g], unsigned(d));
#pragma unroll
    for (int g = 0; g < G; ++g)
      if (lane >= d) inclusive[g] += t[g];
  }
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const uint64_t left = inclusive[g] - e[g][C];
#pragma unroll
    for (int k = 0; k <= C; ++k) e[g][k] += left;
  }
}

// G output rows a step: their loads all in flight at once and their scans interleaved, so a
// row's latency (loads, then a chain of dependent shuffles) is paid once per G rows.
template <int C, int M, int G>
__global__ void __launch_bounds__(kSlideStripThreads, 4)
    slideStripKernel(ConstRgbaView in, RgbaView out, BorderMode border, int radius, int rows, Divider dv,
                     bool alignedIn, bool alignedOut) {
  waitForPriorGrid();  // no-op unless launched with programmatic dependent launch
  releaseNextGrid();
  const SlideStripLane<C> l(int(blockIdx.x), int(blockIdx.y), int(threadIdx.x), radius, rows);
  if (!l.warpHasWork(in.width)) return;  // the whole warp: its shuffles need no absent lane
  const SlideColumns<C> cols(in, border, l.x, alignedIn);
  SlideSums<C> sums;
  sums.first(cols, l.y0, radius);
  const int q = radius / C;
  const bool owner = l.ownsColumns(in.width);
  const bool vectorOut = alignedOut && l.x + C <= in.width;
  const int yEnd = min(in.height, l.y0 + rows);
  // Software pipelined: the next step's loads are issued before this step's sums.
  uint32_t entering[G][C], leaving[G][C], centre[G][C];
  auto load = [&](int y, uint32_t(&en)[G][C], uint32_t(&lv)[G][C], uint32_t(&ce)[G][C]) {
#pragma unroll
    for (int g = 0; g < G; ++g) {  // rows past yEnd: border samples, summed but never stored
      cols.row(y + g + radius, en[g]);
      cols.row(y + g - radius - 1, lv[g]);
      cols.row(y + g, ce[g]);
    }
  };
  load(l.y0, entering, leaving, centre);
  for (int y = l.y0; y < yEnd; y += G) {
    uint32_t nextEntering[G][C], nextLeaving[G][C], nextCentre[G][C];
    if (y + G < yEnd) load(y + G, nextEntering, nextLeaving, nextCentre);
    uint64_t e[G][C + 1];
#pragma unroll
    for (int g = 0; g < G; ++g) {
      sums.slide(entering[g], leaving[g]);
      sums.prefix(e[g]);
    }
    spanPrefix<C, G>(e, l.lane);
#pragma unroll
    for (int g = 0; g < G; ++g) {
      uint32_t o[C];
#pragma unroll
      for (int j = 0; j < C; ++j) {
        const uint64_t hi = laneAt(e[g][rightEnd<C>(j, M, 0).sub], rightEnd<C>(j, M, q).lane);
        const uint64_t lo = laneAt(e[g][leftEnd<C>(j, M, 0).sub], leftEnd<C>(j, M, q).lane);
        o[j] = slideOutput(hi - lo, centre[g][j], dv);
      }
      if (!owner || y + g >= yEnd) continue;
      if (vectorOut && C % 4 == 0) {
        uint4* p = reinterpret_cast<uint4*>(out.row(y + g) + l.x);
#pragma unroll
        for (int c = 0; c < C; c += 4) p[c / 4] = make_uint4(o[c], o[c + 1], o[c + 2], o[c + 3]);
      } else {
#pragma unroll
        for (int c = 0; c < C; ++c)
          if (l.x + c < in.width) tiles::storePixel(out, l.x + c, y + g, o[c]);
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
      for (int c = 0; c < C; ++c)
        entering[g][c] = nextEntering[g][c], leaving[g][c] = nextLeaving[g][c],
        centre[g][c] = nextCentre[g][c];
  }
}

bool aligned16(const void* p, size_t pitch) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0 && pitch % 16 == 0;
}

template <int C, int M, int G>
void launchSlideStrips(ConstRgbaView in, RgbaView out, int radius, BorderMode border, int rows, bool pdl,
                       cudaStream_t stream) {
  const dim3 grid(SlideStripLane<C>::blocksAcross(in.width, radius), (in.height + rows - 1) / rows);
  const Divider dv = makeDivider(uint32_t(2 * radius + 1) * uint32_t(2 * radius + 1));
  launchKernel(slideStripKernel<C, M, G>, grid, dim3(kSlideStripThreads), 0, stream, pdl, in, out, border,
               radius, rows, dv, aligned16(in.data, in.pitch), aligned16(out.data, out.pitch));
}

template <int C, int... M>
void launchForModulus(ConstRgbaView in, RgbaView out, int radius, BorderMode border, int rows, bool pdl,
                      cudaStream_t stream, std::integer_sequence<int, M...>) {
  const char* g = std::getenv("VP_SS_G");
  const int group = g ? std::atoi(g) : 4;
  ((radius % C == M ? (group == 8   ? launchSlideStrips<C, M, 8>(in, out, radius, border, rows, pdl, stream)
                       : group == 2 ? launchSlideStrips<C, M, 2>(in, out, radius, border, rows, pdl, stream)
                                    : launchSlideStrips<C, M, 4>(in, out, radius, border, rows, pdl, stream))
                    : void()),
   ...);
}

}  // namespace

int slideStripColumns(int) { return 4; }

int slideStripRows(int width, int height, int radius) {
  (void)width, (void)height, (void)radius;
  if (const char* s = std::getenv("VP_SS_ROWS")) return std::atoi(s);
  return 16;
}

void launchSlideStripPass(ConstRgbaView in, RgbaView out, int radius, BorderMode border, bool pdl,
                          cudaStream_t stream) {
  if (radius < kMinSlideStripRadius || radius > kMaxSlideStripRadius)
    throw std::invalid_argument("box blur sliding strips: radius " + std::to_string(radius) + " outside " +
                                std::to_string(kMinSlideStripRadius) + ".." +
                                std::to_string(kMaxSlideStripRadius));
  const int rows = slideStripRows(in.width, in.height, radius);
  launchForModulus<4>(in, out, radius, border, rows, pdl, stream, std::make_integer_sequence<int, 4>{});
}

}  // namespace vp::blur
