// NPP's Gaussian, median, Sobel and bilateral on packed RGB24, timed as vidproc's kernel
// rows are (CUDA events around a batch of calls on one stream, input already on the
// device), to put beside BM_GaussGpu, BM_MedianGpu, BM_EdgesGpu and BM_BilateralGpu in
// docs/benchmarks.md. Built and
// run on the GPU machine, where the CUDA toolkit carries NPP (not a Debian package):
//   tests/bench/peers/run_peers.sh
// Prints one line per case: "npp CASE WxH: MEDIAN_US us (min MIN_US)".
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK_CUDA(x)                                                                \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)
#define CHECK_NPP(x)                                                         \
  do {                                                                       \
    NppStatus s_ = (x);                                                      \
    if (s_ < 0) {                                                            \
      std::fprintf(stderr, "%s:%d NPP status %d\n", __FILE__, __LINE__, int(s_)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

namespace {

NppStreamContext contextFor(cudaStream_t stream) {
  NppStreamContext c{};
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDevice(&c.nCudaDeviceId));
  CHECK_CUDA(cudaGetDeviceProperties(&prop, c.nCudaDeviceId));
  c.hStream = stream;
  c.nMultiProcessorCount = prop.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  c.nSharedMemPerBlock = prop.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = prop.major;
  c.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  CHECK_CUDA(cudaStreamGetFlags(stream, &c.nStreamFlags));
  return c;
}

// Median over 7 batches of the per-call time of `calls` back-to-back calls, in microseconds.
void timeCase(const char* name, int w, int h, cudaStream_t stream, const std::function<void()>& call) {
  for (int i = 0; i < 3; ++i) call();  // warm-up (first-call setup, clocks)
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const int calls = 20;
  std::vector<float> us;
  for (int batch = 0; batch < 7; ++batch) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < calls; ++i) call();
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    us.push_back(ms * 1000.f / calls);
  }
  std::sort(us.begin(), us.end());
  std::printf("npp %-28s %dx%d: %9.1f us (min %.1f)\n", name, w, h, us[us.size() / 2], us.front());
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
}

void runSize(int w, int h, cudaStream_t stream) {
  const NppStreamContext ctx = contextFor(stream);
  // The median has no border mode: the source carries a 15-pixel apron on every side.
  const int apron = 15, pw = w + 2 * apron, ph = h + 2 * apron;
  Npp8u *src = nullptr, *dst = nullptr;
  size_t srcPitch = 0, dstPitch = 0;
  CHECK_CUDA(cudaMallocPitch(&src, &srcPitch, size_t(pw) * 3, ph));
  CHECK_CUDA(cudaMallocPitch(&dst, &dstPitch, size_t(w) * 3, h));
  std::vector<Npp8u> host(srcPitch * ph);
  unsigned seed = 12345;
  for (size_t i = 0; i < host.size(); ++i) host[i] = Npp8u((seed = seed * 1664525u + 1013904223u) >> 24);
  CHECK_CUDA(cudaMemcpy(src, host.data(), host.size(), cudaMemcpyHostToDevice));
  const Npp8u* inner = src + apron * srcPitch + apron * 3;
  const NppiSize size{w, h}, srcSize{w, h};
  const NppiPoint origin{0, 0};

  // Gaussian, sigma 5 (31 taps) and 1 (7 taps), normalised weights on the device.
  for (double sigma : {1.0, 5.0}) {
    const int radius = int(std::ceil(3 * sigma)), taps = 2 * radius + 1;
    std::vector<float> k(taps);
    double sum = 0;
    for (int i = 0; i < taps; ++i) sum += k[i] = float(std::exp(-double((i - radius) * (i - radius)) / (2 * sigma * sigma)));
    for (float& v : k) v = float(v / sum);
    Npp32f* dk = nullptr;
    CHECK_CUDA(cudaMalloc(&dk, taps * sizeof(Npp32f)));
    CHECK_CUDA(cudaMemcpy(dk, k.data(), taps * sizeof(Npp32f), cudaMemcpyHostToDevice));
    char name[64];
    std::snprintf(name, sizeof name, "gauss-advanced sigma=%g", sigma);
    timeCase(name, w, h, stream, [&] {
      CHECK_NPP(nppiFilterGaussAdvancedBorder_8u_C3R_Ctx(inner, int(srcPitch), srcSize, origin, dst, int(dstPitch), size,
                                                          taps, dk, NPP_BORDER_REPLICATE, ctx));
    });
    CHECK_CUDA(cudaFree(dk));
  }
  timeCase("gauss 5x5 mask", w, h, stream, [&] {
    CHECK_NPP(nppiFilterGaussBorder_8u_C3R_Ctx(inner, int(srcPitch), srcSize, origin, dst, int(dstPitch), size,
                                               NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx));
  });

  // Median r = 1, 2, 7 (no border mode: reads the apron).
  for (int r : {1, 2, 7}) {
    const NppiSize mask{2 * r + 1, 2 * r + 1};
    const NppiPoint anchor{r, r};
    Npp32u bytes = 0;
    CHECK_NPP(nppiFilterMedianGetBufferSize_8u_C3R_Ctx(size, mask, &bytes, ctx));
    Npp8u* buffer = nullptr;
    CHECK_CUDA(cudaMalloc(&buffer, std::max<Npp32u>(bytes, 1)));
    char name[64];
    std::snprintf(name, sizeof name, "median r=%d", r);
    timeCase(name, w, h, stream, [&] {
      CHECK_NPP(nppiFilterMedian_8u_C3R_Ctx(inner, int(srcPitch), dst, int(dstPitch), size, mask, anchor, buffer, ctx));
    });
    CHECK_CUDA(cudaFree(buffer));
  }

  // Sobel magnitude (L2) straight from RGB, as one call; and the grey conversion alone.
  Npp16s* mag = nullptr;
  size_t magPitch = 0;
  CHECK_CUDA(cudaMallocPitch(&mag, &magPitch, size_t(w) * 2, h));
  timeCase("sobel magnitude (rgb -> L2)", w, h, stream, [&] {
    CHECK_NPP(nppiGradientVectorSobelBorder_8u16s_C3C1R_Ctx(inner, int(srcPitch), srcSize, origin, nullptr, 0, nullptr, 0,
                                                           mag, int(magPitch), nullptr, 0, size, NPP_MASK_SIZE_3_X_3,
                                                           nppiNormL2, NPP_BORDER_REPLICATE, ctx));
  });
  CHECK_CUDA(cudaFree(mag));

  // Bilateral r = 3, 5, 7 with BM_BilateralGpu's S = 3, V = 30, border replicate (the only
  // border NPP's bilateral takes; 8u C3 is its only 8-bit colour form, no C4 / AC4).
  // Parameter mapping: NPP takes squares, nPosSquareSigma = S^2 and nValSquareSigma = V^2
  // ("the square of the sigma for the relative geometric / intensity distance"), for
  // weights exp(-(h^2 + w^2) / 2 S^2) * exp(-d^2 / 2 V^2). Its header's formula writes
  // func(S, I) = exp(-I^2 / 2 S^2) with S the parameter itself, which taken literally
  // would square it twice; we follow the parameter descriptions (and IPP's API of the same
  // names); the reading changes NPP's weights, not the work it does. NPP calls its window
  // "round" (it may skip the corners of the (2r+1)^2 square our filter sums) and does not
  // say how it measures a colour distance: its row may do less work than ours, not more.
  for (int r : {3, 5, 7}) {
    const float s = 3.f, v = 30.f;
    char name[64];
    std::snprintf(name, sizeof name, "bilateral r=%d s=3 v=30", r);
    timeCase(name, w, h, stream, [&] {
      CHECK_NPP(nppiFilterBilateralGaussBorder_8u_C3R_Ctx(inner, int(srcPitch), srcSize, origin, dst, int(dstPitch), size,
                                                          r, 1, v * v, s * s, NPP_BORDER_REPLICATE, ctx));
    });
  }
  CHECK_CUDA(cudaFree(src));
  CHECK_CUDA(cudaFree(dst));
}

}  // namespace

int main() {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  runSize(1920, 1080, stream);
  runSize(3840, 2160, stream);
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
