#include "support/images.h"

#include "gpu/cuda/cuda_check.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace vp::test {

HostImage makeRandom(int width, int height, uint64_t seed) {
  HostImage img(width, height);
  SplitMix64 rng(seed);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      uint64_t v = rng.next();
      img.at(x, y) = make_uchar4(uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24));
    }
  return img;
}

HostImage makeBlobs(int width, int height, int regions, double noise, uint64_t seed, std::vector<int>* labels) {
  static constexpr uint8_t kPalette[8][3] = {{230, 40, 40},  {40, 200, 60},  {40, 60, 220},   {240, 220, 50},
                                             {200, 60, 200}, {40, 210, 210}, {235, 235, 235}, {20, 20, 20}};
  regions = std::clamp(regions, 1, 8);
  SplitMix64 rng(seed);
  const auto unit = [&] { return double(rng.next() >> 11) * 0x1.0p-53; };  // [0, 1)
  // Centres: a cols x rows grid with at least `regions` cells, one centre in each of the
  // first `regions` cells, jittered within its middle half.
  const int cols = int(std::ceil(std::sqrt(double(regions)))), rows = (regions + cols - 1) / cols;
  std::vector<std::array<double, 2>> centres;
  for (int i = 0; i < regions; ++i)
    centres.push_back({(i % cols + 0.25 + 0.5 * unit()) * width / cols, (i / cols + 0.25 + 0.5 * unit()) * height / rows});
  HostImage img(width, height);
  if (labels) labels->assign(size_t(width) * size_t(height), 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      int best = 0;
      double bestD = 1e300;
      for (int i = 0; i < regions; ++i) {
        const double dx = x + 0.5 - centres[size_t(i)][0], dy = y + 0.5 - centres[size_t(i)][1];
        if (dx * dx + dy * dy < bestD) bestD = dx * dx + dy * dy, best = i;
      }
      if (labels) (*labels)[size_t(y) * size_t(width) + size_t(x)] = best;
      uint8_t c[3];
      for (int ch = 0; ch < 3; ++ch) {
        // Box-Muller: one normal deviate from two uniforms (1 - u keeps the log finite).
        const double n = std::sqrt(-2.0 * std::log(1.0 - unit())) * std::cos(6.283185307179586 * unit());
        c[ch] = uint8_t(std::clamp(std::lround(kPalette[best][ch] + noise * n), 0L, 255L));
      }
      img.at(x, y) = make_uchar4(c[0], c[1], c[2], 255);
    }
  return img;
}

HostImage makeNatural(int width, int height, uint64_t seed, float phase) {
  HostImage img(width, height);
  SplitMix64 rng(seed);
  struct Blob {
    float cx, cy, r, red, green, blue;
  };
  Blob blobs[6];
  for (Blob& b : blobs) {
    b.cx = float(rng.next() % 1000) / 1000.f;
    b.cy = float(rng.next() % 1000) / 1000.f;
    b.r = 0.08f + float(rng.next() % 1000) / 5000.f;
    b.red = float(rng.next() % 256);
    b.green = float(rng.next() % 256);
    b.blue = float(rng.next() % 256);
  }
  const float w = float(std::max(width, 1)), h = float(std::max(height, 1));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float u = x / w, v = y / h;
      float r = 40.f + 150.f * u, g = 60.f + 120.f * v, b = 200.f - 120.f * u * v;
      for (int i = 0; i < 6; ++i) {
        const Blob& bl = blobs[i];
        float dx = u - bl.cx - 0.05f * phase * float(i % 3 - 1), dy = v - bl.cy - 0.03f * phase;
        float d = std::sqrt(dx * dx + dy * dy) / bl.r;
        float a = std::clamp(1.5f - d, 0.f, 1.f);  // soft edge
        r += a * (bl.red - r);
        g += a * (bl.green - g);
        b += a * (bl.blue - b);
      }
      int noise = int(rng.next() % 9) - 4;
      auto px = [&](float c) { return uint8_t(std::clamp(int(c) + noise, 1, 255)); };
      img.at(x, y) = make_uchar4(px(r), px(g), px(b), 255);
    }
  return img;
}

std::vector<uint8_t> packRgb(const HostImage& image) {
  std::vector<uint8_t> out;
  out.reserve(size_t(image.width()) * image.height() * 3);
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const uchar4 p = image.at(x, y);
      out.insert(out.end(), {p.x, p.y, p.z});
    }
  return out;
}

std::vector<uint8_t> randomBytes(size_t n, uint64_t seed) {
  std::vector<uint8_t> out(n);
  SplitMix64 rng(seed);
  for (auto& b : out) b = uint8_t(rng.next() >> 24);
  return out;
}

// The helpers below use the legacy default stream, which does not order with the
// project's non-blocking streams: each waits for the device so a kernel launched
// next on any stream sees its result.
void poison(const DeviceImage& image) {
  VP_CUDA_CHECK(cudaMemset2D(image.view().data, image.pitch(), kPoison, image.pitch(), image.height()));
  VP_CUDA_CHECK(cudaDeviceSynchronize());
}

void poison(HostImage& image) {
  std::memset(static_cast<void*>(image.data()), kPoison, image.pitch() * image.height());
}

void upload(const HostImage& src, const DeviceImage& dst) {
  VP_CUDA_CHECK(cudaMemcpy2D(dst.view().data, dst.pitch(), src.data(), src.pitch(), src.pitch(), src.height(),
                             cudaMemcpyHostToDevice));
  VP_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceImage upload(const HostImage& image) {
  DeviceImage d(image.width(), image.height());
  upload(image, d);
  return d;
}

HostImage download(const DeviceImage& image) {
  HostImage h(image.width(), image.height());
  VP_CUDA_CHECK(cudaMemcpy2D(h.data(), h.pitch(), image.view().data, image.pitch(), h.pitch(), h.height(),
                             cudaMemcpyDeviceToHost));
  return h;
}

ImageDiff compare(const HostImage& got, const HostImage& want) {
  ImageDiff d;
  if (got.width() != want.width() || got.height() != want.height()) {
    d.differing = size_t(-1);
    d.first = "size mismatch";
    return d;
  }
  for (int y = 0; y < got.height(); ++y)
    for (int x = 0; x < got.width(); ++x) {
      uchar4 a = got.at(x, y), b = want.at(x, y);
      if (a.x != b.x || a.y != b.y || a.z != b.z || a.w != b.w) {
        if (d.differing++ == 0) {
          char buf[160];
          std::snprintf(buf, sizeof buf, "at (%d,%d): got (%d,%d,%d,%d) want (%d,%d,%d,%d)", x, y, a.x, a.y, a.z,
                        a.w, b.x, b.y, b.z, b.w);
          d.first = buf;
        }
      }
    }
  return d;
}

int maxRgbDiff(const HostImage& a, const HostImage& b) {
  int m = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const uchar4 p = a.at(x, y), q = b.at(x, y);
      m = std::max({m, std::abs(p.x - q.x), std::abs(p.y - q.y), std::abs(p.z - q.z)});
      if (p.w != q.w) m = std::max(m, 1000);  // alpha must be exact
    }
  return m;
}

}  // namespace vp::test
