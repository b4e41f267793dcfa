// The CPU backend: the OpenMP CPU twins of the kernels, run synchronously inside
// submit(). Used when no CUDA device is present (and as the reference on one).
// Slots only hold finished outputs until the caller releases them.
#include "gpu/blur/box_blur.h"
#include "gpu/color/color_convert.h"
#include "gpu/kmeans/kmeans.h"
#include "gpu/kmeans/kmeans_schedule.h"
#include "gpu/processor.h"

#include <omp.h>

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

struct CpuSlot {
  std::vector<uint8_t> rgb;  // packed RGB24, as the CUDA backend outputs
  OutputFrame out;
};

class CpuProcessor final : public Processor {
 public:
  explicit CpuProcessor(int slots) : slots_(size_t(slots)) {
    if (slots < 1 || slots > 16) throw std::invalid_argument("slots must be 1..16");
    for (auto& s : slots_) free_.push_back(&s);
  }

  std::string backendName() const override { return "cpu"; }
  std::string deviceName() const override { return "CPU, " + std::to_string(omp_get_max_threads()) + " threads"; }
  int inFlight() const override { return int(busy_.size()); }
  int finished() override { return int(busy_.size()); }  // done inside submit()
  bool inputReleased(uint64_t, bool) override { return true; }  // consumed inside submit()

  std::optional<uint64_t> submit(const InputFrame& frame, const ProcessParams& params) override {
    if (!frame.data) throw std::invalid_argument("submit: no frame data");
    if (free_.empty()) return std::nullopt;
    const int w = frame.layout.width, h = frame.layout.height;
    if (rgba_.width() != w || rgba_.height() != h) {
      rgba_ = HostImage(w, h);
      processed_ = HostImage(w, h);
      blurScratch_ = std::make_unique<BoxBlurCpuScratch>(w, h);
      kmeansScratch_ = std::make_unique<KmeansCpuScratch>(w, h);
    }
    CpuSlot& s = *free_.front();
    s.rgb.resize(size_t(w) * h * 3);
    s.out = detail::outputFor(++nextTicket_, frame, params);

    auto t0 = Clock::now();
    convertToRgbaCpu(planarView(frame.layout, frame.data), rgba_.view(), frame.color);
    s.out.times[Stage::Convert] = msSince(t0);
    t0 = Clock::now();
    const HostImage* result = &processed_;
    if (params.mode == Mode::Kmeans) {
      bool reinit = false;
      KmeansParams kp = schedule_.next(params.kmeans, params.warmStart, reinit);
      kmeansCpu(rgba_.view(), processed_.view(), nullptr, state_, kp, *kmeansScratch_);
      s.out.times[Stage::Kmeans] = msSince(t0);
      s.out.params.kmeans = kp;
      s.out.kmeansReinit = reinit;
      s.out.kmeansIterations = state_.iterations;
      s.out.kmeansCost = state_.cost;
      schedule_.observe(state_.cost, int64_t(w) * h, reinit);
    } else if (params.mode == Mode::Blur) {
      boxBlurCpu(rgba_.view(), processed_.view(), params.blur, *blurScratch_);
      s.out.times[Stage::Blur] = msSince(t0);
    } else {
      result = &rgba_;
    }
    s.out.pitch = size_t(w) * 3;
    rgbaToRgb24Cpu(result->view(), s.rgb.data(), s.out.pitch);
    s.out.rgb = s.rgb.data();
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
  std::vector<CpuSlot> slots_;
  std::deque<CpuSlot*> free_;
  std::deque<CpuSlot*> busy_;
  HostImage rgba_;       // converted frame, input of K-means / blur
  HostImage processed_;  // their output, packed into the slot
  std::unique_ptr<BoxBlurCpuScratch> blurScratch_;  // sized with the frame
  std::unique_ptr<KmeansCpuScratch> kmeansScratch_;  // likewise
  KmeansState state_{};
  KmeansSchedule schedule_;
  uint64_t nextTicket_ = 0;
};

}  // namespace

std::unique_ptr<Processor> makeCpuProcessor(int slots) { return std::make_unique<CpuProcessor>(slots); }

}  // namespace vp
