// The CUDA backend: N slots, each a CUDA stream with its own device and pinned
// buffers, so slot i+1 uploads while slot i computes and slot i-1 downloads.
//
// Per frame, in the slot's stream: H2D native planes -> convert to RGBA -> each chain
// element between the slot's ping-pong images, or in place where the element allows it
// and nothing reads its input after it -> pack to RGB24 (or compose the compare
// view from the converted input and the result) -> D2H; every stage and every element is
// bracketed by events. A temporal element chains frames itself: K-means of frame n waits
// (cudaStreamWaitEvent) on frame n-1's "centres ready" and reads those centres in place;
// uploads, other elements, packs and downloads still overlap. Times are read only from
// slots whose last event has completed: no device-wide sync.
#include "gpu/backend/chain_elements.h"
#include "gpu/color/color_convert.h"
#include "gpu/color/compare_view.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/cuda/device_info.h"
#include "gpu/processor.h"

#include <spdlog/spdlog.h>

#include <array>
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
  DeviceBuffer input;        // native planes, same layout as the host frame; allocated at the first host frame
                             // (frames a hardware decoder leaves on the device never need it)
  DeviceImage rgba;          // converted frame (the compare view's original)
  std::array<DeviceImage, 2> pingPong;  // the chain's outputs, alternating; allocated at their first use
  DeviceBuffer packed;       // the view as tightly packed RGB24
  PinnedBuffer output;       // its copy for the caller
  DeviceBuffer packedSide;   // compare side: the view twice as wide; allocated at its first use
  PinnedBuffer outputSide;
  DeviceBuffer packedProcessed;   // compare with keepProcessed: the processed frame alone
  PinnedBuffer outputProcessed;   // its copy
  Stream stream;
  Event start, uploaded, converted, computed, downloaded;
  std::array<Event, kMaxChainLength> elementDone;  // after each element
  OutputFrame out;
  int index = 0;             // in slots_: the per-slot state of the elements
  bool deviceInput = false;  // read a decoded picture in device memory in place: released after the convert
};

class CudaProcessor final : public Processor {
 public:
  explicit CudaProcessor(int streams) : slots_(size_t(streams)) {
    if (streams < 1 || streams > 16) throw std::invalid_argument("streams must be 1..16");
    deviceName_ = cudaDeviceName();
    for (size_t i = 0; i < slots_.size(); ++i) {
      slots_[i] = std::make_unique<Slot>();
      slots_[i]->index = int(i);
    }
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
    detail::checkParams(params);
    const bool newLayout = !sameLayout(frame.layout, layout_);
    const bool newShape = !params.chain.sameShape(elements_.shape);
    if (newLayout || newShape) {
      if (!busy_.empty()) return std::nullopt;  // drain first: nothing stale, nothing lost
      if (newLayout) reconfigure(frame.layout);
      if (newShape) reshape(params.chain);
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
      s->input = DeviceBuffer();
      s->rgba = DeviceImage(w, h);
      for (DeviceImage& p : s->pingPong) p = DeviceImage();
      s->packed = DeviceBuffer(size_t(w) * h * 3);
      s->output = PinnedBuffer(s->packed.bytes());
      s->packedSide = DeviceBuffer();
      s->outputSide = PinnedBuffer();
      s->packedProcessed = DeviceBuffer();
      s->outputProcessed = PinnedBuffer();
    }
    layout_ = layout;
    // New buffers hold no state: every element starts afresh (K-means re-initialises).
    for (auto& f : elements_.impls) f->configure(w, h, int(slots_.size()));
    spdlog::debug("cuda: slots configured for {}x{} {}", w, h, pixelFormatName(layout.format));
  }

  void reshape(const FilterChain& chain) {
    elements_.reshape(
        chain, [](const FilterInfo& f) { return f.makeGpu(); },
        [&](GpuFilter& f) {
          if (layout_.width > 0) f.configure(layout_.width, layout_.height, int(slots_.size()));
        });
  }

  // Where element `e` writes: in place over its input where the filter allows it and the
  // input is not the converted frame that the compare view still shows; else the ping-pong
  // image that is not its input, allocated at its first use (the default one-element
  // K-means chain never needs one: -33 MB a slot at 4K).
  DeviceImage& outputOf(Slot& s, DeviceImage& input, const GpuFilter& f, const FilterElement& e,
                        const ProcessParams& params) {
    if (f.inPlace(e) && (&input != &s.rgba || params.compare == CompareMode::Off)) return input;
    DeviceImage& out = s.pingPong[&input == &s.pingPong[0] ? 1 : 0];
    if (out.width() != layout_.width || out.height() != layout_.height) out = DeviceImage(layout_.width, layout_.height);
    return out;
  }

  void enqueue(Slot& s, const InputFrame& frame, const ProcessParams& params) {
    cudaStream_t st = s.stream;
    s.out = detail::outputFor(++nextTicket_, frame, params);

    s.deviceInput = frame.device.present();
    s.start.record(st);
    if (s.deviceInput) {  // a decoded picture in device memory, read in place once it is complete
      if (frame.device.ready) VP_CUDA_CHECK(cudaStreamWaitEvent(st, frame.device.ready, 0));
    } else {
      if (s.input.bytes() != layout_.bytes) s.input = DeviceBuffer(layout_.bytes);
      VP_CUDA_CHECK(cudaMemcpyAsync(s.input.get(), frame.data, layout_.bytes, cudaMemcpyHostToDevice, st));
    }
    s.uploaded.record(st);
    convertToRgbaGpu(s.deviceInput ? frame.device.planes : planarView(layout_, s.input.get()), s.rgba.view(),
                     frame.color, st);
    s.converted.record(st);

    DeviceImage* result = &s.rgba;
    for (int i = 0; i < params.chain.size(); ++i) {
      const FilterElement& e = params.chain[i];
      if (!e.enabled()) continue;
      GpuFilter& f = *elements_.impls[size_t(i)];
      DeviceImage& out = outputOf(s, *result, f, e, params);
      f.enqueue(s.index, result->view(), out.view(), e, s.out.chain[size_t(i)], st);
      s.elementDone[size_t(i)].record(st);
      result = &out;
    }
    s.computed.record(st);
    pack(s, *result, params);
    s.downloaded.record(st);
  }

  // The view (and with compare + keepProcessed, the processed frame) to the host.
  void pack(Slot& s, const DeviceImage& result, const ProcessParams& params) {
    cudaStream_t st = s.stream;
    const int w = layout_.width, h = layout_.height;
    OutputFrame& o = s.out;
    o.width = compareWidth(params.compare, w);
    o.pitch = size_t(o.width) * 3;
    const bool side = params.compare == CompareMode::Side;
    if (side && !s.packedSide.get()) {  // once per frame size, only for runs that show it
      s.packedSide = DeviceBuffer(o.pitch * h);
      s.outputSide = PinnedBuffer(o.pitch * h);
    }
    DeviceBuffer& packed = side ? s.packedSide : s.packed;
    PinnedBuffer& output = side ? s.outputSide : s.output;
    o.rgb = output.as<uint8_t>();
    if (params.compare == CompareMode::Off) {
      rgbaToRgb24Gpu(result.view(), packed.as<uint8_t>(), o.pitch, st);
    } else {
      composeCompareGpu(s.rgba.view(), result.view(), params.compare, params.split, packed.as<uint8_t>(), o.pitch, st);
    }
    VP_CUDA_CHECK(cudaMemcpyAsync(output.get(), packed.get(), o.pitch * size_t(h), cudaMemcpyDeviceToHost, st));
    o.processedPitch = size_t(w) * 3;
    if (params.compare == CompareMode::Off) {
      o.processed = o.rgb;
    } else if (params.keepProcessed) {
      if (!s.packedProcessed.get()) {  // once per frame size: only runs that keep both need it
        s.packedProcessed = DeviceBuffer(o.processedPitch * h);
        s.outputProcessed = PinnedBuffer(o.processedPitch * h);
      }
      rgbaToRgb24Gpu(result.view(), s.packedProcessed.as<uint8_t>(), o.processedPitch, st);
      VP_CUDA_CHECK(cudaMemcpyAsync(s.outputProcessed.get(), s.packedProcessed.get(), o.processedPitch * h,
                                    cudaMemcpyDeviceToHost, st));
      o.processed = s.outputProcessed.as<uint8_t>();
    }
  }

  // Reads the completed slot's timings and the elements' metrics.
  void finish(Slot& s) {
    StageTimes& t = s.out.times;
    t[Stage::Upload] = s.deviceInput ? -1.f : Event::elapsedMs(s.start, s.uploaded);
    t[Stage::Convert] = Event::elapsedMs(s.uploaded, s.converted);
    t[Stage::Download] = Event::elapsedMs(s.computed, s.downloaded);
    const Event* previous = &s.converted;
    const FilterChain& chain = s.out.params.chain;
    for (int i = 0; i < chain.size(); ++i) {
      if (!chain[i].enabled()) continue;
      ElementResult& r = s.out.chain[size_t(i)];
      r.ms = Event::elapsedMs(*previous, s.elementDone[size_t(i)]);
      elements_.impls[size_t(i)]->finish(s.index, r);
      previous = &s.elementDone[size_t(i)];
    }
    StageTimeline& tl = s.out.timeline;
    tl.uploadStart = Event::elapsedMs(epoch_, s.start);
    tl.uploadEnd = tl.computeStart = Event::elapsedMs(epoch_, s.uploaded);
    tl.computeEnd = tl.downloadStart = Event::elapsedMs(epoch_, s.computed);
    tl.downloadEnd = Event::elapsedMs(epoch_, s.downloaded);
  }

  std::vector<std::unique_ptr<Slot>> slots_;
  std::deque<Slot*> free_;
  std::deque<Slot*> busy_;  // submission order
  bool polled_ = false;     // busy_.front() was returned by poll() and not released
  FrameLayout layout_;
  uint64_t nextTicket_ = 0;
  std::string deviceName_;
  detail::ChainElements<GpuFilter> elements_;  // one implementation per element of the chain's shape
  Event epoch_;  // time zero of the timelines
};

}  // namespace

std::unique_ptr<Processor> makeCudaProcessor(int streams) {
  if (cudaDeviceCountOrZero() == 0)
    throw std::runtime_error("backend cuda: no CUDA device is available (use --backend cpu or auto)");
  return std::make_unique<CudaProcessor>(streams);
}

}  // namespace vp
