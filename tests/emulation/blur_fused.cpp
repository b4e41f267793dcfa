// CPU transliteration of the fused box-blur pass (gpu/filters/blur/blur_fused.cu: fusedGrid, FusedColumns,
// fusedFirstWindow, fusedScanRow, fusedOutputRow, fusedBlurKernel), checked against a naive
// O(r^2) blur. It emulates the kernel's index math thread by thread: the balanced tiles,
// the span of tile + 2r columns (4 per thread, contiguous or folded), segments, the batched
// first window, the vertical fold of the entering and leaving rows, the shuffle scan
// (shfl_up semantics), the warp totals, the prefix at index k + 3 with 16-byte stores,
// the alpha bytes and the output prefix differences. Barrier phases run one after the
// other for all 256 threads, so it checks indices, not races. Every shared and global
// access is bounds-checked, uint4 stores alignment-checked, and every output pixel must
// be written exactly once. Keep it in step with the kernel. Exit status 1 on any mismatch
// (ctest: emulate_blur_fused); rows other than the automatic choice test segment edges.
#include "gpu/filters/common/border.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using vp::BorderMode;  // and vp::extendIndex: the kernel's own (gpu/filters/common/border.h)
using vp::extendIndex;
const char* const kModeNames[] = {"zero", "replicate", "reflect", "wrap"};

void check(bool ok, const char* what) {
  if (!ok) throw std::logic_error(what);
}

// ---- Copied from gpu/filters/blur/box_blur_math.h (what the kernel calls) ----
uint32_t lanesRb(uint32_t rgba) { return rgba & 0x00FF00FFu; }
uint32_t lanesGa(uint32_t rgba) { return (rgba >> 8) & 0x00FF00FFu; }
struct Divider {
  uint32_t mul = 1, shift = 0, half = 0;
};
Divider makeDivider(uint32_t d) {
  uint32_t log2d = 0;
  while ((uint64_t(1) << log2d) < d) ++log2d;
  Divider dv;
  dv.shift = 25 + log2d;
  dv.mul = static_cast<uint32_t>(((uint64_t(1) << dv.shift) + d - 1) / d);
  dv.half = d / 2;
  return dv;
}
uint32_t roundDiv(uint32_t sum, const Divider& dv) {
  return static_cast<uint32_t>((uint64_t(sum + dv.half) * dv.mul) >> dv.shift);
}

// ---- The kernel's constants and grid (gpu/box_blur.cu) ----
constexpr int kFusedThreads = 256;
constexpr int kFusedWarps = kFusedThreads / 32;
constexpr int kFusedItems = 4;
constexpr int kFusedSpan = kFusedThreads * kFusedItems;
constexpr int kFusedBatch = 4;
constexpr int kFusedBlocksPerSm = 4;

struct FusedGrid {
  int tile, tiles, rows, segments;
};
FusedGrid fusedGrid(int w, int h, int r, int requestedRows, int smCount) {
  FusedGrid g{};
  g.tiles = (w + kFusedSpan - 2 * r - 1) / (kFusedSpan - 2 * r);
  g.tile = (w + g.tiles - 1) / g.tiles;
  if (requestedRows) {
    g.rows = requestedRows;
  } else {
    const int segments = std::max(1, kFusedBlocksPerSm * smCount / g.tiles);
    g.rows = std::max((h + segments - 1) / segments, (r + 3) / 4);
  }
  g.rows = std::min(g.rows, h);
  g.segments = (h + g.rows - 1) / g.rows;
  return g;
}

// A pitched RGBA image of little-endian words (R | G << 8 | B << 16 | A << 24), with a
// start offset and pitch that are not 16-byte multiples, as sub-views have.
struct Image {
  int w = 0, h = 0;
  size_t pitch = 0;  // bytes
  size_t offset = 0;  // words before pixel (0, 0)
  std::vector<uint32_t> store;
  Image(int w_, int h_, int padWords, int offsetWords)
      : w(w_), h(h_), pitch(size_t(w_ + padWords) * 4), offset(size_t(offsetWords)),
        store(offset + size_t(w_ + padWords) * h_, 0xA5A5A5A5u) {}
  const char* data() const { return reinterpret_cast<const char*>(store.data() + offset); }
  char* data() { return reinterpret_cast<char*>(store.data() + offset); }
  uint32_t& at(int x, int y) { return store[offset + size_t(y) * (pitch / 4) + size_t(x)]; }
  uint32_t at(int x, int y) const { return store[offset + size_t(y) * (pitch / 4) + size_t(x)]; }
};

// Global loads, bounds-checked: `row` must be the start of an image row.
struct Global {
  const Image* in;
  uint32_t load(const char* row, int col) const {
    const ptrdiff_t bytes = row - in->data();
    check(bytes >= 0 && size_t(bytes) % in->pitch == 0, "load: not a row start");
    const size_t y = size_t(bytes) / in->pitch;
    check(y < size_t(in->h) && col >= 0 && col < in->w, "load: outside the image");
    return in->at(col, int(y));
  }
};

struct FusedColumns {
  int c0;
  bool contiguous;
  int col[kFusedItems];
  FusedColumns(int first, int left, int w, BorderMode border) : c0(first) {
    contiguous = left >= kFusedItems && first >= 0 && first + kFusedItems <= w;
    for (int k = 0; k < kFusedItems; ++k) col[k] = k < left ? extendIndex(first + k, w, border) : -1;
  }
  void load(const Global& g, const char* row, uint32_t (&v)[kFusedItems]) const {
    if (!row) {
      for (int k = 0; k < kFusedItems; ++k) v[k] = 0;
    } else if (contiguous) {
      for (int k = 0; k < kFusedItems; ++k) v[k] = g.load(row, c0 + k);
    } else {
      for (int k = 0; k < kFusedItems; ++k) v[k] = col[k] >= 0 ? g.load(row, col[k]) : 0u;
    }
  }
};

const char* imageRow(const Image& in, int y) { return in.data() + size_t(y) * in.pitch; }
const char* foldedRow(const Image& in, int y, BorderMode border) {
  const int sy = extendIndex(y, in.h, border);
  return sy < 0 ? nullptr : imageRow(in, sy);
}

void fusedFirstWindow(const Image& in, const Global& g, const FusedColumns& cols, int top, int count,
                      BorderMode border, uint32_t (&rb)[kFusedItems], uint32_t (&ga)[kFusedItems]) {
  for (int i = 0; i < count; i += kFusedBatch) {
    uint32_t p[kFusedBatch][kFusedItems];
    for (int j = 0; j < kFusedBatch; ++j)
      cols.load(g, i + j < count ? foldedRow(in, top + i + j, border) : nullptr, p[j]);
    for (int j = 0; j < kFusedBatch; ++j)
      for (int k = 0; k < kFusedItems; ++k) rb[k] += lanesRb(p[j][k]), ga[k] += lanesGa(p[j][k]);
  }
}

// Shared memory, bounds-checked.
struct Shared {
  uint32_t prefix[3][kFusedSpan + 4];
  uint32_t warpTotal[kFusedWarps][4];
  unsigned char alpha[kFusedSpan];
  void storePrefix4(int ch, int index, const uint32_t (&v)[4]) {  // one uint4 store
    check(index >= 0 && index + 4 <= kFusedSpan + 4 && index % 4 == 0, "prefix store: range or alignment");
    for (int i = 0; i < 4; ++i) prefix[ch][index + i] = v[i];
  }
  uint32_t loadPrefix(int ch, int index) const {
    check(index >= 0 && index < kFusedSpan + 4, "prefix load: range");
    return prefix[ch][index];
  }
  void storeAlpha4(int index, uint32_t packed) {  // one uint32 store
    check(index >= 0 && index + 4 <= kFusedSpan && index % 4 == 0, "alpha store: range or alignment");
    for (int i = 0; i < 4; ++i) alpha[index + i] = static_cast<unsigned char>(packed >> (8 * i));
  }
  unsigned char loadAlpha(int index) const {
    check(index >= 0 && index < kFusedSpan, "alpha load: range");
    return alpha[index];
  }
};

// __byte_perm(x, y, s): byte i of the result is byte (s >> 4i) & 7 of y:x.
uint32_t bytePerm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t xy = uint64_t(x) | uint64_t(y) << 32;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= uint32_t((xy >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return r;
}

struct ThreadState {
  FusedColumns cols{0, 0, 1, BorderMode::Zero};
  uint32_t rb[kFusedItems] = {}, ga[kFusedItems] = {};
  uint32_t centre[kFusedItems] = {}, add[kFusedItems] = {}, sub[kFusedItems] = {}, next[kFusedItems] = {};
  uint32_t run[3][kFusedItems] = {};
  uint32_t inc[3] = {};
};

// fusedScanRow, first phase for one warp: the thread-local prefixes and the shuffle scan.
void scanPhase1(ThreadState* warpThreads, Shared& sh, int warp) {
  for (int lane = 0; lane < 32; ++lane) {
    ThreadState& t = warpThreads[lane];
    for (int k = 0; k < kFusedItems; ++k) {
      t.run[0][k] = (k ? t.run[0][k - 1] : 0) + (t.rb[k] & 0xFFFFu);
      t.run[1][k] = (k ? t.run[1][k - 1] : 0) + (t.ga[k] & 0xFFFFu);
      t.run[2][k] = (k ? t.run[2][k - 1] : 0) + (t.rb[k] >> 16);
    }
  }
  for (int ch = 0; ch < 3; ++ch) {
    for (int lane = 0; lane < 32; ++lane)
      warpThreads[lane].inc[ch] = warpThreads[lane].run[ch][kFusedItems - 1];
    for (int d = 1; d < 32; d <<= 1) {
      uint32_t before[32];
      for (int lane = 0; lane < 32; ++lane) before[lane] = warpThreads[lane].inc[ch];
      for (int lane = 0; lane < 32; ++lane) {
        const uint32_t t = lane >= d ? before[lane - d] : before[lane];  // __shfl_up_sync
        if (lane >= d) warpThreads[lane].inc[ch] += t;
      }
    }
  }
  for (int ch = 0; ch < 3; ++ch) sh.warpTotal[warp][ch] = warpThreads[31].inc[ch];
  sh.warpTotal[warp][3] = 0;
}

// fusedScanRow, second phase (after the first barrier) for one warp.
void scanPhase2(ThreadState* warpThreads, Shared& sh, int warp) {
  uint32_t earlier[3] = {0, 0, 0};  // warpSum over lanes of (lane < warp ? warpTotal[lane] : 0)
  for (int lane = 0; lane < 32; ++lane)
    if (lane < warp)
      for (int ch = 0; ch < 3; ++ch) earlier[ch] += sh.warpTotal[lane][ch];
  for (int lane = 0; lane < 32; ++lane) {
    ThreadState& t = warpThreads[lane];
    const int tid = warp * 32 + lane;
    const int base = kFusedItems * tid + 4;
    for (int ch = 0; ch < 3; ++ch) {
      const uint32_t off = earlier[ch] + t.inc[ch] - t.run[ch][kFusedItems - 1];
      const uint32_t v[4] = {t.run[ch][0] + off, t.run[ch][1] + off, t.run[ch][2] + off, t.run[ch][3] + off};
      sh.storePrefix4(ch, base, v);
    }
    sh.storeAlpha4(kFusedItems * tid, bytePerm(bytePerm(t.centre[0], t.centre[1], 0x0073),
                                               bytePerm(t.centre[2], t.centre[3], 0x0073), 0x5410));
  }
}

void fusedOutputRow(const Shared& sh, int tid, Image& out, std::vector<int>& written, int x0, int y, int tileW,
                    int radius, const Divider& div) {
  const int window = 2 * radius + 1;
  for (int i = 0; i < kFusedItems; ++i) {
    const int x = tid + i * kFusedThreads;
    if (x < tileW) {
      const uint32_t s0 = sh.loadPrefix(0, x + window + 3) - sh.loadPrefix(0, x + 3);
      const uint32_t s1 = sh.loadPrefix(1, x + window + 3) - sh.loadPrefix(1, x + 3);
      const uint32_t s2 = sh.loadPrefix(2, x + window + 3) - sh.loadPrefix(2, x + 3);
      check(x0 + x < out.w && y < out.h, "store: outside the image");
      out.at(x0 + x, y) = roundDiv(s0, div) | roundDiv(s1, div) << 8 | roundDiv(s2, div) << 16 |
                          uint32_t(sh.loadAlpha(x + radius)) << 24;
      ++written[size_t(y) * out.w + x0 + x];
    }
  }
}

// One block of fusedBlurKernel.
void fusedBlock(int bx, int by, const Image& in, Image& out, std::vector<int>& written, int radius,
                BorderMode border, const Divider& div, int tile, int segLen) {
  static Shared sh;
  static ThreadState threads[kFusedThreads];
  const Global g{&in};
  const int w = in.w, h = in.h;
  const int x0 = bx * tile, tileW = std::min(tile, w - x0);
  const int y0 = by * segLen, y1 = std::min(h, y0 + segLen);
  check(tileW > 0 && y0 < h, "empty block");
  std::fill(&sh.prefix[0][0], &sh.prefix[0][0] + 3 * (kFusedSpan + 4), 0xDEADBEEFu);  // stale shared memory
  std::fill(sh.alpha, sh.alpha + kFusedSpan, 0xEE);
  for (int tid = 0; tid < kFusedThreads; ++tid) {
    ThreadState& t = threads[tid];
    t = ThreadState{};
    const int s0 = kFusedItems * tid;
    t.cols = FusedColumns(x0 - radius + s0, tileW + 2 * radius - s0, w, border);
    fusedFirstWindow(in, g, t.cols, y0 - radius, 2 * radius + 1, border, t.rb, t.ga);
    t.cols.load(g, imageRow(in, y0), t.centre);
  }
  sh.prefix[0][3] = sh.prefix[1][3] = sh.prefix[2][3] = 0;
  for (int y = y0; y < y1; ++y) {
    for (int tid = 0; tid < kFusedThreads; ++tid) {
      ThreadState& t = threads[tid];
      if (y >= radius && y + radius + 1 < h) {
        t.cols.load(g, imageRow(in, y + radius + 1), t.add);
        t.cols.load(g, imageRow(in, y - radius), t.sub);
      } else {
        t.cols.load(g, foldedRow(in, y + radius + 1, border), t.add);
        t.cols.load(g, foldedRow(in, y - radius, border), t.sub);
      }
      t.cols.load(g, imageRow(in, std::min(y + 1, y1 - 1)), t.next);
    }
    for (int warp = 0; warp < kFusedWarps; ++warp) scanPhase1(threads + 32 * warp, sh, warp);
    // __syncthreads()
    for (int warp = 0; warp < kFusedWarps; ++warp) scanPhase2(threads + 32 * warp, sh, warp);
    // __syncthreads()
    for (int tid = 0; tid < kFusedThreads; ++tid) fusedOutputRow(sh, tid, out, written, x0, y, tileW, radius, div);
    for (int tid = 0; tid < kFusedThreads; ++tid) {
      ThreadState& t = threads[tid];
      for (int k = 0; k < kFusedItems; ++k) {
        t.rb[k] += lanesRb(t.add[k]) - lanesRb(t.sub[k]);
        t.ga[k] += lanesGa(t.add[k]) - lanesGa(t.sub[k]);
        t.centre[k] = t.next[k];
      }
    }
  }
}

// The host side for one pass: grid, then every block.
void fusedBlur(const Image& in, Image& out, std::vector<int>& written, int r, BorderMode border, int rows,
               int smCount) {
  const FusedGrid g = fusedGrid(in.w, in.h, r, rows, smCount);
  check(g.tile + 2 * r <= kFusedSpan, "span wider than the block");
  const Divider div = makeDivider(uint32_t(2 * r + 1) * uint32_t(2 * r + 1));
  for (int by = 0; by < g.segments; ++by)
    for (int bx = 0; bx < g.tiles; ++bx) fusedBlock(bx, by, in, out, written, r, border, div, g.tile, g.rows);
}

// ---- The reference: the definition, O(r^2) per pixel, folding step by step ----
int extendPlain(int i, int n, BorderMode mode) {
  switch (mode) {
    case BorderMode::Zero: return (i < 0 || i >= n) ? -1 : i;
    case BorderMode::Replicate: return std::clamp(i, 0, n - 1);
    case BorderMode::Wrap:
      while (i < 0) i += n;
      while (i >= n) i -= n;
      return i;
    case BorderMode::Reflect:
      if (n == 1) return 0;
      while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
      return i;
  }
  return -1;
}

std::vector<uint32_t> naiveBlur(const Image& in, int r, BorderMode mode) {
  const int w = in.w, h = in.h;
  std::vector<int> ex(size_t(w + 2 * r)), ey(size_t(h + 2 * r));  // folded index of i - r
  for (int i = 0; i < w + 2 * r; ++i) ex[i] = extendPlain(i - r, w, mode);
  for (int i = 0; i < h + 2 * r; ++i) ey[i] = extendPlain(i - r, h, mode);
  const uint32_t area = uint32_t(2 * r + 1) * uint32_t(2 * r + 1);
  std::vector<uint32_t> out(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint32_t s[3] = {0, 0, 0};
      for (int dy = 0; dy <= 2 * r; ++dy) {
        const int sy = ey[y + dy];
        if (sy < 0) continue;
        for (int dx = 0; dx <= 2 * r; ++dx) {
          const int sx = ex[x + dx];
          if (sx < 0) continue;
          const uint32_t v = in.at(sx, sy);
          s[0] += v & 0xFF, s[1] += (v >> 8) & 0xFF, s[2] += (v >> 16) & 0xFF;
        }
      }
      out[size_t(y) * w + x] = (s[0] + area / 2) / area | ((s[1] + area / 2) / area) << 8 |
                               ((s[2] + area / 2) / area) << 16 | (in.at(x, y) & 0xFF000000u);
    }
  return out;
}

}  // namespace

int main() {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {37, 11}, {130, 300}, {1023, 5}, {1921, 9}, {2100, 7}};
  const int radii[] = {1, 3, 15, 100, 128};
  const int rowChoices[] = {1, 7, 64, 300, 0};  // 0: automatic
  const int smCount = 132;                       // H200
  std::mt19937 rng(7);
  long cases = 0, badPixels = 0, badCases = 0;
  for (auto [w, h] : sizes) {
    Image in(w, h, 5, 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) in.at(x, y) = uint32_t(rng());
    for (int m = 0; m < 4; ++m)
      for (int r : radii) {
        const BorderMode mode = static_cast<BorderMode>(m);
        const std::vector<uint32_t> want = naiveBlur(in, r, mode);
        for (int rows : rowChoices) {
          Image out(w, h, 3, 1);
          std::vector<int> written(size_t(w) * h, 0);
          long bad = 0;
          std::string error;
          try {
            fusedBlur(in, out, written, r, mode, rows, smCount);
          } catch (const std::exception& e) {
            error = e.what();
            bad = long(w) * h;
          }
          for (int y = 0; y < h && error.empty(); ++y)
            for (int x = 0; x < w; ++x)
              if (written[size_t(y) * w + x] != 1 || out.at(x, y) != want[size_t(y) * w + x]) {
                if (bad++ < 3)
                  std::printf("  %dx%d r=%d %s rows=%d: (%d,%d) got %08x want %08x, written %d\n", w, h, r,
                              kModeNames[m], rows, x, y, out.at(x, y), want[size_t(y) * w + x],
                              written[size_t(y) * w + x]);
              }
          const FusedGrid g = fusedGrid(w, h, r, rows, smCount);
          if (bad || !error.empty())
            std::printf("FAIL %dx%d r=%d %s rows=%d (grid %dx%d, tile %d, rows %d): %ld pixels %s\n", w, h, r,
                        kModeNames[m], rows, g.tiles, g.segments, g.tile, g.rows, bad, error.c_str());
          ++cases;
          badPixels += bad;
          badCases += bad != 0;
        }
      }
  }
  std::printf("%ld cases, %ld failing, %ld mismatching pixels\n", cases, badCases, badPixels);
  return badPixels ? 1 : 0;
}
