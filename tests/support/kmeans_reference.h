// An independent K-means reference, written from the contract in gpu/kmeans.h alone
// (it includes none of gpu/'s headers and shares none of its arithmetic):
//
//  - assignment by the exact squared RGB distance in double precision, ties to the
//    lowest index;
//  - new centre channel = (float)((double)integer sum / count); an empty cluster keeps
//    its centre;
//  - shift2 = the largest squared centre move, in double; stop when shift2 < epsilon or
//    after maxIterations iterations (shift2 = +inf when none ran);
//  - a final assignment against the final centres: labels, output = each centre channel
//    rounded half away from zero and clamped to 0..255 (alpha copied), cost = the sum of
//    the integer squared r, g, b distances between input and output;
//  - initial centres: Uniform = pixels at raster index floor(j*N/k); KmeansPlusPlus as
//    specified in the comment of kmeansPlusPlusReference below; Warm = given centres.
//
// The contract lets the implementation's float score choose a centre up to 0.25 squared
// levels farther than the nearest, so where two different centres are within kTieMargin (squared
// 8-bit levels) of a pixel's nearest one the choice is the implementation's: the
// reference calls that pixel ambiguous. Likewise a stop decision where shift2 lies within
// a rounding error of epsilon. An optional guide (the implementation's own assignment
// against given centres, asked only in passes with an ambiguous pixel) settles those
// choices only: the reference takes the guide's label for an ambiguous pixel when that
// centre is within kTieMargin of the nearest, and records a violation otherwise. The
// pixels it is not asked about are the caller's to compare.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vp::test::ref {

constexpr int kRefMaxClusters = 32;
constexpr uint64_t kRefPlusPlusSamples = 16384;
constexpr double kTieMargin = 0.25;  // squared 8-bit levels (the contract's float-score margin)

enum class RefInit { Uniform, PlusPlus, Warm };

using Centre = std::array<float, 3>;  // r, g, b

struct RefParams {
  int k = 8;
  int maxIterations = 20;
  float epsilon = 0.01f;
  RefInit init = RefInit::Uniform;
  uint64_t seed = 0x5eed;
  std::vector<Centre> warm;  // Warm: the initial centres (at least k)
};

struct RefResult {
  std::vector<Centre> initial;   // the centres before the first iteration
  std::vector<Centre> centres;   // final centres
  std::vector<uint8_t> labels;   // per pixel, raster order
  std::vector<uint8_t> rgba;     // output, 4 bytes per pixel
  int iterations = 0;
  double shift2 = 0;             // +inf when no iteration ran
  uint64_t cost = 0;
  int64_t ambiguousPixels = 0;   // assignments (every pass, final included) the contract leaves open
  int64_t guidedPixels = 0;      // ... of which the guide settled differently from the exact distance
  int ambiguousStops = 0;        // stop decisions within rounding of epsilon
  std::vector<std::string> violations;  // guide labels outside the contract's tolerance (first few)
};

// The implementation's labels for the given centres (raster order), to settle ambiguous
// pixels; an empty function: the reference's own choice (lowest exact distance).
using LabelGuide = std::function<std::vector<uint8_t>(const std::vector<Centre>& centres)>;

// rgba: width*height pixels, 4 bytes each, rows packed. guideIterations: when a stop
// decision is ambiguous, stop there iff the implementation ran that many iterations
// (-1: decide by the double value).
RefResult kmeansReference(const uint8_t* rgba, int width, int height, const RefParams& params,
                          const LabelGuide& guide = {}, int guideIterations = -1);

// k-means++ seeding, as the contract should state it (kmeans.h gives only its outline):
//   M = min(N, 16384); sample S_i = pixel at raster index floor(i*N/M), i = 0..M-1.
//   r = SplitMix64(seed): state += 0x9E3779B97F4A7C15; z = state;
//       z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB;
//       return z ^ z>>31 (all mod 2^64).
//   centre 0 = S[r() % M]. Then while fewer than k centres: D_i = min over the chosen
//   centres of the integer squared r,g,b distance of S_i, T = sum of D_i; if T == 0 the
//   next centre is S[r() % M]; else u = r() % T and the next centre is S_i for the
//   smallest i with D_0 + ... + D_i > u.
std::vector<Centre> kmeansPlusPlusReference(const uint8_t* rgba, uint64_t pixels, int k, uint64_t seed);

}  // namespace vp::test::ref
