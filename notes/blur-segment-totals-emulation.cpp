// CPU emulation of the sliding column pass's segment totals (BoxBlurTuning::slideTotals,
// notes/box-blur-segment-totals.diff): columnTotalsKernel's sums and columnSlideKernel's
// first window from two totals, for one column of every height 1..700 plus 1080, 1081,
// 2160, every r in 16..128, saturated (255) and varied pixels. Checks that the totals path
// is taken only where its window lies inside the image, that its sum equals the window's
// rows summed directly, lane by lane without carries between the 16-bit lanes, and that
// every totals index fits the workspace's buffer (maxHeight / 16 + 1 segments).
// Build: g++ -O2 -std=c++17 blur-segment-totals-emulation.cpp && ./a.out
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
uint32_t lanesRb(uint32_t p) { return p & 0x00FF00FFu; }          // R | B << 16
uint32_t lanesGa(uint32_t p) { return (p >> 8) & 0x00FF00FFu; }   // G | A << 16
constexpr int kTotalsMinRadius = 16;
}  // namespace

int main() {
  long windows = 0, viaTotals = 0, failures = 0;
  std::vector<int> heights;
  for (int h = 1; h <= 700; ++h) heights.push_back(h);
  for (int h : {1080, 1081, 2160}) heights.push_back(h);
  for (int h : heights)
    for (int r = kTotalsMinRadius; r <= 128; ++r)
      for (int saturated = 0; saturated < 2; ++saturated) {
        std::vector<uint32_t> col(h);
        for (int y = 0; y < h; ++y)
          col[y] = saturated ? 0xFFFFFFFFu : uint32_t(y * 2654435761u) ^ uint32_t(r * 40503u);
        const int segLen = r < h ? r : h;  // host: std::min(r, h)
        const int segments = (h + segLen - 1) / segLen;
        if (segments > h / kTotalsMinRadius + 1) ++failures, std::printf("buffer h=%d r=%d\n", h, r);
        // columnTotalsKernel
        std::vector<uint32_t> trb(segments), tga(segments);
        for (int s = 0; s < segments; ++s) {
          const int y0 = s * segLen, y1 = y0 + segLen < h ? y0 + segLen : h;
          uint32_t rb = 0, ga = 0;
          for (int y = y0; y < y1; ++y) rb += lanesRb(col[y]), ga += lanesGa(col[y]);
          trb[s] = rb, tga[s] = ga;
        }
        // columnSlideKernel's first window, totals path
        for (int s = 0; s < segments; ++s) {
          const int y0 = s * segLen;
          ++windows;
          if (!(s >= 1 && y0 + r < h)) continue;  // the folded or plain loop, unchanged
          ++viaTotals;
          if (segLen != r || y0 - r < 0) {
            ++failures, std::printf("segment h=%d r=%d s=%d\n", h, r, s);
            continue;
          }
          const uint32_t rb = trb[s - 1] + trb[s] + lanesRb(col[y0 + r]);
          const uint32_t ga = tga[s - 1] + tga[s] + lanesGa(col[y0 + r]);
          uint32_t want[4] = {0, 0, 0, 0};  // R, G, B, A summed as separate integers
          for (int y = y0 - r; y <= y0 + r; ++y)
            for (int c = 0; c < 4; ++c) want[c] += (col[y] >> (8 * c)) & 0xFFu;
          const uint32_t got[4] = {rb & 0xFFFFu, ga & 0xFFFFu, rb >> 16, ga >> 16};
          for (int c = 0; c < 4; ++c)
            if (got[c] != want[c]) {
              ++failures;
              std::printf("sum h=%d r=%d s=%d c=%d: %u != %u\n", h, r, s, c, got[c], want[c]);
            }
        }
      }
  std::printf("%ld first windows, %ld through totals, %ld failures\n", windows, viaTotals, failures);
  return failures != 0;
}
