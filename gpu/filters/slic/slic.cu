// SLIC on the GPU (slic.h has the contract, docs/design/slic.md the reasoning and the
// measurements).
//
// Superpixels (iterateKernel, one cooperative launch for init, rounds and final assignment):
// the frame is cut into items of 256 pixel columns x itemRows rows, about one per block;
// thread t of a block walks column x0 + t of its item top to bottom. Its cell column is
// fixed, so its 3 x 3 candidate centres (colour, y and (x - cx)^2) stay in registers until
// the walk enters the next cell row. Sums: a thread adds its run of equal labels in
// registers; where a run ends, the warp adds the ended runs by label (__match_any_sync + a
// shuffle tree) into the block's 32-bit shared slots, one per cell of the item's window,
// and the block adds its slots into the 64-bit centre sums once per item: about 60 global
// atomics an item instead of ~6 per label and warp row. grid.sync after the sums and after
// the centre update. Warps cover 32 aligned columns of one row, as the connectivity's pixel
// kernels' do, so the runs the final assignment starts its union-find trees from are the
// runs over which compress shares a root.
//
// Connectivity: pixel kernels in 32 x 8 blocks (a warp = 32 consecutive pixels of one row),
// chunk kernels of 1024 threads over 1024 consecutive raster indices, launched with
// programmatic dependent launch (sm_90); one lane a run of equal labels finds the root in
// compress, and the decide kernel's last block scans the chunks.
#include "gpu/cuda/cuda_check.h"
#include "gpu/cuda/launch.cuh"
#include "gpu/cuda/warp_reduce.cuh"  // kFullWarp
#include "gpu/filters/slic/slic.h"

#include <cooperative_groups.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vp {
namespace {

namespace cg = cooperative_groups;

constexpr int kBlockX = 32, kBlockY = 8;  // pixel kernels: a warp = 32 pixels of a row
constexpr int kChunk = 1024;              // chunk kernels: threads = pixels per block
constexpr uint32_t kNone = 0xFFFFFFFFu;   // the label of a lane past the row's end

// Superpixel kernel: block = item width; one shared slot a thread for the item's flush.
constexpr int kColumns = 256;
constexpr int kSlots = kColumns;
constexpr int kMaxItemRows = 512;          // keeps an item's 32-bit slot sums exact (below)
constexpr int kPersistentBlocksPerSm = 2;  // 115 registers, no spills (3 a SM would cap at 80: spills)
// A slot's x (or y) sum over an item is at most its pixels times the largest coordinate.
static_assert(uint64_t(kColumns) * kMaxItemRows * (kMaxSlicDimension - 1) <= 0xFFFFFFFFull,
              "an item's 32-bit slot sums must not wrap");

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

// A group's sums (SlicSums order: r, g, b, x, y, count) into a centre's 64-bit sums.
__device__ __forceinline__ void addSums(SlicSums& s, const uint32_t (&v)[6]) {
  atomicAdd(&s.r, (unsigned long long)v[0]);
  atomicAdd(&s.g, (unsigned long long)v[1]);
  atomicAdd(&s.b, (unsigned long long)v[2]);
  atomicAdd(&s.x, (unsigned long long)v[3]);
  atomicAdd(&s.y, (unsigned long long)v[4]);
  atomicAdd(&s.count, (unsigned long long)v[5]);
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

// The unions the warp runs left: across warp boundaries within a row, and with the pixel
// above where it is not implied by the left neighbour's (same label to the left and up-left).
__global__ void __launch_bounds__(kBlockX* kBlockY) unionKernel(Grid g, const uint32_t* label, uint32_t* parent) {
  waitForPriorGrid();  // no-op unless launched with programmatic dependent launch
  releaseNextGrid();
  const int x = int(blockIdx.x) * kBlockX + int(threadIdx.x), y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (x >= g.width || y >= g.height) return;
  const uint32_t w = uint32_t(g.width), i = uint32_t(y) * w + uint32_t(x), l = label[i];
  const bool sameLeft = x > 0 && label[i - 1] == l;
  if (sameLeft && (x % kBlockX) == 0) unite(parent, i, i - 1);
  if (y > 0 && label[i - w] == l && !(sameLeft && label[i - w - 1] == l)) unite(parent, i, i - w);
}

// Every pixel to its root; each root's size (aggregated per warp) into link. Only the first
// lane of a run of equal labels walks to the root, the others take it from that lane: the
// final assignment made that lane their parent, and unions only ever re-parent roots, so
// the run shares its root.
__global__ void __launch_bounds__(kBlockX* kBlockY)
    compressKernel(Grid g, const uint32_t* label, uint32_t* parent, uint32_t* link) {
  waitForPriorGrid();
  releaseNextGrid();
  const int lane = int(threadIdx.x), x = int(blockIdx.x) * kBlockX + lane, y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (y >= g.height) return;
  const bool inside = x < g.width;
  const uint32_t i = uint32_t(y) * uint32_t(g.width) + uint32_t(x);
  const uint32_t l = inside ? label[i] : kNone;
  const uint32_t left = __shfl_up_sync(kFullWarp, l, 1);
  const uint32_t starts = __ballot_sync(kFullWarp, lane == 0 || left != l);
  const int start = 31 - __clz(starts & (kFullWarp >> (31 - lane)));  // the last run start <= lane
  uint32_t root = kNone;
  if (inside && start == lane) root = findRoot(parent, i);
  root = __shfl_sync(kFullWarp, root, start);
  if (inside) parent[i] = root;
  const uint32_t peers = __match_any_sync(kFullWarp, root);
  if (root != kNone && lane == __ffs(peers) - 1) atomicAdd(link + root, uint32_t(__popc(peers)));
}

// What the chunk scan writes besides the chunk starts.
struct ScanArgs {
  int chunks, centres;
  const uint32_t* chunkCount;
  uint32_t* chunkStart;
  SlicRegionSums* regionSums;
  SlicStats* stats;
  uint32_t* decided;  // decideKernel: blocks done
};

// One 1024-thread block: the chunks' exclusive prefix sums, the region count, zeroed region
// sums. Counts read through L2: other blocks of decideKernel wrote them.
__device__ void scanChunks(const ScanArgs& s) {
  uint32_t running = 0;
  for (int base = 0; base < s.chunks; base += kChunk) {
    const int c = base + int(threadIdx.x);
    uint32_t total;
    const uint32_t before = blockExclusiveScan(c < s.chunks ? __ldcg(s.chunkCount + c) : 0u, &total);
    if (c < s.chunks) s.chunkStart[c] = running + before;
    running += total;
  }
  if (threadIdx.x == 0) {
    s.stats->regions = running;
    s.stats->centres = uint32_t(s.centres);
  }
  for (uint32_t r = threadIdx.x; r < running; r += kChunk) s.regionSums[r] = SlicRegionSums{};
}

// Per root: kept (pixel 0, or minRegion pixels or more): link = itself; else link = the
// root of the pixel left of it (else above it). Per chunk: the number of kept roots; the
// last block to finish scans the chunks (no one-block launch after it).
__global__ void __launch_bounds__(kChunk)
    decideKernel(Grid g, const uint32_t* parent, uint32_t* link, uint32_t* chunkCount, ScanArgs scan) {
  waitForPriorGrid();
  releaseNextGrid();
  const uint32_t i = blockIdx.x * kChunk + threadIdx.x, pixels = uint32_t(g.width) * uint32_t(g.height);
  bool kept = false;
  if (i < pixels && parent[i] == i) {
    kept = i == 0 || link[i] >= g.minRegion;
    link[i] = kept ? i : parent[i % uint32_t(g.width) > 0 ? i - 1 : i - uint32_t(g.width)];
  }
  const int count = __syncthreads_count(kept);
  // The threadFenceReduction pattern: count, fence, arrive; the last arrival fences again
  // before its block reads every count.
  __shared__ bool last;
  if (threadIdx.x == 0) {
    chunkCount[blockIdx.x] = uint32_t(count);
    __threadfence();
    last = atomicAdd(scan.decided, 1u) == gridDim.x - 1;
    if (last) __threadfence();
  }
  __syncthreads();
  if (last) {
    scanChunks(scan);
    if (threadIdx.x == 0) *scan.decided = 0;  // for the next call (stream-ordered after this one)
  }
}

// Per root: a merged one follows the merge links to its kept component (path splitting;
// links only ever point to smaller roots, so the walk ends, and they only ever decrease);
// a kept one gets its rank (its order among the kept roots, in raster order) in label.
__global__ void __launch_bounds__(kChunk) resolveKernel(Grid g, const uint32_t* parent, uint32_t* link,
                                                        const uint32_t* chunkStart, uint32_t* label) {
  waitForPriorGrid();
  releaseNextGrid();
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
  waitForPriorGrid();
  releaseNextGrid();
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
  waitForPriorGrid();
  releaseNextGrid();
  const int x = int(blockIdx.x) * kBlockX + int(threadIdx.x), y = int(blockIdx.y) * kBlockY + int(threadIdx.y);
  if (x >= g.width || y >= g.height) return;
  const uint32_t alpha = uint32_t(in.at(x, y).w) << 24;
  const uint32_t rank = label[region[size_t(y) * size_t(g.width) + size_t(x)]];
  tiles::storePixel(out, x, y, slic::regionColour(regionSums[rank], alpha));
}

// ---- The superpixel kernel (persistent) ----

struct IterateArgs {
  ConstRgbaView in;
  Grid g;
  SlicCentre* centres;
  SlicSums* sums;
  uint32_t *label, *parent, *link;  // written by the final assignment
  int iterations;
  int itemRows, columnItems, items;  // items: columnItems across, bands of itemRows rows down
};

// Item k: pixel columns [x0, x0 + kColumns) clipped to the frame, rows [y0, y1), and the
// window of cells its pixels can be assigned to (their own cells +-1, not clipped to the
// grid), row-major from (wc0, wr0), wcols wide.
struct Item {
  int x0, y0, y1;
  int wc0, wr0, wcols;
  bool windowed;  // the window fits the shared slots; else runs go straight to the global sums
};

__device__ Item itemOf(const IterateArgs& a, int k) {
  const Grid& g = a.g;
  Item it;
  it.x0 = (k % a.columnItems) * kColumns;
  it.y0 = (k / a.columnItems) * a.itemRows;
  it.y1 = min(g.height, it.y0 + a.itemRows);
  const int xLast = min(g.width, it.x0 + kColumns) - 1;
  it.wc0 = slic::cellOf(it.x0, g.width, g.cols) - 1;
  it.wr0 = slic::cellOf(it.y0, g.height, g.rows) - 1;
  it.wcols = slic::cellOf(xLast, g.width, g.cols) + 2 - it.wc0;
  const int wrows = slic::cellOf(it.y1 - 1, g.height, g.rows) + 2 - it.wr0;
  it.windowed = it.wcols * wrows <= kSlots;
  return it;
}

// The 3 x 3 candidate centres of cell (col, row) for pixel column px, candidate k at
// (col + k % 3 - 1, row + k / 3 - 1): so k increases with the centre index, the order in
// which slic::nearestCentre visits them. dx2 = (px - x)^2 holds for the whole column. A
// candidate outside the grid has r = +inf: its D is +inf, which never passes the strict <
// against the running best, so it counts as skipped.
struct Candidates {
  float r[9], g[9], b[9], y[9], dx2[9];
};

// Centres are read through L2 (__ldcg): other blocks wrote them in this launch.
__device__ void loadCandidates(const SlicCentre* centres, const Grid& g, int col, int row, float px,
                               Candidates& c) {
#pragma unroll
  for (int k = 0; k < 9; ++k) {
    const int cr = row + k / 3 - 1, cc = col + k % 3 - 1;
    c.r[k] = INFINITY, c.g[k] = 0.f, c.b[k] = 0.f, c.y[k] = 0.f, c.dx2[k] = 0.f;
    if (cr >= 0 && cr < g.rows && cc >= 0 && cc < g.cols) {
      const SlicCentre* s = centres + cr * g.cols + cc;
      const float4 v = __ldcg(reinterpret_cast<const float4*>(s));  // r, g, b, x
      const float dx = subRn(px, v.w);
      c.r[k] = v.x, c.g[k] = v.y, c.b[k] = v.z, c.y[k] = __ldcg(&s->y), c.dx2[k] = mulRn(dx, dx);
    }
  }
}

// The candidate (0..8) of least D for pixel p on row py; ties to the lowest k.
__device__ __forceinline__ int nearestCandidate(uchar4 p, float py, const Candidates& c, float w) {
  const float pr = float(p.x), pg = float(p.y), pb = float(p.z);
  float best = INFINITY;
  int bestK = 4;
#pragma unroll
  for (int k = 0; k < 9; ++k) {
    const float d = slic::distanceDx2(pr, pg, pb, py, c.r[k], c.g[k], c.b[k], c.y[k], c.dx2[k], w);
    if (d < best) best = d, bestK = k;
  }
  return bestK;
}

// Ended runs: r, g, b, y sums and count of a thread's run of equal labels down column x.
// All 32 lanes call; key = the run's centre, kNone for lanes that add nothing. Where the
// item's window fits the shared slots, each ending lane adds its run to its slot with six
// shared atomics (32-bit, exact per item: the static_assert on kMaxItemRows): six warp
// instructions whatever the lanes, the hardware serialising lanes that share a slot, where
// a peer reduction took ~20 instructions a round. Otherwise the warp adds the runs per
// centre first and one lane per centre adds the totals to the 64-bit centre sums. There a
// lane that adds nothing is its own group (matched on bit 31 and its lane: above every
// centre index), so the reduction runs only as many rounds as the largest group of lanes
// that end runs of one centre needs.
__device__ void flushRuns(const IterateArgs& a, const Item& it, uint32_t key, int slot,
                          const uint32_t (&run)[5], int x, uint32_t (*slots)[kSlots]) {
  const int lane = int(threadIdx.x) & 31;
  uint32_t v[6] = {run[0], run[1], run[2], run[4] * uint32_t(x), run[3], run[4]};  // SlicSums order
  if (it.windowed) {  // block-uniform
    if (key != kNone)
#pragma unroll
      for (int f = 0; f < 6; ++f) atomicAdd(&slots[f][slot], v[f]);
    return;
  }
  static_assert(int64_t(kMaxSuperpixels) + 2 * kMaxSlicDimension < 0x80000000ll,
                "idle lanes' keys above every centre index");
  const uint32_t peers = __match_any_sync(kFullWarp, key != kNone ? key : 0x80000000u | uint32_t(lane));
  reducePeers(peers, lane, v);
  if (key == kNone || lane != __ffs(peers) - 1) return;
  addSums(a.sums[key], v);
}

// After an item: its slots into the centre sums (one slot a thread), and cleared.
__device__ void flushItem(const IterateArgs& a, const Item& it, uint32_t (*slots)[kSlots]) {
  __syncthreads();  // every warp's slot adds are in
  const int s = int(threadIdx.x);
  if (it.windowed && slots[5][s] != 0) {  // a slot past the window, or of no pixel, is 0
    SlicSums& sum = a.sums[(it.wr0 + s / it.wcols) * a.g.cols + it.wc0 + s % it.wcols];
    atomicAdd(&sum.r, (unsigned long long)slots[0][s]);
    atomicAdd(&sum.g, (unsigned long long)slots[1][s]);
    atomicAdd(&sum.b, (unsigned long long)slots[2][s]);
    atomicAdd(&sum.x, (unsigned long long)slots[3][s]);
    atomicAdd(&sum.y, (unsigned long long)slots[4][s]);
    atomicAdd(&sum.count, (unsigned long long)slots[5][s]);
#pragma unroll
    for (int f = 0; f < 6; ++f) slots[f][s] = 0;
  }
  __syncthreads();  // clear before the next item adds
}

// One assignment of an item's pixels. kFinal = false: add them to the centre sums.
// kFinal = true: the superpixel map and the start of connectivity: parent = the first
// pixel of the pixel's run of equal labels within its warp (so trees start shallow), link
// (component sizes) = 0.
template <bool kFinal>
__device__ void assignItem(const IterateArgs& a, const Item& it, uint32_t (*slots)[kSlots]) {
  const Grid& g = a.g;
  const int lane = int(threadIdx.x) & 31, x = it.x0 + int(threadIdx.x);
  const bool inside = x < g.width;
  // Lanes past the frame's edge shadow its last column; they add and write nothing.
  const int xc = inside ? x : g.width - 1;
  const int col = slic::cellOf(xc, g.width, g.cols);
  int row = slic::cellOf(it.y0, g.height, g.rows);
  int nextRowStart = slic::cellStart(row + 1, g.height, g.rows);
  Candidates c;
  loadCandidates(a.centres, g, col, row, float(xc), c);
  // Candidate k is centre labelBase + (k / 3) cols + k % 3, its slot slotBase + (k / 3) wcols + k % 3.
  int labelBase = (row - 1) * g.cols + col - 1;
  int slotBase = (row - 1 - it.wr0) * it.wcols + col - 1 - it.wc0;
  uint32_t runLabel = kNone, run[5] = {0, 0, 0, 0, 0};  // the run: r, g, b, y sums, count
  int runSlot = 0;
  // Two rows' loads in flight ahead of the one in use (L2, or DRAM at 4K).
  uchar4 next = a.in.at(xc, it.y0), after = a.in.at(xc, min(it.y0 + 1, it.y1 - 1));
  for (int y = it.y0; y < it.y1; ++y) {
    const uchar4 p = next;
    next = after;
    if (y + 2 < it.y1) after = a.in.at(xc, y + 2);
    if (y == nextRowStart) {  // block-uniform: cell rows do not depend on x
      ++row;
      nextRowStart = slic::cellStart(row + 1, g.height, g.rows);
      loadCandidates(a.centres, g, col, row, float(xc), c);
      labelBase += g.cols;
      slotBase += it.wcols;
    }
    const int k = nearestCandidate(p, float(y), c, g.weight), dr = k / 3, dc = k - 3 * dr;
    const uint32_t l = inside ? uint32_t(labelBase + dr * g.cols + dc) : kNone;
    if constexpr (kFinal) {
      const uint32_t left = __shfl_up_sync(kFullWarp, l, 1);
      const uint32_t starts = __ballot_sync(kFullWarp, lane == 0 || left != l);
      if (inside) {
        const int start = 31 - __clz(starts & (kFullWarp >> (31 - lane)));
        const size_t i = size_t(y) * size_t(g.width) + size_t(x);
        a.label[i] = l;
        a.parent[i] = uint32_t(i) - uint32_t(lane - start);
        a.link[i] = 0;
      }
    } else {
      const bool ends = l != runLabel && run[4] != 0;
      if (__any_sync(kFullWarp, ends)) flushRuns(a, it, ends ? runLabel : kNone, runSlot, run, xc, slots);
      if (l != runLabel) {
        runLabel = l;
        runSlot = slotBase + dr * it.wcols + dc;
        run[0] = run[1] = run[2] = run[3] = run[4] = 0;
      }
      // Lanes outside add too: their run keeps label kNone and is never flushed.
      run[0] += p.x, run[1] += p.y, run[2] += p.z, run[3] += uint32_t(y), run[4] += 1;
    }
  }
  if constexpr (!kFinal) {
    flushRuns(a, it, run[4] != 0 ? runLabel : kNone, runSlot, run, xc, slots);
    flushItem(a, it, slots);
  }
}

// The whole superpixel stage in one cooperative launch: init; per round the assignment with
// its sums, grid.sync, the centre update (one thread a centre, sums cleared), grid.sync; the
// final assignment.
__global__ void __launch_bounds__(kColumns, kPersistentBlocksPerSm) iterateKernel(IterateArgs a) {
  __shared__ uint32_t slots[6][kSlots];  // r, g, b, x, y, count per cell of the item's window
  cg::grid_group grid = cg::this_grid();
  const int centres = a.g.cols * a.g.rows;
  const int first = int(blockIdx.x) * kColumns + int(threadIdx.x), stride = int(gridDim.x) * kColumns;
  for (int c = first; c < centres; c += stride) {
    a.centres[c] = slic::initialCentre(a.in, c, a.g.cols, a.g.rows);
    a.sums[c] = SlicSums{};
  }
#pragma unroll
  for (int f = 0; f < 6; ++f) slots[f][threadIdx.x] = 0;
  grid.sync();
  for (int round = 0; round < a.iterations; ++round) {
    for (int k = int(blockIdx.x); k < a.items; k += int(gridDim.x)) assignItem<false>(a, itemOf(a, k), slots);
    grid.sync();
    for (int c = first; c < centres; c += stride) {  // the same thread each round: its own centre writes
      SlicSums sum;
      const SlicSums* from = a.sums + c;  // atomics land in L2: read there
      sum.r = __ldcg(&from->r), sum.g = __ldcg(&from->g), sum.b = __ldcg(&from->b);
      sum.x = __ldcg(&from->x), sum.y = __ldcg(&from->y), sum.count = __ldcg(&from->count);
      slic::updateCentre(a.centres[c], sum);
      a.sums[c] = SlicSums{};
    }
    grid.sync();
  }
  for (int k = int(blockIdx.x); k < a.items; k += int(gridDim.x)) assignItem<true>(a, itemOf(a, k), slots);
}

// Items about one a block: columnItems across, as many bands as the blocks left allow, no
// taller than kMaxItemRows (then blocks take several).
struct PersistentShape {
  int blocks, itemRows, columnItems, items;
};

PersistentShape persistentShape(int width, int height, int maxBlocks) {
  PersistentShape s;
  s.columnItems = (width + kColumns - 1) / kColumns;
  const int bands = std::max(1, maxBlocks / s.columnItems);
  s.itemRows = std::clamp((height + bands - 1) / bands, 1, kMaxItemRows);
  s.items = s.columnItems * ((height + s.itemRows - 1) / s.itemRows);
  s.blocks = std::max(1, std::min(maxBlocks, s.items));
  return s;
}

unsigned blocksFor(int64_t n, int per) { return unsigned((n + per - 1) / per); }

}  // namespace

SlicWorkspace::SlicWorkspace(int maxWidth, int maxHeight) : maxWidth_(maxWidth), maxHeight_(maxHeight) {
  if (maxWidth < 1 || maxHeight < 1 || maxWidth > kMaxSlicDimension || maxHeight > kMaxSlicDimension)
    throw std::invalid_argument("SlicWorkspace: size outside 1.." + std::to_string(kMaxSlicDimension));
  const size_t pixels = size_t(maxWidth) * size_t(maxHeight),
               centres = size_t(slicMaxCentres(maxWidth, maxHeight));
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
  decided_ = DeviceBuffer(sizeof(uint32_t));
  VP_CUDA_CHECK(cudaMemset(stats_.get(), 0, sizeof(SlicStats)));
  VP_CUDA_CHECK(cudaMemset(decided_.get(), 0, sizeof(uint32_t)));
  int device = 0, cooperative = 0, sms = 0, perSm = 0;
  VP_CUDA_CHECK(cudaGetDevice(&device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  VP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  VP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, iterateKernel, kColumns, 0));
  if (!cooperative || perSm < 1)
    throw std::runtime_error("SlicWorkspace: the CUDA device cannot run the cooperative superpixel kernel");
  // Co-resident blocks only: grid.sync cannot complete otherwise.
  persistentBlocks_ = sms * std::min(perSm, kPersistentBlocksPerSm);
  pdl_ = pdlAvailable();
}

struct SlicGpuAccess {
  struct Frame {
    Grid g;
    int centres;
    int64_t pixels;
  };

  static Frame frameOf(ConstRgbaView in, const SlicParams& params) {
    const SlicFrame f = slicFrameOf(in.width, in.height, params.superpixels, params.compactness);
    return {Grid{f.width, f.height, f.cols, f.rows, f.weight, uint32_t(f.minRegion)}, f.centres(),
            int64_t(f.width) * f.height};
  }

  // The superpixel map in one cooperative launch of at most maxBlocks blocks.
  static void superpixels(ConstRgbaView in, const Frame& f, int iterations, SlicWorkspace& ws, int maxBlocks,
                          cudaStream_t stream) {
    const PersistentShape shape = persistentShape(f.g.width, f.g.height, maxBlocks);
    IterateArgs a{in,
                  f.g,
                  ws.centres_.as<SlicCentre>(),
                  ws.sums_.as<SlicSums>(),
                  ws.labels_.as<uint32_t>(),
                  ws.parent_.as<uint32_t>(),
                  ws.link_.as<uint32_t>(),
                  iterations,
                  shape.itemRows,
                  shape.columnItems,
                  shape.items};
    void* args[] = {&a};
    VP_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(iterateKernel),
                                              dim3(unsigned(shape.blocks)), dim3(kColumns), args, 0, stream));
    VP_CUDA_CHECK_LAUNCH();
  }

  // Connectivity, region sums and the output (programmatic dependent launch where the
  // device has it).
  static void connect(ConstRgbaView in, RgbaView out, SegmentView view, const Frame& f, SlicWorkspace& ws,
                      cudaStream_t stream) {
    const Grid& g = f.g;
    auto* label = ws.labels_.as<uint32_t>();
    auto* parent = ws.parent_.as<uint32_t>();
    auto* link = ws.link_.as<uint32_t>();
    auto* chunkCount = ws.chunkCount_.as<uint32_t>();
    auto* chunkStart = ws.chunkStart_.as<uint32_t>();
    auto* regionSums = ws.regionSums_.as<SlicRegionSums>();
    const int chunks = int(blocksFor(f.pixels, kChunk));
    const ScanArgs scan{chunks,
                        f.centres,
                        chunkCount,
                        chunkStart,
                        regionSums,
                        ws.stats_.as<SlicStats>(),
                        ws.decided_.as<uint32_t>()};
    const dim3 pixelBlock(kBlockX, kBlockY),
        pixelGrid(blocksFor(g.width, kBlockX), blocksFor(g.height, kBlockY));
    unionKernel<<<pixelGrid, pixelBlock, 0, stream>>>(g, label, parent);
    VP_CUDA_CHECK_LAUNCH();
    const bool pdl = ws.pdl_;
    launchKernel(compressKernel, pixelGrid, pixelBlock, 0, stream, pdl, g, label, parent, link);
    launchKernel(decideKernel, dim3(unsigned(chunks)), dim3(kChunk), 0, stream, pdl, g, parent, link, chunkCount,
                 scan);
    launchKernel(resolveKernel, dim3(unsigned(chunks)), dim3(kChunk), 0, stream, pdl, g, parent, link, chunkStart,
                 label);
    launchKernel(regionSumsKernel, pixelGrid, pixelBlock, 0, stream, pdl, in, g, parent, link, label, regionSums);
    if (view == SegmentView::Colour)
      launchKernel(paintKernel, pixelGrid, pixelBlock, 0, stream, pdl, in, g, parent, label, regionSums, out);
    else
      segmentViewGpu(view, in, parent, out, stream);
  }

  static void run(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicWorkspace& ws,
                  int maxBlocks, cudaStream_t stream) {
    const Frame f = frameOf(in, params);
    superpixels(in, f, params.iterations, ws, maxBlocks, stream);
    connect(in, out, view, f, ws, stream);
  }

  static int persistentBlocks(const SlicWorkspace& ws) { return ws.persistentBlocks_; }
};

void slicGpu(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params, SlicWorkspace& ws,
             cudaStream_t stream) {
  if (!detail::checkSlicArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "slicGpu")) return;
  SlicGpuAccess::run(in, out, view, params, ws, SlicGpuAccess::persistentBlocks(ws), stream);
}

namespace detail {

void slicGpuPersistent(ConstRgbaView in, RgbaView out, SegmentView view, const SlicParams& params,
                       SlicWorkspace& ws, cudaStream_t stream, int blocks) {
  if (!checkSlicArgs(in, out, params, ws.maxWidth(), ws.maxHeight(), "slicGpuPersistent")) return;
  if (blocks < 0) throw std::invalid_argument("slicGpuPersistent: negative block count");
  const int most = SlicGpuAccess::persistentBlocks(ws);
  SlicGpuAccess::run(in, out, view, params, ws, blocks > 0 ? std::min(blocks, most) : most, stream);
}

}  // namespace detail

}  // namespace vp
