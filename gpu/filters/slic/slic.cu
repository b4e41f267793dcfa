// SLIC on the GPU (slic.h has the contract, docs/design/slic.md the reasoning).
//
// Pixel kernels run 32 x 8 blocks: a warp is 32 consecutive pixels of one row, so its
// pixels mostly share a superpixel / region, and sums are added per warp by label
// (__match_any_sync + a shuffle tree) before one 64-bit atomic per label and value.
// Chunk kernels run 1024 threads over 1024 consecutive raster indices.
#include "gpu/cuda/cuda_check.h"
#include "gpu/filters/slic/slic.h"

#include <stdexcept>
#include <string>

namespace vp {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;  // pixel kernels: a warp = 32 pixels of a row
constexpr int kChunk = 1024;              // chunk kernels: threads = pixels per block
constexpr uint32_t kNone = 0xFFFFFFFFu;   // the label of a lane past the row's end
constexpr unsigned kFullWarp = 0xFFFFFFFFu;

struct Grid {
  int width, height, cols, rows;  // pixels, cells
  float weight;                   // w = m^2 / S^2
  uint32_t minRegion;             // pixels
};

// Sum of `v[]` over the lanes of `peers` (this lane's group), valid at the group's lowest
// lane (NVIDIA's reduce_peers: a tree over the peers above each lane). All 32 lanes call.
template <int kValues>
__device__ void reducePeers(uint32_t peers, int lane, uint32_t (&v)[kValues]) {
  int rank = __popc(peers & ((1u << lane) - 1u));  // position among the peers
  peers &= 0xFFFFFFFEu << lane;                    // peers above this lane
  while (__any_sync(kFullWarp, peers != 0)) {
    const int next = __ffs(peers);  // the next peer still in (1-based; 0: none)
#pragma unroll
    for (int k = 0; k < kValues; ++k) {
      const uint32_t t = __shfl_sync(kFullWarp, v[k], next ? next - 1 : lane);
      if (next) v[k] += t;
    }
    peers &= ~__ballot_sync(kFullWarp, rank & 1);  // odd ranks are done
    rank >>= 1;
  }
}

// Union-find root (parents point to smaller indices); reads bypass L1, which other SMs'
// hooks do not update.
__device__ uint32_t findRoot(const uint32_t* parent, uint32_t i) {
  uint32_t p;
  while ((p = __ldcg(parent + i)) != i) i = p;
  return i;
}

// Joins the trees of a and b, the larger root hooked under the smaller with atomicMin
// (Playne & Hawick 2018): a root is always its tree's least index.
__device__ void unite(uint32_t* parent, uint32_t a, uint32_t b) {
  bool done;
  do {
    a = findRoot(parent, a);
    b = findRoot(parent, b);
    if (a < b) {
      const uint32_t old = atomicMin(parent + b, a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const uint32_t old = atomicMin(parent + a, b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

// Exclusive prefix sum of v over a 1024-thread block; *total gets the block's sum.
__device__ uint32_t blockExclusiveScan(uint32_t v, uint32_t* total) {
  __shared__ uint32_t warpSums[kChunk / 32];
  const int lane = int(threadIdx.x) & 31, warp = int(threadIdx.x) >> 5;
  uint32_t inclusive = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const uint32_t t = __shfl_up_sync(kFullWarp, inclusive, d);
    if (lane >= d) inclusive += t;
  }
  if (lane == 31) warpSums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    uint32_t s = warpSums[lane];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const uint32_t t = __shfl_up_sync(kFullWarp, s, d);
      if (lane >= d) s += t;
    }
    warpSums[lane] = s;  // inclusive over warps
  }
  __syncthreads();
  const uint32_t before = (warp > 0 ? warpSums[warp - 1] : 0u) + inclusive - v;
  *total = warpSums[kChunk / 32 - 1];
  __syncthreads();  // warpSums is reused by the next call
  return before;
}

__global__ void initCentres(ConstRgbaView in, Grid g, SlicCentre* centres, SlicSums* sums) {
  const int c = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= g.cols * g.rows) return;
  centres[c] = slic::initialCentre(in, c, g.cols, g.rows);
  sums[c] = SlicSums{};
}

// One assignment. kFinal = false: add each pixel to its centre's sums. kFinal = true: write
// the superpixel map and start connectivity: parent = the first pixel of the pixel's run of
// equal labels within its warp (so trees start shallow), link (component sizes) = 0.
template <bool kFinal>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    assignKernel(ConstRgbaView in, Grid g, const SlicCentre* centres, SlicSums* sums, uint32_t* label,
                 uint32_t* parent, uint32_t* link) {
  const int lane = int(threadIdx.x), x = int(blockIdx.x) * kBlockX + lane, y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (y >= g.height) return;  // the whole warp: one row
  const bool inside = x < g.width;
  uchar4 p = make_uchar4(0, 0, 0, 0);
  uint32_t l = kNone;
  if (inside) {
    p = in.at(x, y);
    l = slic::nearestCentre(p, x, y, centres, g.width, g.height, g.cols, g.rows, g.weight);
  }
  if constexpr (!kFinal) {
    const uint32_t peers = __match_any_sync(kFullWarp, l);
    uint32_t v[6] = {p.x, p.y, p.z, inside ? uint32_t(x) : 0u, inside ? uint32_t(y) : 0u, inside ? 1u : 0u};
    reducePeers(peers, lane, v);
    if (inside && lane == __ffs(peers) - 1) {
      SlicSums& s = sums[l];
      atomicAdd(&s.r, (unsigned long long)v[0]);
      atomicAdd(&s.g, (unsigned long long)v[1]);
      atomicAdd(&s.b, (unsigned long long)v[2]);
      atomicAdd(&s.x, (unsigned long long)v[3]);
      atomicAdd(&s.y, (unsigned long long)v[4]);
      atomicAdd(&s.count, (unsigned long long)v[5]);
    }
  } else {
    const uint32_t left = __shfl_up_sync(kFullWarp, l, 1);
    const uint32_t starts = __ballot_sync(kFullWarp, lane == 0 || left != l);
    if (inside) {
      const int start = 31 - __clz(starts & (kFullWarp >> (31 - lane)));  // the last run start <= lane
      const size_t i = size_t(y) * size_t(g.width) + size_t(x);
      label[i] = l;
      parent[i] = uint32_t(i) - uint32_t(lane - start);
      link[i] = 0;
    }
  }
}

// The new centres from the sums, and the sums zeroed for the next round.
__global__ void updateCentres(int count, SlicCentre* centres, SlicSums* sums) {
  const int c = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= count) return;
  slic::updateCentre(centres[c], sums[c]);
  sums[c] = SlicSums{};
}

// The unions the warp runs left: across warp boundaries within a row, and with the pixel
// above where it is not implied by the left neighbour's (same label to the left and up-left).
__global__ void __launch_bounds__(kBlockX* kBlockY) unionKernel(Grid g, const uint32_t* label, uint32_t* parent) {
  const int x = int(blockIdx.x) * kBlockX + int(threadIdx.x), y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (x >= g.width || y >= g.height) return;
  const uint32_t w = uint32_t(g.width), i = uint32_t(y) * w + uint32_t(x), l = label[i];
  const bool sameLeft = x > 0 && label[i - 1] == l;
  if (sameLeft && (x % kBlockX) == 0) unite(parent, i, i - 1);
  if (y > 0 && label[i - w] == l && !(sameLeft && label[i - w - 1] == l)) unite(parent, i, i - w);
}

// Every pixel to its root; each root's size (aggregated per warp) into link.
__global__ void __launch_bounds__(kBlockX* kBlockY) compressKernel(Grid g, uint32_t* parent, uint32_t* link) {
  const int lane = int(threadIdx.x), x = int(blockIdx.x) * kBlockX + lane, y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (y >= g.height) return;
  uint32_t root = kNone;
  if (x < g.width) {
    const uint32_t i = uint32_t(y) * uint32_t(g.width) + uint32_t(x);
    root = findRoot(parent, i);
    parent[i] = root;
  }
  const uint32_t peers = __match_any_sync(kFullWarp, root);
  if (root != kNone && lane == __ffs(peers) - 1) atomicAdd(link + root, uint32_t(__popc(peers)));
}

// Per root: kept (pixel 0, or minRegion pixels or more): link = itself; else link = the
// root of the pixel left of it (else above it). Per chunk: the number of kept roots.
__global__ void __launch_bounds__(kChunk) decideKernel(Grid g, const uint32_t* parent, uint32_t* link, uint32_t* chunkCount) {
  const uint32_t i = blockIdx.x * kChunk + threadIdx.x, pixels = uint32_t(g.width) * uint32_t(g.height);
  bool kept = false;
  if (i < pixels && parent[i] == i) {
    kept = i == 0 || link[i] >= g.minRegion;
    link[i] = kept ? i : parent[i % uint32_t(g.width) > 0 ? i - 1 : i - uint32_t(g.width)];
  }
  const int count = __syncthreads_count(kept);
  if (threadIdx.x == 0) chunkCount[blockIdx.x] = uint32_t(count);
}

// One block: the chunks' exclusive prefix sums, the region count, zeroed region sums.
__global__ void __launch_bounds__(kChunk) scanKernel(int chunks, int centres, const uint32_t* chunkCount,
                                                    uint32_t* chunkStart, SlicRegionSums* regionSums, SlicStats* stats) {
  uint32_t running = 0;
  for (int base = 0; base < chunks; base += kChunk) {
    const int c = base + int(threadIdx.x);
    uint32_t total;
    const uint32_t before = blockExclusiveScan(c < chunks ? chunkCount[c] : 0u, &total);
    if (c < chunks) chunkStart[c] = running + before;
    running += total;
  }
  if (threadIdx.x == 0) {
    stats->regions = running;
    stats->centres = uint32_t(centres);
  }
  for (uint32_t r = threadIdx.x; r < running; r += kChunk) regionSums[r] = SlicRegionSums{};
}

// Per root: a merged one follows the merge links to its kept component (path splitting;
// links only ever point to smaller roots, so the walk ends, and they only ever decrease);
// a kept one gets its rank (its
// order among the kept roots, in raster order) in label.
__global__ void __launch_bounds__(kChunk) resolveKernel(Grid g, const uint32_t* parent, uint32_t* link,
                                                        const uint32_t* chunkStart, uint32_t* label) {
  const uint32_t i = blockIdx.x * kChunk + threadIdx.x, pixels = uint32_t(g.width) * uint32_t(g.height);
  bool kept = false;
  if (i < pixels && parent[i] == i) {
    uint32_t a = i, b = __ldcg(link + i);
    kept = b == i;
    // Every write is an atomicMin: all links on a chain lie above its kept root K, so a late
    // splitting store from another thread can never undo the owner's link[i] = K.
    while (b != a) {
      const uint32_t c = __ldcg(link + b);
      if (c != b) atomicMin(link + a, c);
      a = b;
      b = c;
    }
    if (!kept) atomicMin(link + i, a);
  }
  uint32_t total;
  const uint32_t before = blockExclusiveScan(kept ? 1u : 0u, &total);
  if (kept) label[i] = chunkStart[blockIdx.x] + before;
}

// Each pixel's region id (into parent) and the regions' colour sums.
__global__ void __launch_bounds__(kBlockX* kBlockY)
    regionSumsKernel(ConstRgbaView in, Grid g, uint32_t* parent, const uint32_t* link, const uint32_t* label,
                     SlicRegionSums* regionSums) {
  const int lane = int(threadIdx.x), x = int(blockIdx.x) * kBlockX + lane, y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (y >= g.height) return;
  uint32_t rank = kNone;
  uchar4 p = make_uchar4(0, 0, 0, 0);
  if (x < g.width) {
    const uint32_t i = uint32_t(y) * uint32_t(g.width) + uint32_t(x), region = link[parent[i]];
    parent[i] = region;
    rank = label[region];
    p = in.at(x, y);
  }
  const uint32_t peers = __match_any_sync(kFullWarp, rank);
  uint32_t v[4] = {p.x, p.y, p.z, rank != kNone ? 1u : 0u};
  reducePeers(peers, lane, v);
  if (rank != kNone && lane == __ffs(peers) - 1) {
    SlicRegionSums& s = regionSums[rank];
    atomicAdd(&s.r, (unsigned long long)v[0]);
    atomicAdd(&s.g, (unsigned long long)v[1]);
    atomicAdd(&s.b, (unsigned long long)v[2]);
    atomicAdd(&s.count, (unsigned long long)v[3]);
  }
}

// View colour: each pixel its region's mean colour, alpha from the input.
__global__ void __launch_bounds__(kBlockX* kBlockY)
    paintKernel(ConstRgbaView in, Grid g, const uint32_t* region, const uint32_t* label,
                const SlicRegionSums* regionSums, RgbaView out) {
  const int x = int(blockIdx.x) * kBlockX + int(threadIdx.x), y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (x >= g.width || y >= g.height) return;
  const uint32_t alpha = uint32_t(in.at(x, y).w) << 24;
  const uint32_t rank = label[region[size_t(y) * size_t(g.width) + size_t(x)]];
  tiles::storePixel(out, x, y, slic::regionColour(regionSums[rank], alpha));
}

unsigned blocksFor(int64_t n, int per) { return unsigned((n + per - 1) / per); }

}  // namespace

SlicWorkspace::SlicWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxSlicDimension || maxHeight > kMaxSlicDimension)
    throw std::invalid_argument("SlicWorkspace: size outside 1.." + std::to_string(kMaxSlicDimension));
  const size_t pixels = size_t(maxWidth) * size_t(maxHeight), centres = size_t(slicMaxCentres(maxWidth, maxHeight));
  const size_t chunks = (pixels + kChunk - 1) / kChunk;
  centres_ = DeviceBuffer(centres * sizeof(SlicCentre));
  sums_ = DeviceBuffer(centres * sizeof(SlicSums));
  labels_ = DeviceBuffer(pixels * sizeof(uint32_t));
  parent_ = DeviceBuffer(pixels * sizeof(uint32_t));
  link_ = DeviceBuffer(pixels * sizeof(uint32_t));
  chunkCount_ = DeviceBuffer(chunks * sizeof(uint32_t));
  chunkStart_ = DeviceBuffer(chunks * sizeof(uint32_t));
  regionSums_ = DeviceBuffer(size_t(slicMaxRegions(maxWidth, maxHeight)) * sizeof(SlicRegionSums));
  stats_ = DeviceBuffer(sizeof(SlicStats));
  VP_CUDA_CHECK(cudaMemset(stats_.get(), 0, sizeof(SlicStats)));
}

void slicGpu(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicWorkspace& ws,
             cudaStream_t stream) {
  if (!detail::checkSlicArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "slicGpu")) return;
  const SlicFrame f = slicFrameOf(in.width, in.height, params.superpixels, params.compactness);
  const Grid g{f.width, f.height, f.cols, f.rows, f.weight, uint32_t(f.minRegion)};
  const int centres = f.centres();
  const int64_t pixels = int64_t(f.width) * f.height;
  const int chunks = int(blocksFor(pixels, kChunk));
  auto* centre = ws.centres_.as<SlicCentre>();
  auto* sums = ws.sums_.as<SlicSums>();
  auto* label = ws.labels_.as<uint32_t>();
  auto* parent = ws.parent_.as<uint32_t>();
  auto* link = ws.link_.as<uint32_t>();
  auto* regionSums = ws.regionSums_.as<SlicRegionSums>();
  const dim3 pixelBlock(kBlockX, kBlockY), pixelGrid(blocksFor(f.width, kBlockX), blocksFor(f.height, kBlockY));
  const unsigned centreBlocks = blocksFor(centres, 256);

  initCentres<<<centreBlocks, 256, 0, stream>>>(in, g, centre, sums);
  VP_CUDA_CHECK_LAUNCH();
  for (int it = 0; it < params.iterations; ++it) {
    assignKernel<false><<<pixelGrid, pixelBlock, 0, stream>>>(in, g, centre, sums, label, parent, link);
    VP_CUDA_CHECK_LAUNCH();
    updateCentres<<<centreBlocks, 256, 0, stream>>>(centres, centre, sums);
    VP_CUDA_CHECK_LAUNCH();
  }
  assignKernel<true><<<pixelGrid, pixelBlock, 0, stream>>>(in, g, centre, sums, label, parent, link);
  VP_CUDA_CHECK_LAUNCH();
  unionKernel<<<pixelGrid, pixelBlock, 0, stream>>>(g, label, parent);
  VP_CUDA_CHECK_LAUNCH();
  compressKernel<<<pixelGrid, pixelBlock, 0, stream>>>(g, parent, link);
  VP_CUDA_CHECK_LAUNCH();
  decideKernel<<<unsigned(chunks), kChunk, 0, stream>>>(g, parent, link, ws.chunkCount_.as<uint32_t>());
  VP_CUDA_CHECK_LAUNCH();
  scanKernel<<<1, kChunk, 0, stream>>>(chunks, centres, ws.chunkCount_.as<uint32_t>(), ws.chunkStart_.as<uint32_t>(),
                                       regionSums, ws.stats_.as<SlicStats>());
  VP_CUDA_CHECK_LAUNCH();
  resolveKernel<<<unsigned(chunks), kChunk, 0, stream>>>(g, parent, link, ws.chunkStart_.as<uint32_t>(), label);
  VP_CUDA_CHECK_LAUNCH();
  regionSumsKernel<<<pixelGrid, pixelBlock, 0, stream>>>(in, g, parent, link, label, regionSums);
  VP_CUDA_CHECK_LAUNCH();
  if (view == SegmentView::Colour) {
    paintKernel<<<pixelGrid, pixelBlock, 0, stream>>>(in, g, parent, label, regionSums, out);
    VP_CUDA_CHECK_LAUNCH();
  } else {
    segmentViewGpu(view, in, parent, out, stream);
  }
}

}  // namespace vp
