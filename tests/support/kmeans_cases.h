// Shared pieces of the K-means test suites (test_kmeans.cpp: the CPU twin; test_kmeans_gpu.cpp:
// the GPU against the twin): inputs, runners for both backends, the bit-exact comparison and
// the parameter cases.
#pragma once

#include "gpu/filters/kmeans/kmeans.h"
#include "support/images.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace vp::kmtest {

struct Result {
  std::vector<uint8_t> labels;
  HostImage out;
  KmeansState state;
};

enum class Input { Random, Natural };

inline const HostImage& input(int w, int h, Input kind, float phase = 0.f) {
  static std::map<std::tuple<int, int, Input, float>, HostImage> cache;
  auto key = std::make_tuple(w, h, kind, phase);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache
             .emplace(key,
                      kind == Input::Random ? test::makeRandom(w, h, 42) : test::makeNatural(w, h, 7, phase))
             .first;
  return it->second;
}

// A plausible previous frame's state for warm starts.
inline KmeansState warmState() {
  KmeansState s;
  for (int j = 0; j < kMaxClusters; ++j) {
    s.centres[j][0] = float((j * 53 + 11) % 256) + 0.25f;
    s.centres[j][1] = float((j * 97 + 40) % 256) + 0.5f;
    s.centres[j][2] = float((j * 29 + 200) % 256) + 0.75f;
  }
  return s;
}

// Runners and comparison.

inline Result runCpu(const HostImage& img, const KmeansParams& p, const KmeansState& initial) {
  Result r{std::vector<uint8_t>(img.width() * size_t(img.height()), 0xA5),
           HostImage(img.width(), img.height()), initial};
  test::poison(r.out);
  kmeansCpu(img.cview(), r.out.view(), r.labels.data(), r.state, p);
  return r;
}

// One GPU run of `launch(in, out, labels, state, stream, warmFrom)` on `img` from
// `initial`. fromAfter (optional): run as the pipeline does, with the initial centres read
// from a second device state holding `initial` (kmeansGpu's warmFrom) while the state
// itself is poisoned (NaN bytes); *fromAfter receives that second state after the run.
template <class Launch>
Result runGpuWith(const HostImage& img, const KmeansState& initial, Launch launch, KmeansState* fromAfter = nullptr) {
  const size_t n = img.width() * size_t(img.height());
  DeviceImage in = test::upload(img), out(img.width(), img.height());
  test::poison(out);
  DeviceBuffer labels(n), state(sizeof(KmeansState)), from(fromAfter ? sizeof(KmeansState) : 0);
  VP_CUDA_CHECK(cudaMemset(labels.get(), test::kPoison, n));
  if (fromAfter) {
    VP_CUDA_CHECK(cudaMemset(state.get(), 0xFF, sizeof(KmeansState)));
    VP_CUDA_CHECK(cudaMemcpy(from.get(), &initial, sizeof initial, cudaMemcpyHostToDevice));
  } else {
    VP_CUDA_CHECK(cudaMemcpy(state.get(), &initial, sizeof initial, cudaMemcpyHostToDevice));
  }
  VP_CUDA_CHECK(cudaDeviceSynchronize());  // legacy-stream copies vs the non-blocking stream below
  Stream s;
  launch(in.view(), out.view(), labels.as<uint8_t>(), state.as<KmeansState>(), s.get(),
         fromAfter ? from.as<KmeansState>() : nullptr);
  s.synchronize();
  Result r{std::vector<uint8_t>(n), test::download(out), {}};
  VP_CUDA_CHECK(cudaMemcpy(r.labels.data(), labels.get(), n, cudaMemcpyDeviceToHost));
  VP_CUDA_CHECK(cudaMemcpy(&r.state, state.get(), sizeof r.state, cudaMemcpyDeviceToHost));
  if (fromAfter) VP_CUDA_CHECK(cudaMemcpy(fromAfter, from.get(), sizeof *fromAfter, cudaMemcpyDeviceToHost));
  return r;
}

// kmeansGpu's run (runGpuWith).
inline Result runGpu(const HostImage& img, const KmeansParams& p, const KmeansState& initial,
                     KmeansWorkspace& ws, KmeansState* fromAfter = nullptr) {
  return runGpuWith(
      img, initial,
      [&](ConstRgbaView in, RgbaView out, uint8_t* labels, KmeansState* state, cudaStream_t stream,
          const KmeansState* warm) { kmeansGpu(in, out, labels, state, p, ws, stream, warm); },
      fromAfter);
}

inline bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline void expectSame(const Result& got, const Result& want, int k) {
  EXPECT_EQ(got.state.k, want.state.k);
  EXPECT_EQ(got.state.iterations, want.state.iterations);
  EXPECT_EQ(got.state.cost, want.state.cost);
  EXPECT_TRUE(sameBits(got.state.shift2, want.state.shift2))
      << got.state.shift2 << " vs " << want.state.shift2;
  for (int j = 0; j < k; ++j)
    for (int ch = 0; ch < 4; ++ch)
      EXPECT_TRUE(sameBits(got.state.centres[j][ch], want.state.centres[j][ch]))
          << "centre " << j << "." << ch << ": " << got.state.centres[j][ch] << " vs "
          << want.state.centres[j][ch];
  size_t differing = 0, first = 0;
  for (size_t i = got.labels.size(); i-- > 0;)
    if (got.labels[i] != want.labels[i]) ++differing, first = i;
  EXPECT_EQ(differing, 0u) << "labels; first at " << first << ": " << int(got.labels[first]) << " vs "
                           << int(want.labels[first]);
  test::ImageDiff d = test::compare(got.out, want.out);
  EXPECT_EQ(d.differing, 0u) << d.first;
}

inline const char* initName(KmeansInit i) {
  return i == KmeansInit::Uniform ? "uniform" : i == KmeansInit::KmeansPlusPlus ? "kpp" : "warm";
}

struct Case {
  int w, h;
  Input input;
  int k;
  KmeansInit init;
  int maxIterations;
  float epsilon;
};

inline std::string caseName(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::to_string(c.w) + "x" + std::to_string(c.h) +
         (c.input == Input::Random ? "_random" : "_natural") + "_k" + std::to_string(c.k) + "_" +
         initName(c.init) + "_it" + std::to_string(c.maxIterations) + (c.epsilon > 0 ? "_early" : "_eps0") +
         "_" + std::to_string(info.index);
}

inline KmeansParams paramsOf(const Case& c) {
  KmeansParams p;
  p.k = c.k, p.init = c.init, p.maxIterations = c.maxIterations, p.epsilon = c.epsilon;
  return p;
}

// Small images: every k, init and stopping rule. Large: a selection (the naive loop is slow).
inline std::vector<Case> smallCases() {
  std::vector<Case> cases;
  for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {37, 11}})
    for (Input in : {Input::Random, Input::Natural})
      for (int k : {1, 2, 8, 32})
        for (KmeansInit init : {KmeansInit::Uniform, KmeansInit::KmeansPlusPlus, KmeansInit::Warm})
          for (auto [it, eps] : {std::pair{0, 0.f}, {3, 0.f}, {20, 0.f}, {50, 1.f}})
            cases.push_back({w, h, in, k, init, it, eps});
  return cases;
}

inline void expectArgumentChecks(
    const std::function<void(ConstRgbaView, RgbaView, const KmeansParams&)>& run) {
  HostImage img = test::makeRandom(8, 8, 1), out(8, 8), small(4, 8), empty;
  KmeansParams p;
  for (int k : {0, -1, 33}) {
    p.k = k;
    EXPECT_THROW(run(img.cview(), out.view(), p), std::invalid_argument) << k;
  }
  p = {};
  p.maxIterations = -1;
  EXPECT_THROW(run(img.cview(), out.view(), p), std::invalid_argument);
  p = {};
  EXPECT_THROW(run(empty.cview(), empty.view(), p), std::invalid_argument);
  EXPECT_THROW(run(img.cview(), small.view(), p), std::invalid_argument);
}

}  // namespace vp::kmtest
