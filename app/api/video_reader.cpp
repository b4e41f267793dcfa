// vp::VideoReader: the program's source (io/source.h: demux and decode threads, NVDEC where
// --hwdec auto would use it) and its convert to RGBA, then the pack to the caller's
// layout, on the CPU or on the caller's stream.
#include "app/api/vidproc.h"

#include "app/api/pixel_layout.h"
#include "gpu/color/color_convert.h"
#include "gpu/color/pixel_pack.h"
#include "gpu/cuda/cuda_devices.h"
#include "gpu/cuda/device_info.h"
#include "io/frame_queue.h"
#include "io/source.h"

#include <optional>
#include <stdexcept>

namespace vp {

namespace {
constexpr int kQueueFrames = 6;  // decoded frames the reader may run ahead (the program: streams + 3)
}  // namespace

struct VideoReader::Impl {
  bool cuda = false;
  std::unique_ptr<FrameQueue> queue;  // declared before the source: it outlives the source's threads
  std::unique_ptr<Source> source;
  bool holding = false;               // the head frame is converted and still held (popped at the next read)
  std::optional<Event> converted;     // cuda: the held frame's convert has finished reading it
  DeviceBuffer upload;                // cuda, software-decoded frames: their planes on the device
  DeviceImage rgbaDevice;
  HostImage rgbaHost;
  bool ended = false;

  ~Impl() {
    if (converted) cudaEventSynchronize(*converted);  // the convert still reading a held surface
    source.reset();  // stops and joins its threads while the queue lives
  }

  // The next frame, once the one held since the last read is given back; nullptr at the
  // end of the video (throws the source's error when decoding failed).
  HostFrame* next() {
    if (ended) return nullptr;
    releaseHeld();
    HostFrame* f = queue->peekReadable();
    if (f && !f->info.endOfStream) return f;
    ended = true;
    const std::string error = source->fatalError();
    if (!error.empty()) throw std::runtime_error(error);
    return nullptr;
  }

  void releaseHeld() {
    if (!holding) return;
    if (converted) converted->synchronize();
    queue->pop();
    holding = false;
  }

  void convert(HostFrame& f, const Image& out, cudaStream_t stream) {
    const FrameInfo& info = f.info;
    const int w = info.layout.width, h = info.layout.height;
    if (!cuda) {
      if (rgbaHost.width() != w || rgbaHost.height() != h) rgbaHost = HostImage(w, h);
      convertToRgbaCpu(planarView(info.layout, f.data()), rgbaHost.view(), info.color);
      rgbaToPackedCpu(rgbaHost.view(), api::formatOf(out.layout), static_cast<uint8_t*>(out.data), out.pitch);
      return;
    }
    if (rgbaDevice.width() != w || rgbaDevice.height() != h) rgbaDevice = DeviceImage(w, h);
    PlanarView planes;
    if (info.device.present()) {  // NVDEC: read in place once the decoder is done with it
      if (info.device.ready) VP_CUDA_CHECK(cudaStreamWaitEvent(stream, info.device.ready, 0));
      planes = info.device.planes;
    } else {
      if (upload.bytes() < info.layout.bytes) upload = DeviceBuffer(info.layout.bytes);
      VP_CUDA_CHECK(cudaMemcpyAsync(upload.get(), f.data(), info.layout.bytes, cudaMemcpyHostToDevice, stream));
      planes = planarView(info.layout, upload.get());
    }
    convertToRgbaGpu(planes, rgbaDevice.view(), info.color, stream);
    if (!converted) converted.emplace(cudaEventDisableTiming);
    converted->record(stream);  // the frame (surface or host planes) may be reused after this
    rgbaToPackedGpu(rgbaDevice.view(), api::formatOf(out.layout), static_cast<uint8_t*>(out.data), out.pitch, stream);
  }
};

VideoReader::VideoReader(std::string_view url, Device device) : impl_(std::make_unique<Impl>()) {
  const bool gpu = cudaDeviceCountOrZero() > 0;
  if (device == Device::Cuda && !gpu)
    throw std::runtime_error("vidproc: device cuda was asked for, but no CUDA device is available");
  impl_->cuda = device == Device::Cuda || (device == Device::Auto && gpu);
  SourceOptions o;
  o.url = std::string(url);
  o.hwdec = impl_->cuda ? HwDecodeMode::Auto : HwDecodeMode::No;
  o.gpu = impl_->cuda ? currentCudaDevice() : 0;
  try {
    impl_->source = openSource(o);
  } catch (const SourceError& e) {
    throw std::runtime_error(e.what());
  }
  impl_->queue = std::make_unique<FrameQueue>(kQueueFrames, HostAllocator::plain());
  impl_->source->start(*impl_->queue);
}

VideoReader::~VideoReader() = default;
VideoReader::VideoReader(VideoReader&&) noexcept = default;
VideoReader& VideoReader::operator=(VideoReader&&) noexcept = default;

bool VideoReader::peek(int* width, int* height) {
  const HostFrame* f = impl_->next();
  if (!f) return false;
  if (width) *width = f->info.layout.width;
  if (height) *height = f->info.layout.height;
  return true;
}

bool VideoReader::read(const Image& out, FrameStamp* stamp, cudaStream_t stream) {
  Impl& r = *impl_;
  HostFrame* f = r.next();
  if (!f) return false;
  const FrameInfo& info = f->info;
  const MemoryKind want = r.cuda ? MemoryKind::Device : MemoryKind::Host;
  if (out.memory != want)
    throw std::invalid_argument(std::string("this reader writes ") + (r.cuda ? "CUDA device" : "host") +
                                " images; the output is in " + (r.cuda ? "host" : "device") + " memory");
  api::checkImage(out, "output");
  if (out.width != info.layout.width || out.height != info.layout.height)
    throw std::invalid_argument("the output image must be " + std::to_string(info.layout.width) + "x" +
                                std::to_string(info.layout.height) + ", the frame's size");
  r.convert(*f, out, stream);
  if (stamp) *stamp = FrameStamp{info.ptsUs, info.index};
  r.holding = true;
  if (!r.cuda) r.releaseHeld();  // the CPU convert is done with it
  return true;
}

int VideoReader::width() const { return impl_->source->info().width; }
int VideoReader::height() const { return impl_->source->info().height; }
double VideoReader::fps() const { return impl_->source->info().fps; }
int64_t VideoReader::durationUs() const { return impl_->source->info().durationUs; }
std::string VideoReader::codec() const { return impl_->source->info().codec; }
std::string VideoReader::decodePath() const { return impl_->source->info().decodePath; }
MemoryKind VideoReader::memory() const { return impl_->cuda ? MemoryKind::Device : MemoryKind::Host; }

}  // namespace vp
