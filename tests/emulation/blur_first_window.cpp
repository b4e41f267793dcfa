// CPU emulation of the sliding column pass's wide first window (columnSlideKernel<8, 16>,
// gpu/filters/blur/blur_column.cu): for every segment start y0 of a column of height h,
// the rows the window loop reads (whole batches unguarded, one guarded batch, plain rows
// when the window lies inside the image, else folded) must be exactly the extended rows
// [y0 - r, y0 + r], each once, every plain read inside [0, h). Reads a column of random
// values and compares the lane sums with the definition's. Exit status 1 on any mismatch
// (ctest: emulate_blur_first_window). Keep the window loop in step with the kernel's.
#include "gpu/filters/blur/box_blur_math.h"

#include <cstdio>
#include <random>
#include <vector>

using namespace vp;

int main() {
  std::mt19937 rng(7);
  const BorderMode modes[] = {BorderMode::Zero, BorderMode::Replicate, BorderMode::Reflect, BorderMode::Wrap};
  long cases = 0, bad = 0;
  for (int h : {1, 2, 3, 7, 23, 201, 202, 1081, 2160})
    for (int r : {1, 3, 7, 15, 16, 31, 50, 100, 128})
      for (int batch : {16})  // the shipped first-window batch
        for (BorderMode mode : modes) {
          std::vector<uint32_t> col(h);
          for (auto& v : col) v = rng();
          for (int y0 = 0; y0 < h; ++y0) {
            const int first = y0 - r, count = 2 * r + 1;
            uint32_t rb = 0, ga = 0;
            bool outOfRange = false;
            auto at = [&](int y) {
              if (y < 0 || y >= h) outOfRange = true;
              return (y < 0 || y >= h) ? 0u : col[y];
            };
            auto sample = [&](int y) {
              const int sy = extendIndex(y, h, mode);
              return sy < 0 ? 0u : at(sy);
            };
            auto window = [&](auto fetch) {  // as in the kernel
              int i = 0;
              for (; i + batch <= count; i += batch) {
                std::vector<uint32_t> p(batch);
                for (int j = 0; j < batch; ++j) p[j] = fetch(first + i + j);
                for (int j = 0; j < batch; ++j) rb += blur::lanesRb(p[j]), ga += blur::lanesGa(p[j]);
              }
              if (i < count) {
                std::vector<uint32_t> p(batch);
                for (int j = 0; j < batch; ++j) p[j] = i + j < count ? fetch(first + i + j) : 0u;
                for (int j = 0; j < batch; ++j) rb += blur::lanesRb(p[j]), ga += blur::lanesGa(p[j]);
              }
            };
            if (first >= 0 && first + count <= h)
              window(at);
            else
              window(sample);
            uint32_t wantRb = 0, wantGa = 0;  // the definition
            for (int y = y0 - r; y <= y0 + r; ++y) {
              const int sy = extendIndex(y, h, mode);
              const uint32_t v = sy < 0 ? 0u : col[sy];
              wantRb += blur::lanesRb(v), wantGa += blur::lanesGa(v);
            }
            ++cases;
            if (outOfRange || rb != wantRb || ga != wantGa) {
              if (bad++ < 5) std::printf("mismatch h=%d r=%d batch=%d y0=%d\n", h, r, batch, y0);
            }
          }
        }
  std::printf("%ld first windows, %ld mismatching\n", cases, bad);
  return bad != 0;
}
