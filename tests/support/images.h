// Test and benchmark inputs: deterministic random and natural-looking images,
// poisoning, host <-> device copies and comparison helpers.
#pragma once

#include "gpu/cuda/cuda_resources.h"
#include "gpu/image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vp::test {

// Uniform random bytes in every channel (alpha too), seeded.
HostImage makeRandom(int width, int height, uint64_t seed);
// Smooth gradients, a few soft-edged blobs and mild noise: what camera frames look
// like to K-means and blur. `phase` moves the content (consecutive frames of a clip).
// Never all zeros; alpha 255.
HostImage makeNatural(int width, int height, uint64_t seed, float phase = 0.f);
// `regions` (2..8) flat colour regions as large blobs (the Voronoi cells of points
// jittered around a grid, each painted a colour of a fixed, well-separated palette) plus
// Gaussian noise of `noise` levels per channel, rounded and clamped; alpha 255. `labels`,
// when given, receives each pixel's region (raster order). What automatic K must count.
HostImage makeBlobs(int width, int height, int regions, double noise, uint64_t seed,
                    std::vector<int>* labels = nullptr);
// The image as packed RGB24 rows (alpha dropped), what the processors output.
std::vector<uint8_t> packRgb(const HostImage& image);
// Random bytes, usable as raw planes of any format.
std::vector<uint8_t> randomBytes(size_t n, uint64_t seed);

// Fills a device image (its whole pitch) with a byte pattern that no kernel writes
// by accident, so unwritten pixels show up in comparisons. poison() and upload()
// return once the device has finished them (they run on the legacy default stream,
// which does not order with non-blocking streams).
constexpr uint8_t kPoison = 0xA5;
void poison(const DeviceImage& image);
void poison(HostImage& image);

DeviceImage upload(const HostImage& image);
void upload(const HostImage& src, const DeviceImage& dst);
HostImage download(const DeviceImage& image);

// Number of differing pixels (any channel), and a description of the first.
struct ImageDiff {
  size_t differing = 0;
  std::string first;  // "at (x,y): got (r,g,b,a) want (r,g,b,a)"
};
ImageDiff compare(const HostImage& got, const HostImage& want);
// Largest |difference| of the r, g, b channels (same-size images); 1000 when an alpha differs.
int maxRgbDiff(const HostImage& a, const HostImage& b);

// SplitMix64: tiny, seedable, identical everywhere.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

}  // namespace vp::test
