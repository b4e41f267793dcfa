// The CPU backend: the OpenMP CPU twins of the kernels, run synchronously inside
// submit(). Used when no CUDA device is present (and as the reference on one).
// Slots only hold finished outputs until the caller releases them.
#include "gpu/backend/chain_elements.h"
#include "gpu/color/color_convert.h"
#include "gpu/color/compare_view.h"
#include "gpu/processor.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <stdexcept>
#include <vector>

namespace vp {
namespace {

using Clock = std::chrono::steady_clock;

float msSince(Clock::time_point t0) {
  return std::chrono::duration<float, std::milli>(Clock::now() - t0).count();
}

// OpenMP threads a frame's twins run on: one per kPixelsPerThread, at most what OpenMP
// offers. A small frame gains little from splitting (a 640x360 K-means frame: 2.2 ms on two
// threads, 2.6 on one) and loses much when a thread is descheduled on a busy machine: every
// region then waits for it (live 640x360 in the window, 2 shared cores: K-means p99 10.2 ms
// on two threads, 4.8 on one; the convert's p99 7.8 and 2.2). The twins' bytes do not
// depend on the thread count.
constexpr int64_t kPixelsPerThread = 400'000;
int threadsFor(int width, int height, int most) {
  const int64_t wanted = (int64_t(width) * height + kPixelsPerThread - 1) / kPixelsPerThread;
  return int(std::clamp<int64_t>(wanted, 1, most));
}

// The calling thread's OpenMP thread count for one frame, given back after it.
class OmpThreads {
 public:
  explicit OmpThreads(int n) : before_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~OmpThreads() { omp_set_num_threads(before_); }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  int before_;
};

struct CpuSlot {
  std::vector<uint8_t> rgb;        // the view as packed RGB24, as the CUDA backend outputs
  std::vector<uint8_t> processed;  // compare with keepProcessed: the processed frame alone
  OutputFrame out;
};

class CpuProcessor final : public Processor {
 public:
  explicit CpuProcessor(int slots) : slots_(size_t(slots)), maxThreads_(omp_get_max_threads()) {
    if (slots < 1 || slots > 16) throw std::invalid_argument("slots must be 1..16");
    for (auto& s : slots_) free_.push_back(&s);
  }

  std::string backendName() const override { return "cpu"; }
  std::string deviceName() const override { return "CPU, " + std::to_string(maxThreads_) + " threads"; }
  int inFlight() const override { return int(busy_.size()); }
  int finished() override { return int(busy_.size()); }  // done inside submit()
  bool inputReleased(uint64_t, bool) override { return true; }  // consumed inside submit()

  std::optional<uint64_t> submit(const InputFrame& frame, const ProcessParams& params) override {
    if (!frame.data) throw std::invalid_argument("submit: no frame data");
    detail::checkParams(params);
    if (free_.empty()) return std::nullopt;
    const int w = frame.layout.width, h = frame.layout.height;
    if (rgba_.width() != w || rgba_.height() != h) {
      rgba_ = HostImage(w, h);
      for (HostImage& p : pingPong_) p = HostImage(w, h);
      // New size: every element starts afresh, as on the GPU (K-means re-initialises).
      for (auto& f : elements_.impls) f->configure(w, h);
    }
    if (!params.chain.sameShape(elements_.shape))
      elements_.reshape(params.chain, [](const FilterInfo& f) { return f.makeCpu(); },
                        [&](CpuFilter& f) { f.configure(w, h); });
    CpuSlot& s = *free_.front();
    s.out = detail::outputFor(++nextTicket_, frame, params);
    const OmpThreads threads(threadsFor(w, h, maxThreads_));

    auto t0 = Clock::now();
    convertToRgbaCpu(planarView(frame.layout, frame.data), rgba_.view(), frame.color);
    s.out.times[Stage::Convert] = msSince(t0);
    const HostImage* result = &rgba_;
    size_t next = 0;
    for (int i = 0; i < params.chain.size(); ++i) {
      const FilterElement& e = params.chain[i];
      if (!e.enabled()) continue;
      t0 = Clock::now();
      ElementResult& r = s.out.chain[size_t(i)];
      elements_.impls[size_t(i)]->run(result->view(), pingPong_[next].view(), e, r);
      r.ms = msSince(t0);
      result = &pingPong_[next];
      next ^= 1;
    }
    t0 = Clock::now();
    pack(s, *result, params);
    s.out.times[Stage::Download] = msSince(t0);
    free_.pop_front();
    busy_.push_back(&s);
    return s.out.ticket;
  }

  const OutputFrame* poll(bool) override { return busy_.empty() ? nullptr : &busy_.front()->out; }

  void release() override {
    if (busy_.empty()) return;
    free_.push_back(busy_.front());
    busy_.pop_front();
  }

 private:
  // The view (and with compare + keepProcessed, the processed frame) into the slot.
  void pack(CpuSlot& s, const HostImage& result, const ProcessParams& params) {
    OutputFrame& o = s.out;
    const int w = result.width(), h = result.height();
    o.width = compareWidth(params.compare, w);
    o.pitch = size_t(o.width) * 3;
    s.rgb.resize(o.pitch * size_t(h));
    o.rgb = s.rgb.data();
    o.processedPitch = size_t(w) * 3;
    if (params.compare == CompareMode::Off) {
      rgbaToRgb24Cpu(result.view(), s.rgb.data(), o.pitch);
      o.processed = o.rgb;
      return;
    }
    composeCompareCpu(rgba_.view(), result.view(), params.compare, params.split, s.rgb.data(), o.pitch);
    if (params.keepProcessed) {
      s.processed.resize(o.processedPitch * size_t(h));
      rgbaToRgb24Cpu(result.view(), s.processed.data(), o.processedPitch);
      o.processed = s.processed.data();
    }
  }

  std::vector<CpuSlot> slots_;
  const int maxThreads_;  // OpenMP's threads (OMP_NUM_THREADS, else the cores); frames use fewer when small
  std::deque<CpuSlot*> free_;
  std::deque<CpuSlot*> busy_;
  HostImage rgba_;                     // converted frame, input of the chain
  std::array<HostImage, 2> pingPong_;  // the chain's outputs, alternating
  detail::ChainElements<CpuFilter> elements_;
  uint64_t nextTicket_ = 0;
};

}  // namespace

std::unique_ptr<Processor> makeCpuProcessor(int slots) { return std::make_unique<CpuProcessor>(slots); }

}  // namespace vp
