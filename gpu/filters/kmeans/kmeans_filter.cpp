#include "gpu/filters/kmeans/kmeans_filter.h"

#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/kmeans/kmeans_auto.h"
#include "gpu/filters/kmeans/kmeans_schedule.h"
#include "gpu/filters/kmeans/kmeans_spatial_math.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <deque>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

namespace vp {
namespace {

constexpr OptionInfo kOptions[] = {
    {"k", OptionType::Int, 1, kMaxClusters, 8, nullptr,
     "clusters, or auto: chosen in kmin..kmax by the silhouette score (at scene cuts and when the score falls); "
     "add / cycle step within 2..32",
     2, true, "auto"},
    {"iterations", OptionType::Int, 0, 1000, 20, nullptr, "Lloyd iterations per frame at most", 0, true},
    {"epsilon", OptionType::Float, 0, 1e6, 0.01, nullptr,
     "stop once the largest squared centre shift is below this (8-bit levels squared)", 0, true},
    {"init", OptionType::Choice, 0, 2, 1, "uniform|kmeans++|warm",
     "how the first frame, a new K and a scene cut start", 0, true},
    {"warm", OptionType::Bool, 0, 1, 1, nullptr, "start each frame from the previous frame's centres", 0, true},
    {"seed", OptionType::Int, 0, 9007199254740991.0, 24301, nullptr, "k-means++ random seed", 0, true},
    {"view", OptionType::Choice, 0, 2, 0, "colour|labels|boundaries",
     "what is painted: centre colours, a fixed colour per label, or segment borders over the frame", 0, true},
    {"spatial", OptionType::Float, 0, kMaxSpatialWeight, 0, nullptr,
     "weight of position against colour (RGBXY K-means): at 1 crossing the frame costs as much as the whole "
     "colour range; 0: colour only",
     0, true},
    {"kmin", OptionType::Int, 2, kMaxClusters, kAutoKMin, nullptr, "automatic K: the least K tried", 2, true},
    {"kmax", OptionType::Int, 2, kMaxClusters, kAutoKMax, nullptr, "automatic K: the largest K tried", 2, true},
};
static_assert(sizeof kOptions / sizeof kOptions[0] <= kMaxFilterOptions);

constexpr OptionCommand kCommands[] = {
    {"k|clusters", "k", "clusters (auto: chosen by the silhouette score)"},
    {"k-auto", "k", "automatic K: chosen in kmin..kmax by the silhouette score (on), or back to the fixed K it had (off)",
     true},
    {"iterations", "iterations", "maximum iterations per frame"},
    {"spatial", "spatial",
     "spatial weight: position against colour (RGBXY K-means; at 1 crossing the frame costs the whole colour "
     "range, 0: colour only)"},
    {"view", "view", "view: its segments' colours, a fixed colour per label, or segment borders over the frame"},
};

constexpr KeyBinding kKeys[] = {
    {"k", "k -1", "K-means clusters -1"},
    {"shift+k", "k +1", "K-means clusters +1"},
    {"a", "k-auto toggle", "K-means: automatic K (silhouette) / the fixed K"},
    {"x", "spatial -0.25", "K-means spatial weight -0.25"},
    {"shift+x", "spatial +0.25", "K-means spatial weight +0.25 (segments follow position too)"},
    {"v", "view cycle", "K-means / SLIC view: colours, labels, boundaries"},
    {"1", "mode kmeans", "chain: K-means"},
};

// What a K-means frame leaves: its state and, with automatic K, the silhouette sum of its
// centres over the sample (kmeans_auto.h).
struct FrameState {
  KmeansState state;
  int64_t silhouette;
};

void reportState(const KmeansState& st, ElementResult& result) {
  result.set("iterations", st.iterations);
  result.set("cost", double(st.cost));
}

// The frame's silhouette score (automatic K), NaN otherwise; reported as "score".
double frameScore(const FrameState& f, bool automatic, int64_t pixels, ElementResult* result) {
  if (!automatic) return NAN;
  const double score = silhouetteScore(f.silhouette, uint64_t(pixels));
  if (result) result->set("score", score);
  return score;
}

// Per slot: the K-means state of that slot's latest frame (centres stay where the frame
// left them for the next frame to warm-start from: no copy on the frame chain).
struct KmeansSlot {
  DeviceBuffer frame{sizeof(FrameState)};
  DeviceBuffer labels;  // width x height: the final assignment, for the labels and boundaries views
  PinnedBuffer host{sizeof(FrameState)};  // its copy: the next frame's scene-cut and score tests, finish()
  Event centresReady{cudaEventDisableTiming};
  Event hostReady{cudaEventDisableTiming};  // `host` holds this frame's state
  bool reinit = false;
  bool automatic = false;  // K was chosen automatically
  KmeansState* state() { return reinterpret_cast<KmeansState*>(frame.as<char>() + offsetof(FrameState, state)); }
  int64_t* silhouette() { return reinterpret_cast<int64_t*>(frame.as<char>() + offsetof(FrameState, silhouette)); }
};

// A submitted frame whose cost the schedule has not been fed yet.
struct Unobserved {
  int slot;
  bool reinit;
  bool known;     // finish() has read its cost
  int k;
  uint64_t cost;
  double score;
};

// The automatic K request of an element, choosing with `choose(kmin, kmax)`; none for a fixed K.
template <class Choose>
std::optional<AutoKRequest> autoRequest(const FilterElement& element, int64_t pixels, Choose choose) {
  if (element.intValue(kmeans_option::K) != 0) return std::nullopt;
  AutoKRequest r;
  kmeansAutoRangeOf(element, r.kmin, r.kmax);
  r.choose = [=] {
    AutoKScores scores = choose(r.kmin, r.kmax);
    const int k = bestK(scores, r.kmin, r.kmax);
    return AutoKRequest::Choice{k, silhouetteScore(scores.sum(k), uint64_t(pixels))};
  };
  return r;
}

class GpuKmeans final : public GpuFilter {
 public:
  void configure(int width, int height, int slots) override {
    slots_.clear();
    for (int i = 0; i < slots; ++i) {
      slots_.push_back(std::make_unique<KmeansSlot>());
      slots_.back()->labels = DeviceBuffer(size_t(width) * size_t(height));
      // K-means writes only the first k centres; the state goes to the host whole.
      VP_CUDA_CHECK(cudaMemset(slots_.back()->frame.get(), 0, sizeof(FrameState)));
    }
    // With two or more concurrent slots, one slot's K-means runs beside the others' kernels:
    // the policy for a shared GPU (kmeans_policy.h); with one slot, or slots that follow one
    // another on one stream (the library), it has the GPU to itself.
    ws_ = std::make_unique<KmeansWorkspace>(slots > 1 && concurrentSlots() ? KmeansLoad::Shared : KmeansLoad::Alone);
    pixels_ = int64_t(width) * height;
    last_ = -1;  // new buffers hold no centres: the next frame re-initialises
    schedule_.reset();
    unobserved_.clear();
  }

  void enqueue(int slot, ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult& result,
               cudaStream_t stream) override {
    KmeansSlot& s = *slots_[size_t(slot)];
    bool warm = true;
    const KmeansParams requested = kmeansParamsOf(element, &warm);  // sets warm: read it after
    // Frame n warm-starts or re-initialises by the costs of frames up to n - 2, as the CPU
    // twin decides (kmeans_schedule.h), so every frame's start is a function of the
    // frames alone, whatever the timing of the slots. Feeding frame n - 2 may wait for
    // its K-means; frame n - 1's waits for it on the GPU, so the GPU stays busy meanwhile.
    while (unobserved_.size() >= size_t(KmeansSchedule::kDecisionLag)) {
      Unobserved& u = unobserved_.front();
      if (!u.known) {
        const KmeansSlot& us = *slots_[size_t(u.slot)];
        const FrameState f = stateOf(us, true);
        u.cost = f.state.cost, u.score = frameScore(f, us.automatic, pixels_, nullptr);
      }
      schedule_.observe(u.cost, pixels_, u.reinit, u.k, u.score);
      unobserved_.pop_front();
    }
    // Automatic K chooses on this frame when it must: the search on the GPU, then the
    // host waits for its scores (at the first frame, scene cuts and score falls only).
    const std::optional<AutoKRequest> autoK = autoRequest(element, pixels_, [&](int kmin, int kmax) {
      autoKGpu(in, kmin, kmax, requested.seed, scores_.as<AutoKScores>(), stream);
      VP_CUDA_CHECK(cudaMemcpyAsync(scoresHost_.get(), scores_.get(), sizeof(AutoKScores), cudaMemcpyDeviceToHost,
                                    stream));
      VP_CUDA_CHECK(cudaStreamSynchronize(stream));
      AutoKScores scores;
      std::memcpy(&scores, scoresHost_.get(), sizeof scores);
      return scores;
    });
    const KmeansParams kp = schedule_.next(requested, warm, s.reinit, autoK ? &*autoK : nullptr);
    s.automatic = requested.k == 0;
    result.set("reinit", s.reinit);
    if (s.automatic) result.set("k", kp.k);
    // Warm start: the previous frame's centres, read where that frame left them; nothing
    // writes them before this kernel has run, as that slot's next K-means frame comes after.
    const KmeansState* warmFrom = nullptr;
    if (last_ >= 0 && last_ != slot) {
      VP_CUDA_CHECK(cudaStreamWaitEvent(stream, slots_[size_t(last_)]->centresReady, 0));
      warmFrom = slots_[size_t(last_)]->state();
    }
    const SegmentView view = kmeansViewOf(element);
    uint8_t* labels = view == SegmentView::Colour ? nullptr : s.labels.as<uint8_t>();
    kmeansGpu(in, out, labels, s.state(), kp, *ws_, stream, warmFrom);
    s.centresReady.record(stream);
    if (s.automatic) silhouetteGpu(in, s.state(), kp.k, s.silhouette(), stream);
    segmentViewGpu(view, in, labels, out, stream);
    VP_CUDA_CHECK(cudaMemcpyAsync(s.host.get(), s.frame.get(), sizeof(FrameState), cudaMemcpyDeviceToHost, stream));
    s.hostReady.record(stream);
    unobserved_.push_back({slot, s.reinit, false, kp.k, 0, NAN});
    last_ = slot;
  }

  // The kernels (colour and spatial) write each output pixel after the last read of `in`
  // (kmeans.h); the label views and automatic K's silhouette read `in` after them.
  bool inPlace(const FilterElement& element) const override {
    return kmeansViewOf(element) == SegmentView::Colour && element.intValue(kmeans_option::K) != 0;
  }

  // The slot's frame is done and its slot may be reused after this: keep its cost and score.
  void finish(int slot, ElementResult& result) override {
    const KmeansSlot& s = *slots_[size_t(slot)];
    const FrameState f = stateOf(s, false);
    reportState(f.state, result);
    const double score = frameScore(f, s.automatic, pixels_, &result);
    for (Unobserved& u : unobserved_)
      if (u.slot == slot && !u.known) u.known = true, u.cost = f.state.cost, u.score = score;
  }

 private:
  // The slot's latest frame's state from its host copy (waiting for it first if `wait`).
  static FrameState stateOf(const KmeansSlot& s, bool wait) {
    if (wait) s.hostReady.synchronize();
    FrameState f;
    std::memcpy(&f, s.host.get(), sizeof f);
    return f;
  }

  DeviceBuffer scores_{sizeof(AutoKScores)};  // automatic K's search (one frame at a time: the host waits)
  PinnedBuffer scoresHost_{sizeof(AutoKScores)};
  std::vector<std::unique_ptr<KmeansSlot>> slots_;
  std::unique_ptr<KmeansWorkspace> ws_;  // K-means frames of one element run one after another
  KmeansSchedule schedule_;
  int64_t pixels_ = 0;
  int last_ = -1;  // slot of the latest frame submitted
  std::deque<Unobserved> unobserved_;  // submitted frames not yet fed to schedule_, oldest first
};

class CpuKmeans final : public CpuFilter {
 public:
  void configure(int width, int height) override {
    scratch_ = std::make_unique<KmeansCpuScratch>(width, height);
    labels_.assign(size_t(width) * size_t(height), 0);
    state_ = KmeansState{};
    schedule_.reset();
  }

  void run(ConstRgbaView in, RgbaView out, const FilterElement& element, ElementResult& result) override {
    bool warm = true, reinit = false;
    const KmeansParams requested = kmeansParamsOf(element, &warm);  // sets warm: read it after
    const int64_t pixels = int64_t(in.width) * in.height;
    const std::optional<AutoKRequest> autoK = autoRequest(element, pixels, [&](int kmin, int kmax) {
      AutoKScores scores;
      autoKCpu(in, kmin, kmax, requested.seed, scores, *scratch_);
      return scores;
    });
    const KmeansParams kp = schedule_.next(requested, warm, reinit, autoK ? &*autoK : nullptr);
    const bool automatic = requested.k == 0;
    const SegmentView view = kmeansViewOf(element);
    uint8_t* labels = view == SegmentView::Colour ? nullptr : labels_.data();
    kmeansCpu(in, out, labels, state_, kp, *scratch_);
    const FrameState f{state_, automatic ? silhouetteCpu(in, state_, kp.k) : 0};
    segmentViewCpu(view, in, labels, out);
    result.set("reinit", reinit);
    if (automatic) result.set("k", kp.k);
    reportState(state_, result);
    const double score = frameScore(f, automatic, pixels, &result);
    schedule_.observe(state_.cost, pixels, reinit, kp.k, score);
  }

 private:
  std::unique_ptr<KmeansCpuScratch> scratch_;
  std::vector<uint8_t> labels_;  // the final assignment, for the labels and boundaries views
  KmeansState state_{};
  KmeansSchedule schedule_;
};

}  // namespace

const FilterInfo kKmeansFilter = {
    "kmeans",
    "K-means colour segmentation: each pixel painted with its cluster's centre colour (view: or a colour per "
    "label, or the segment borders over the frame)",
    kOptions,
    int(sizeof kOptions / sizeof kOptions[0]),
    kmeans_option::K,
    true,
    [] { return std::unique_ptr<GpuFilter>(std::make_unique<GpuKmeans>()); },
    [] { return std::unique_ptr<CpuFilter>(std::make_unique<CpuKmeans>()); },
    kCommands,
    int(std::size(kCommands)),
    kKeys,
    int(std::size(kKeys)),
};

KmeansParams kmeansParamsOf(const FilterElement& e, bool* warm) {
  using namespace kmeans_option;
  KmeansParams p;
  p.k = e.intValue(K);
  p.maxIterations = e.intValue(Iterations);
  p.epsilon = float(e.value(Epsilon));
  p.init = static_cast<KmeansInit>(e.intValue(Init));
  p.seed = uint64_t(e.value(Seed));
  p.spatial = float(e.value(Spatial));
  if (warm) *warm = e.boolValue(Warm);
  return p;
}

void kmeansAutoRangeOf(const FilterElement& e, int& kmin, int& kmax) {
  const int a = e.intValue(kmeans_option::KMin), b = e.intValue(kmeans_option::KMax);
  kmin = std::min(a, b), kmax = std::max(a, b);
}

SegmentView kmeansViewOf(const FilterElement& e) { return static_cast<SegmentView>(e.intValue(kmeans_option::View)); }

FilterElement kmeansElement(const KmeansParams& p, bool warm, SegmentView view) {
  using namespace kmeans_option;
  FilterElement e(kKmeansFilter);
  e.set(K, p.k);
  e.set(Iterations, p.maxIterations);
  // Keep the table's decimal default when it is what the float holds (0.01, not 0.0099999998).
  if (float(e.value(Epsilon)) != p.epsilon) e.set(Epsilon, double(p.epsilon));
  e.set(Init, double(int(p.init)));
  e.set(Warm, warm);
  e.set(Seed, double(p.seed));
  e.set(View, double(int(view)));
  if (float(e.value(Spatial)) != p.spatial) e.set(Spatial, double(p.spatial));
  return e;
}

}  // namespace vp
