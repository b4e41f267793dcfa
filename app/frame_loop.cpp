#include "app/frame_loop.h"

#include "app/options.h"
#include "gpu/cuda_resources.h"
#include "gpu/device_info.h"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace vp {

HostAllocator frameAllocator(const Processor& processor) {
  if (processor.backendName() != "cuda") return HostAllocator::plain();
  // PinnedBuffer stays the one owner of pinned memory; the allocator keeps them by address.
  struct Pool {
    std::mutex mutex;  // guards buffers (decode thread allocates, main thread may free)
    std::map<void*, PinnedBuffer> buffers;
  };
  auto pool = std::make_shared<Pool>();
  HostAllocator a;
  a.allocate = [pool](size_t bytes) {
    PinnedBuffer b(bytes);
    void* p = b.get();
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->buffers.emplace(p, std::move(b));
    return p;
  };
  a.release = [pool](void* p) {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->buffers.erase(p);
  };
  return a;
}

SourceOptions sourceOptionsFrom(const Options& o) {
  SourceOptions s = o.input.empty() && o.format.empty() ? defaultSourceOptions() : SourceOptions{};
  if (!o.input.empty()) s.url = o.input;
  if (!o.format.empty()) s.format = o.format;
  if (!o.videoSize.empty()) s.deviceOptions["video_size"] = o.videoSize;
  if (!o.framerate.empty()) s.deviceOptions["framerate"] = o.framerate;
  if (!o.inputPixfmt.empty()) s.deviceOptions["input_format"] = o.inputPixfmt;
  s.loop = o.loop;
  s.reconnect = o.reconnect;
  s.autorotate = o.autorotate;
  // nvdec frames stay on the GPU: only the cuda backend reads them (auto = cuda when a device exists).
  s.hwdec = o.backend == Backend::Cpu || o.hwdec == "no" || (o.hwdec == "auto" && cudaDeviceCountOrZero() == 0)
                ? HwDecodeMode::No
                : (o.hwdec == "nvdec" ? HwDecodeMode::Nvdec : HwDecodeMode::Auto);
  s.gpu = o.gpu;
  s.hwHeldFrames = o.streams + 5;  // the queue (streams + 3), the frame being written, one spare
  s.live = s.format == "v4l2" || s.format == "video4linux2" || s.url.rfind("/dev/", 0) == 0;
  return s;
}

std::string inputDisplayName(const Options& o) {
  return o.input.empty() ? std::string("built-in pattern (lavfi)") : o.input;
}

FrameLoop::FrameLoop(Source& source, FrameQueue& queue, Processor& processor)
    : source_(source), queue_(queue), processor_(processor) {}

bool FrameLoop::feed(const ProcessParams& params) {
  bool progressed = false;
  if (pending_ && processor_.inputReleased(*pending_, false)) {
    queue_.pop();
    pending_.reset();
    progressed = true;
  }
  // Only the oldest queued frame can be peeked, so one upload is pending at a time;
  // uploads are short next to downloads, which bound the rate.
  if (pending_ || eos_ || !feeding_) return progressed;
  HostFrame* f = queue_.tryPeekReadable();
  if (!f) return progressed;
  if (f->info.endOfStream) {
    queue_.pop();
    eos_ = true;
    return true;
  }
  if (f->info.serial != source_.serial()) {  // from before a seek
    queue_.pop();
    return true;
  }
  InputFrame in;
  in.data = f->data();
  in.layout = f->info.layout;
  in.color = f->info.color;
  in.ptsUs = f->info.ptsUs;
  in.device = f->info.device;
  if (auto ticket = processor_.submit(in, params)) {
    pending_ = ticket;
    ++framesIn_;
    return true;
  }
  return progressed;
}

void FrameLoop::waitForWork() {
  if (pending_) {
    processor_.inputReleased(*pending_, true);
  } else if (processor_.inFlight() > 0 && queue_.size() > 0) {
    processor_.poll(true);  // slots full (or a layout change draining): wait for the oldest
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(100));  // waiting on the decoder
  }
}

void FrameLoop::settle() {
  if (!pending_) return;
  processor_.inputReleased(*pending_, true);
  queue_.pop();
  pending_.reset();
}

bool FrameLoop::finished() const {
  return (eos_ || !feeding_) && !pending_ && processor_.inFlight() == 0;
}

}  // namespace vp
