// The CUDA backend: N slots, each a CUDA stream with its own device and pinned
// buffers, so slot i+1 uploads while slot i computes and slot i-1 downloads.
//
// Per frame, in the slot's stream: H2D native planes -> convert to RGBA ->
// K-means | blur -> pack to RGB24 -> D2H, each stage bracketed by events. K-means warm start
// chains frames: only the K-means stage of frame n waits (cudaStreamWaitEvent) on
// frame n-1's "centres ready" event and reads that frame's centres in place (kmeansGpu's
// warmFrom); uploads, packs and downloads still overlap. Stage times are read only from
// slots whose last event has completed: no device-wide sync.
#include "gpu/blur/box_blur.h"
#include "gpu/color/color_convert.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/cuda/device_info.h"
#include "gpu/kmeans/kmeans.h"
#include "gpu/kmeans/kmeans_schedule.h"
#include "gpu/processor.h"

#include <spdlog/spdlog.h>

#include <cstring>
#include <deque>
#include <stdexcept>
#include <vector>

namespace vp {
namespace {

bool sameLayout(const FrameLayout& a, const FrameLayout& b) {
  if (a.format != b.format || a.width != b.width || a.height != b.height || a.planes != b.planes ||
      a.bytes != b.bytes)
    return false;
  for (int p = 0; p < a.planes; ++p)
    if (a.plane[p].offset != b.plane[p].offset || a.plane[p].pitch != b.plane[p].pitch) return false;
  return true;
}

struct Slot {
  // Buffers sized for `layout`; reallocated only when the input layout changes.
  DeviceBuffer input;        // native planes, same layout as the host frame
  DeviceImage rgba;          // converted frame
  DeviceImage processed;     // K-means / blur output
  DeviceBuffer packed;       // the result as tightly packed RGB24
  PinnedBuffer output;       // its copy for the caller
  DeviceBuffer kmeansState;      // KmeansState of this slot's latest K-means frame
  PinnedBuffer kmeansStateHost;  // its copy for the caller (iterations, cost)
  std::unique_ptr<BoxBlurWorkspace> blur;
  Stream stream;
  Event start, uploaded, converted, processed_, downloaded;
  Event centresReady{cudaEventDisableTiming};
  OutputFrame out;
  bool ranKmeans = false;
  bool ranBlur = false;
  bool deviceInput = false;  // read a decoder's surface in place: released after the convert
};

class CudaProcessor final : public Processor {
 public:
  explicit CudaProcessor(int streams) : slots_(size_t(streams)) {
    if (streams < 1 || streams > 16) throw std::invalid_argument("streams must be 1..16");
    deviceName_ = cudaDeviceName();
    for (auto& s : slots_) s = std::make_unique<Slot>();
    for (auto& s : slots_) free_.push_back(s.get());
    epoch_.record(slots_.front()->stream);
    epoch_.synchronize();
  }

  ~CudaProcessor() override {
    // Let in-flight copies finish before pinned buffers are freed under them.
    for (auto& s : slots_) cudaStreamSynchronize(s->stream);
  }

  std::string backendName() const override { return "cuda"; }
  std::string deviceName() const override { return deviceName_; }
  int inFlight() const override { return int(busy_.size()); }
  int finished() override {
    int n = 0;
    for (Slot* s : busy_) {
      if (!s->downloaded.ready()) break;
      ++n;
    }
    return n;
  }

  std::optional<uint64_t> submit(const InputFrame& frame, const ProcessParams& params) override {
    if (!frame.data && !frame.device.present()) throw std::invalid_argument("submit: no frame data");
    if (!sameLayout(frame.layout, layout_)) {
      if (!busy_.empty()) return std::nullopt;  // drain first: nothing stale, nothing lost
      reconfigure(frame.layout);
    }
    if (free_.empty()) return std::nullopt;
    Slot& s = *free_.front();
    free_.pop_front();
    busy_.push_back(&s);
    try {
      enqueue(s, frame, params);
    } catch (...) {
      busy_.pop_back();
      free_.push_front(&s);
      throw;
    }
    return s.out.ticket;
  }

  bool inputReleased(uint64_t ticket, bool wait) override {
    for (Slot* s : busy_)
      if (s->out.ticket == ticket) {
        const Event& read = s->deviceInput ? s->converted : s->uploaded;
        if (wait) read.synchronize();
        return wait || read.ready();
      }
    return true;  // finished or unknown: nothing reads it any more
  }

  const OutputFrame* poll(bool wait) override {
    if (busy_.empty()) return nullptr;
    Slot& s = *busy_.front();
    if (!polled_) {
      if (wait)
        s.downloaded.synchronize();
      else if (!s.downloaded.ready())
        return nullptr;
      finish(s);
      polled_ = true;
    }
    return &s.out;
  }

  void release() override {
    if (!polled_ || busy_.empty()) return;
    polled_ = false;
    free_.push_back(busy_.front());
    busy_.pop_front();
  }

 private:
  void reconfigure(const FrameLayout& layout) {
    const int w = layout.width, h = layout.height;
    for (auto& s : slots_) {
      s->input = DeviceBuffer(layout.bytes);
      s->rgba = DeviceImage(w, h);
      s->processed = DeviceImage(w, h);
      s->packed = DeviceBuffer(size_t(w) * h * 3);
      s->output = PinnedBuffer(size_t(w) * h * 3);
      s->kmeansState = DeviceBuffer(sizeof(KmeansState));
      // K-means writes only the first k centres; the state goes to the host whole.
      VP_CUDA_CHECK(cudaMemsetAsync(s->kmeansState.get(), 0, sizeof(KmeansState), s->stream));
      s->kmeansStateHost = PinnedBuffer(sizeof(KmeansState));
      s->blur = std::make_unique<BoxBlurWorkspace>(w, h);
    }
    // With two or more slots, one slot's K-means runs beside the others' kernels: the
    // policy for a shared GPU (kmeans_policy.h); with one slot it has the GPU to itself.
    if (!kmeansWs_)
      kmeansWs_ = std::make_unique<KmeansWorkspace>(slots_.size() > 1 ? KmeansLoad::Shared : KmeansLoad::Alone);
    // New buffers hold no centres: the next K-means frame re-initialises.
    lastKmeans_ = nullptr;
    schedule_.reset();
    spdlog::debug("cuda: slots configured for {}x{} {}", w, h, pixelFormatName(layout.format));
    layout_ = layout;
  }

  void enqueue(Slot& s, const InputFrame& frame, const ProcessParams& params) {
    cudaStream_t st = s.stream;
    const int w = layout_.width, h = layout_.height;
    s.out = detail::outputFor(++nextTicket_, frame, params);
    s.out.pitch = size_t(w) * 3;
    s.out.rgb = s.output.as<uint8_t>();
    s.ranKmeans = params.mode == Mode::Kmeans;
    s.ranBlur = params.mode == Mode::Blur;

    s.deviceInput = frame.device.present();
    s.start.record(st);
    if (s.deviceInput) {  // a decoder's surface, read in place once the decoder is done with it
      if (frame.device.ready) VP_CUDA_CHECK(cudaStreamWaitEvent(st, frame.device.ready, 0));
    } else {
      VP_CUDA_CHECK(cudaMemcpyAsync(s.input.get(), frame.data, layout_.bytes, cudaMemcpyHostToDevice, st));
    }
    s.uploaded.record(st);
    convertToRgbaGpu(s.deviceInput ? frame.device.planes : planarView(layout_, s.input.get()), s.rgba.view(),
                     frame.color, st);
    s.converted.record(st);

    const DeviceImage* result = &s.rgba;
    if (s.ranKmeans) {
      bool reinit = false;
      KmeansParams kp = schedule_.next(params.kmeans, params.warmStart, reinit);
      s.out.kmeansReinit = reinit;
      s.out.params.kmeans = kp;
      // Warm start: the previous K-means frame's centres, read where that frame left them
      // (no copy on the frame chain; nothing writes them before this kernel has run, as
      // that slot's next K-means frame waits for this one's centresReady).
      const KmeansState* warmFrom = nullptr;
      if (lastKmeans_ && lastKmeans_ != &s) {
        VP_CUDA_CHECK(cudaStreamWaitEvent(st, lastKmeans_->centresReady, 0));
        warmFrom = lastKmeans_->kmeansState.as<KmeansState>();
      }
      kmeansGpu(s.rgba.view(), s.processed.view(), nullptr, s.kmeansState.as<KmeansState>(), kp, *kmeansWs_, st,
                warmFrom);
      s.centresReady.record(st);
      VP_CUDA_CHECK(cudaMemcpyAsync(s.kmeansStateHost.get(), s.kmeansState.get(), sizeof(KmeansState),
                                    cudaMemcpyDeviceToHost, st));
      lastKmeans_ = &s;
      result = &s.processed;
    } else if (s.ranBlur) {
      boxBlurGpu(s.rgba.view(), s.processed.view(), params.blur, *s.blur, st);
      result = &s.processed;
    }
    rgbaToRgb24Gpu(result->view(), s.packed.as<uint8_t>(), s.out.pitch, st);
    s.processed_.record(st);
    VP_CUDA_CHECK(cudaMemcpyAsync(s.output.get(), s.packed.get(), s.out.pitch * size_t(h), cudaMemcpyDeviceToHost, st));
    s.downloaded.record(st);
  }

  // Reads the completed slot's timings and K-means result.
  void finish(Slot& s) {
    StageTimes& t = s.out.times;
    t[Stage::Upload] = s.deviceInput ? -1.f : Event::elapsedMs(s.start, s.uploaded);
    t[Stage::Convert] = Event::elapsedMs(s.uploaded, s.converted);
    const float computeMs = Event::elapsedMs(s.converted, s.processed_);
    if (s.ranKmeans) t[Stage::Kmeans] = computeMs;
    if (s.ranBlur) t[Stage::Blur] = computeMs;
    t[Stage::Download] = Event::elapsedMs(s.processed_, s.downloaded);
    StageTimeline& tl = s.out.timeline;
    tl.uploadStart = Event::elapsedMs(epoch_, s.start);
    tl.uploadEnd = tl.computeStart = Event::elapsedMs(epoch_, s.uploaded);
    tl.computeEnd = tl.downloadStart = Event::elapsedMs(epoch_, s.processed_);
    tl.downloadEnd = Event::elapsedMs(epoch_, s.downloaded);
    if (s.ranKmeans) {
      KmeansState st;
      std::memcpy(&st, s.kmeansStateHost.get(), sizeof st);
      s.out.kmeansIterations = st.iterations;
      s.out.kmeansCost = st.cost;
      schedule_.observe(st.cost, int64_t(s.out.width) * s.out.height, s.out.kmeansReinit);
    }
  }

  std::vector<std::unique_ptr<Slot>> slots_;
  std::deque<Slot*> free_;
  std::deque<Slot*> busy_;  // submission order
  bool polled_ = false;     // busy_.front() was returned by poll() and not released
  FrameLayout layout_;
  uint64_t nextTicket_ = 0;
  std::string deviceName_;
  std::unique_ptr<KmeansWorkspace> kmeansWs_;
  KmeansSchedule schedule_;
  Event epoch_;  // time zero of the timelines
  // Slot of the latest K-means frame submitted. Its centresReady event stays valid
  // when the slot is reused for another mode: waiting on a completed event is a no-op.
  Slot* lastKmeans_ = nullptr;
};

}  // namespace

std::unique_ptr<Processor> makeCudaProcessor(int streams) {
  if (cudaDeviceCountOrZero() == 0)
    throw std::runtime_error("backend cuda: no CUDA device is available (use --backend cpu or auto)");
  return std::make_unique<CudaProcessor>(streams);
}

}  // namespace vp
