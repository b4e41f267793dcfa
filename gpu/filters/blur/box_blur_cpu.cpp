// CPU twin of the box blur (see box_blur.h for the definition).
//
// Method, per pass: (1) rows: a packed R|G|B prefix sum of each row (one uint64 per
// pixel, see box_blur_math.h), window sums from two prefix values (or windowSum near
// the borders) -> uint16 row sums + alpha; (2) columns, in strips of kStrip columns so
// reads stay row-contiguous: a 3-channel prefix sum down each column, window sums,
// one rounding division. O(1) per pixel whatever the radius; rows and strips are split
// over OpenMP threads (static schedule, integer math: deterministic). The GPU does the
// columns first; the sums are exact integers, so the order does not change the result.
#include "gpu/filters/blur/box_blur.h"
#include "gpu/filters/blur/box_blur_math.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace vp {

namespace {
constexpr int kStrip = 16;  // columns per vertical-pass work item
}

struct BoxBlurCpuScratchAccess {
  static std::vector<ushort4>& sums(BoxBlurCpuScratch& s) { return s.sums_; }
  static std::vector<uchar4>& pingPong(BoxBlurCpuScratch& s) { return s.pingPong_; }
  static std::vector<uint64_t>& rowPrefix(BoxBlurCpuScratch& s) { return s.rowPrefix_; }
  static std::vector<uint32_t>& colPrefix(BoxBlurCpuScratch& s) { return s.colPrefix_; }
  static int threads(const BoxBlurCpuScratch& s) { return s.threads_; }
};

BoxBlurCpuScratch::BoxBlurCpuScratch(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxBlurDimension || maxHeight > kMaxBlurDimension)
    throw std::invalid_argument("BoxBlurCpuScratch: size outside 1.." + std::to_string(kMaxBlurDimension));
  threads_ = std::max(1, omp_get_max_threads());
  const size_t pixels = size_t(maxWidth) * size_t(maxHeight);
  sums_.resize(pixels);
  pingPong_.resize(pixels);
  rowPrefix_.resize(size_t(threads_) * size_t(maxWidth + 1));
  colPrefix_.resize(size_t(threads_) * 3 * kStrip * size_t(maxHeight + 1));
}

namespace {

using SumsView = ImageView<ushort4>;

// Row pass: sums(x, y) = R, G, B sums over [x-r, x+r] of row y, alpha of (x, y).
void rowSums(ConstRgbaView in, SumsView sums, const BlurParams& p, BoxBlurCpuScratch& s) {
  const int w = in.width, h = in.height, r = p.radius;
  const int threads = BoxBlurCpuScratchAccess::threads(s);
  uint64_t* prefixAll = BoxBlurCpuScratchAccess::rowPrefix(s).data();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int y = 0; y < h; ++y) {
    uint64_t* prefix = prefixAll + size_t(omp_get_thread_num()) * size_t(s.maxWidth() + 1);
    const uchar4* src = in.row(y);
    prefix[0] = 0;
    for (int x = 0; x < w; ++x) prefix[x + 1] = prefix[x] + blur::packRgb(src[x]);
    auto at = [prefix](int k) { return prefix[k]; };
    ushort4* dst = sums.row(y);
    for (int x = 0; x < w; ++x) {
      const int a = x - r, b = x + r;
      const uint64_t sum = (a >= 0 && b < w) ? prefix[b + 1] - prefix[a]
                                              : blur::windowSum<uint64_t>(at, a, b, w, p.border);
      dst[x] = blur::unpackSums(sum, src[x].w);
    }
  }
}

// Column pass: out(x, y) = round(sum over [y-r, y+r] of sums(x, .) / (2r+1)^2), alpha kept.
void columnBlur(ImageView<const ushort4> sums, RgbaView out, const BlurParams& p, BoxBlurCpuScratch& s) {
  const int w = out.width, h = out.height, r = p.radius;
  const uint32_t area = uint32_t(2 * r + 1) * uint32_t(2 * r + 1);
  const int strips = (w + kStrip - 1) / kStrip;
  const int threads = BoxBlurCpuScratchAccess::threads(s);
  uint32_t* prefixAll = BoxBlurCpuScratchAccess::colPrefix(s).data();
  const size_t stride = size_t(h + 1);  // one column's prefix
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int strip = 0; strip < strips; ++strip) {
    uint32_t* pr = prefixAll + size_t(omp_get_thread_num()) * 3 * kStrip * size_t(s.maxHeight() + 1);
    uint32_t* pg = pr + kStrip * stride;
    uint32_t* pb = pg + kStrip * stride;
    const int x0 = strip * kStrip, cols = std::min(kStrip, w - x0);
    for (int c = 0; c < cols; ++c) pr[c * stride] = pg[c * stride] = pb[c * stride] = 0;
    for (int y = 0; y < h; ++y) {
      const ushort4* src = sums.row(y) + x0;
      for (int c = 0; c < cols; ++c) {
        const size_t k = c * stride + y;
        pr[k + 1] = pr[k] + src[c].x;
        pg[k + 1] = pg[k] + src[c].y;
        pb[k + 1] = pb[k] + src[c].z;
      }
    }
    for (int y = 0; y < h; ++y) {
      uchar4* dst = out.row(y) + x0;
      const ushort4* alpha = sums.row(y) + x0;
      const int a = y - r, b = y + r;
      for (int c = 0; c < cols; ++c) {
        const size_t base = c * stride;
        auto at = [&](int k) { return blur::Sum3{pr[base + k], pg[base + k], pb[base + k]}; };
        const blur::Sum3 sum = (a >= 0 && b < h) ? at(b + 1) - at(a) : blur::windowSum<blur::Sum3>(at, a, b, h, p.border);
        // The definition's rounding, spelled plainly (the GPU uses an exact multiply-shift).
        dst[c] = make_uchar4(uint8_t((sum.r + area / 2) / area), uint8_t((sum.g + area / 2) / area),
                             uint8_t((sum.b + area / 2) / area), alpha[c].w);
      }
    }
  }
}

}  // namespace

void boxBlurCpu(ConstRgbaView in, RgbaView out, const BlurParams& params, BoxBlurCpuScratch& scratch) {
  if (!blur::checkBlurArgs(in, out, params, scratch.maxWidth(), scratch.maxHeight(), "boxBlurCpu")) return;
  const int w = in.width, h = in.height;
  if (params.radius == 0) {  // identity, whatever the passes
    for (int y = 0; y < h; ++y) std::memcpy(out.row(y), in.row(y), size_t(w) * sizeof(uchar4));
    return;
  }
  SumsView sums{BoxBlurCpuScratchAccess::sums(scratch).data(), size_t(w) * sizeof(ushort4), w, h};
  RgbaView pingPong{BoxBlurCpuScratchAccess::pingPong(scratch).data(), size_t(w) * sizeof(uchar4), w, h};
  ConstRgbaView src = in;
  for (int pass = 0; pass < params.passes; ++pass) {
    // The last pass writes `out`; earlier ones alternate so a pass never reads what it writes.
    const RgbaView dst = ((params.passes - 1 - pass) % 2 == 0) ? out : pingPong;
    rowSums(src, sums, params, scratch);
    columnBlur(sums, dst, params, scratch);
    src = dst;
  }
}

}  // namespace vp
