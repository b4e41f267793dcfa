// A user's program on an installed vidproc: an RGB image segmented through the library,
// checked by what a user can see (colours, metrics, errors).
#include <vidproc/vidproc.h>

#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

int main() {
  const int w = 161, h = 91;
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &rgb[(size_t(y) * w + x) * 3];
      p[0] = uint8_t(x * 255 / w), p[1] = uint8_t(y * 255 / h), p[2] = uint8_t((x * 7 + y * 13) % 256);
    }
  std::vector<uint8_t> out(rgb.size());
  vp::Chain chain("blur=r=2,kmeans=k=4");
  chain.process({rgb.data(), size_t(w) * 3, w, h, vp::PixelLayout::RGB},
                {out.data(), size_t(w) * 3, w, h, vp::PixelLayout::RGB});
  std::set<uint32_t> colours;
  for (size_t i = 0; i < out.size(); i += 3) colours.insert(uint32_t(out[i]) << 16 | uint32_t(out[i + 1]) << 8 | out[i + 2]);
  const auto metrics = chain.metrics();
  if (colours.size() < 2 || colours.size() > 4 || metrics.size() != 2 || metrics[1].label != "kmeans#2" ||
      metrics[1].get("iterations") < 1) {
    std::fprintf(stderr, "consumer: unexpected result: %zu colours, %zu elements\n", colours.size(), metrics.size());
    return 1;
  }
  try {
    vp::Chain bad("blur=r=3,kmeans=q=2");
    std::fprintf(stderr, "consumer: a bad chain was accepted\n");
    return 1;
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("at 16") == std::string::npos) {
      std::fprintf(stderr, "consumer: the error names no position: %s\n", e.what());
      return 1;
    }
  }
  std::printf("consumer: %s on %dx%d: %zu colours, %g iterations; vidproc %s\n", chain.describe().c_str(), w, h,
              colours.size(), metrics[1].get("iterations"), vp::cudaAvailable() ? "with CUDA" : "on the CPU");
  return 0;
}
