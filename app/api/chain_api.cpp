// vp::Chain: the library face of the filter chain (vidproc.h). Host images run the CPU
// twins, device images the kernels on the caller's stream; both through the same element
// implementations the program's processors hold (chain_elements.h), so state carries
// between calls as it does between frames.
#include "app/api/vidproc.h"

#include "app/api/pixel_layout.h"
#include "gpu/backend/chain_elements.h"
#include "gpu/color/color_convert.h"
#include "gpu/color/pixel_pack.h"
#include "gpu/cuda/device_info.h"
#include "gpu/cuda/cuda_resources.h"
#include "gpu/filters/chain.h"
#include "gpu/filters/registry.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace vp {

int channelsOf(PixelLayout layout) {
  switch (layout) {
    case PixelLayout::RGBA:
    case PixelLayout::BGRA: return 4;
    case PixelLayout::RGB:
    case PixelLayout::BGR: return 3;
    case PixelLayout::GRAY: return 1;
  }
  return 0;
}

std::string_view layoutName(PixelLayout layout) {
  switch (layout) {
    case PixelLayout::RGBA: return "rgba";
    case PixelLayout::RGB: return "rgb";
    case PixelLayout::BGR: return "bgr";
    case PixelLayout::BGRA: return "bgra";
    case PixelLayout::GRAY: return "gray";
  }
  return "?";
}

double ElementMetrics::get(std::string_view name, double fallback) const {
  for (const auto& [n, v] : values)
    if (n == name) return v;
  return fallback;
}

bool cudaAvailable() { return cudaDeviceCountOrZero() > 0; }

namespace {

// Grey samples are pixel values, not limited-range luma: no range expansion.
constexpr ColorSpace kPlainColour{ColorMatrix::Bt601, ColorRange::Full};

size_t spanBytes(const Image& im) { return im.pitch * size_t(im.height - 1) + api::rowBytes(im); }

bool overlaps(const Image& a, const Image& b) {
  const auto* pa = static_cast<const char*>(a.data);
  const auto* pb = static_cast<const char*>(b.data);
  return pa < pb + spanBytes(b) && pb < pa + spanBytes(a);
}

PlanarView planarOf(const Image& im) {
  PlanarView v;
  v.format = api::formatOf(im.layout);
  v.width = im.width, v.height = im.height;
  v.data[0] = static_cast<const uint8_t*>(im.data);
  v.pitch[0] = im.pitch;
  return v;
}

// The image as the chain's RGBA work format when it already is one (RGBA rows of uchar4).
std::optional<RgbaView> rgbaViewOf(const Image& im) {
  const auto addr = reinterpret_cast<uintptr_t>(im.data);
  if (im.layout != PixelLayout::RGBA || addr % 4 || im.pitch % 4) return std::nullopt;
  return RgbaView{static_cast<uchar4*>(im.data), im.pitch, im.width, im.height};
}

// What the latest frame ran and what each element reported.
struct FrameResults {
  FilterChain chain;
  std::array<ElementResult, kMaxChainLength> results{};
};

std::vector<ElementMetrics> metricsOf(const FrameResults& frame) {
  const FilterChain& chain = frame.chain;
  const auto& r = frame.results;
  std::vector<ElementMetrics> out;
  for (int i = 0; i < chain.size(); ++i) {
    ElementMetrics m;
    m.label = elementLabel(chain, i);
    m.ms = r[size_t(i)].ms;
    for (const FilterMetric& f : r[size_t(i)].metrics)
      if (f.name) m.values.emplace_back(f.name, f.value);
    out.push_back(std::move(m));
  }
  return out;
}

// Makes `device` current for a scope and puts the caller's back after it.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    VP_CUDA_CHECK(cudaGetDevice(&before_));
    changed_ = device != before_;
    if (changed_) VP_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceScope() {
    if (changed_) cudaSetDevice(before_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int before_ = 0;
  bool changed_ = false;
};

// The CPU twins on host images.
class HostRunner {
 public:
  void run(const FilterChain& chain, const Image& in, const Image& out) {
    const int w = in.width, h = in.height;
    if (rgba_.width() != w || rgba_.height() != h) {
      rgba_ = HostImage(w, h);
      for (HostImage& p : pingPong_) p = HostImage(w, h);
      for (auto& f : elements_.impls) f->configure(w, h);
    }
    if (!chain.sameShape(elements_.shape))
      elements_.reshape(chain, [](const FilterInfo& f) { return f.makeCpu(); }, [&](CpuFilter& f) { f.configure(w, h); });
    latest_ = FrameResults{chain, {}};
    convertToRgbaCpu(planarOf(in), rgba_.view(), kPlainColour);
    const HostImage* src = &rgba_;
    size_t next = 0;
    for (int i = 0; i < chain.size(); ++i) {
      if (!chain[i].enabled()) continue;
      const auto t0 = std::chrono::steady_clock::now();
      ElementResult& r = latest_.results[size_t(i)];
      elements_.impls[size_t(i)]->run(src->view(), pingPong_[next].view(), chain[i], r);
      r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      src = &pingPong_[next];
      next ^= 1;
    }
    rgbaToPackedCpu(src->view(), api::formatOf(out.layout), static_cast<uint8_t*>(out.data), out.pitch);
  }
  void reset() { elements_ = {}; }
  const FrameResults& results() const { return latest_; }

 private:
  HostImage rgba_;
  std::array<HostImage, 2> pingPong_;
  detail::ChainElements<CpuFilter> elements_;
  FrameResults latest_;
};

// The kernels on device images, on the caller's stream. Two slots alternate so that a
// temporal element (K-means) can read the frame two calls back while the last one runs.
class DeviceRunner {
 public:
  static constexpr int kSlots = 2;

  explicit DeviceRunner(int device) : device_(device) {}
  ~DeviceRunner() {
    // Work still in flight reads buffers freed below; let it finish first.
    if (lastSlot_ >= 0) cudaEventSynchronize(slots_[size_t(lastSlot_)].done);
  }
  int device() const { return device_; }

  void run(const FilterChain& chain, const Image& in, const Image& out, cudaStream_t stream, bool timing) {
    const int w = in.width, h = in.height;
    if (w != width_ || h != height_) resize(w, h);
    if (!chain.sameShape(elements_.shape)) {
      waitIdle();
      elements_.reshape(chain, [](const FilterInfo& f) { return f.makeGpu(); },
                        [&](GpuFilter& f) {
                          f.setConcurrentSlots(false);  // the slots follow one another: launch for a GPU alone
                          f.configure(w, h, kSlots);
                        });
    }
    const int si = (lastSlot_ + 1) % kSlots;
    Slot& s = slots_[size_t(si)];
    // Calls run in the order they are made: a call on another stream than the last one's
    // waits (on the device) for it, as both use the chain's buffers and state.
    if (lastSlot_ >= 0 && stream != lastStream_)
      VP_CUDA_CHECK(cudaStreamWaitEvent(stream, slots_[size_t(lastSlot_)].done, 0));
    s.frame = FrameResults{chain, {}};
    s.finished = false;
    s.timed = timing;
    if (timing) s.start.record(stream);

    int last = -1;  // the last enabled element
    for (int i = 0; i < chain.size(); ++i)
      if (chain[i].enabled()) last = i;
    const std::optional<RgbaView> directIn = rgbaViewOf(in);
    const std::optional<RgbaView> directOut = rgbaViewOf(out);
    ConstRgbaView src;
    if (directIn && last >= 0) {
      src = *directIn;
    } else {
      convertToRgbaGpu(planarOf(in), s.rgba.view(), kPlainColour, stream);
      src = s.rgba.view();
    }
    bool written = false;
    size_t next = 0;
    for (int i = 0; i <= last; ++i) {
      if (!chain[i].enabled()) continue;
      // The last element writes the caller's RGBA image itself unless it would read it.
      const bool intoOut = i == last && directOut && !(directIn && src.data == directIn->data && overlaps(in, out));
      const RgbaView dst = intoOut ? *directOut : s.pingPong[next].view();
      elements_.impls[size_t(i)]->enqueue(si, src, dst, chain[i], s.frame.results[size_t(i)], stream);
      if (timing) s.elementDone[size_t(i)].record(stream);
      written = intoOut;
      src = dst;
      next ^= 1;
    }
    if (!written) {
      if (directOut) {
        VP_CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch, src.data, src.pitch, size_t(w) * 4, size_t(h),
                                        cudaMemcpyDeviceToDevice, stream));
      } else {
        rgbaToPackedGpu(src, api::formatOf(out.layout), static_cast<uint8_t*>(out.data), out.pitch, stream);
      }
    }
    s.done.record(stream);
    lastSlot_ = si;
    lastStream_ = stream;
  }

  // The latest frame's element results, once it has finished.
  const FrameResults* results() {
    if (lastSlot_ < 0) return nullptr;
    Slot& s = slots_[size_t(lastSlot_)];
    if (!s.finished) {
      s.done.synchronize();
      const Event* previous = &s.start;
      const FilterChain& chain = s.frame.chain;
      for (int i = 0; i < chain.size(); ++i) {
        if (!chain[i].enabled()) continue;
        ElementResult& r = s.frame.results[size_t(i)];
        if (s.timed) {
          r.ms = Event::elapsedMs(*previous, s.elementDone[size_t(i)]);
          previous = &s.elementDone[size_t(i)];
        }
        elements_.impls[size_t(i)]->finish(lastSlot_, r);
      }
      s.finished = true;
    }
    return &s.frame;
  }

  void reset() {
    waitIdle();
    if (width_ > 0)
      for (auto& f : elements_.impls) f->configure(width_, height_, kSlots);
  }

 private:
  struct Slot {
    DeviceImage rgba;                    // the input converted to RGBA (when it is not RGBA already)
    std::array<DeviceImage, 2> pingPong;  // the elements' outputs, alternating
    Event done{cudaEventDisableTiming};
    Event start;
    std::array<Event, kMaxChainLength> elementDone;
    FrameResults frame;  // what the slot's frame ran and reported
    bool finished = true;
    bool timed = false;
  };

  void waitIdle() {
    if (lastSlot_ >= 0) slots_[size_t(lastSlot_)].done.synchronize();
  }

  void resize(int w, int h) {
    waitIdle();
    for (Slot& s : slots_) {
      s.rgba = DeviceImage(w, h);
      for (DeviceImage& p : s.pingPong) p = DeviceImage(w, h);
      s.finished = true;
    }
    width_ = w, height_ = h;
    // A new size starts every element afresh, as in the program.
    for (auto& f : elements_.impls) f->configure(w, h, kSlots);
    lastSlot_ = -1;
  }

  int device_;
  int width_ = 0, height_ = 0;
  std::array<Slot, kSlots> slots_;
  detail::ChainElements<GpuFilter> elements_;
  int lastSlot_ = -1;
  cudaStream_t lastStream_ = nullptr;
};

// A device copy of a host image, for Device::Cuda on host memory.
struct StagedImage {
  DevicePitchedBuffer buffer;
  Image image;
};

}  // namespace

struct Chain::Impl {
  FilterChain chain;
  Device device = Device::Auto;
  HostRunner host;
  std::unique_ptr<DeviceRunner> gpu;
  bool timing = false;
  enum class Last { None, Host, Device } last = Last::None;
  StagedImage stagedIn, stagedOut;

  DeviceRunner& deviceRunner(int device) {
    if (!gpu) {
      if (!cudaAvailable())
        throw std::runtime_error("vidproc: a CUDA device image was given, but no CUDA device is available");
      gpu = std::make_unique<DeviceRunner>(device);
    } else if (gpu->device() != device) {
      throw std::invalid_argument("vidproc: this chain runs on CUDA device " + std::to_string(gpu->device()) +
                                  "; the image is on device " + std::to_string(device));
    }
    return *gpu;
  }

  Image stage(StagedImage& s, const Image& im) {
    const size_t row = api::rowBytes(im);
    if (s.image.width != im.width || s.image.height != im.height || s.image.layout != im.layout) {
      s.buffer = DevicePitchedBuffer(row, size_t(im.height));
      s.image = Image{s.buffer.get(), s.buffer.pitch(), im.width, im.height, im.layout, MemoryKind::Device, 0};
    }
    return s.image;
  }

  void runStaged(const Image& in, const Image& out, cudaStream_t stream) {
    int current = 0;
    VP_CUDA_CHECK(cudaGetDevice(&current));
    const DeviceScope scope(gpu ? gpu->device() : current);
    DeviceRunner& r = deviceRunner(gpu ? gpu->device() : current);
    Image din = stage(stagedIn, in), dout = stage(stagedOut, out);
    din.device = dout.device = r.device();
    VP_CUDA_CHECK(cudaMemcpy2DAsync(din.data, din.pitch, in.data, in.pitch, api::rowBytes(in), size_t(in.height),
                                    cudaMemcpyHostToDevice, stream));
    r.run(chain, din, dout, stream, timing);
    VP_CUDA_CHECK(cudaMemcpy2DAsync(out.data, out.pitch, dout.data, dout.pitch, api::rowBytes(out), size_t(out.height),
                                    cudaMemcpyDeviceToHost, stream));
    VP_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void process(const Image& in, const Image& out, cudaStream_t stream) {
    api::checkImage(in, "input");
    api::checkImage(out, "output");
    if (in.width != out.width || in.height != out.height)
      throw std::invalid_argument("input is " + std::to_string(in.width) + "x" + std::to_string(in.height) +
                                  ", output " + std::to_string(out.width) + "x" + std::to_string(out.height));
    if (in.memory != out.memory)
      throw std::invalid_argument("input and output must both be host or both be device images");
    if (in.memory == MemoryKind::Device) {
      if (device == Device::Cpu)
        throw std::invalid_argument("this chain runs on the CPU (device cpu); the image is in CUDA device memory");
      if (in.device != out.device) throw std::invalid_argument("input and output are on different CUDA devices");
      const DeviceScope scope(in.device);
      DeviceRunner& r = deviceRunner(in.device);
      r.run(chain, in, out, stream, timing);
      last = Last::Device;
    } else if (device == Device::Cuda) {
      runStaged(in, out, stream);
      last = Last::Device;
    } else {
      host.run(chain, in, out);  // the input is converted whole before the output is written: any overlap is safe
      last = Last::Host;
    }
  }

  // The element and option index a path ("kmeans#2.k", "k") names.
  int locate(std::string_view path, int& option) const {
    const size_t dot = path.rfind('.');
    const std::string_view target = dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
    const std::string_view name = dot == std::string_view::npos ? path : path.substr(dot + 1);
    if (name.empty()) throw std::invalid_argument("'" + std::string(path) + "': an option name was expected");
    const int i = resolveElement(chain, target, name);
    option = chain[i].filter().optionIndex(name);
    return i;
  }
};

Chain::Chain(std::string_view spec, Device device) : impl_(std::make_unique<Impl>()) {
  impl_->chain = parseChain(spec);
  impl_->device = device;
  if (device == Device::Cuda && !cudaAvailable())
    throw std::runtime_error("vidproc: device cuda was asked for, but no CUDA device is available");
}
Chain::~Chain() = default;
Chain::Chain(Chain&&) noexcept = default;
Chain& Chain::operator=(Chain&&) noexcept = default;

void Chain::process(const Image& in, const Image& out, cudaStream_t stream) { impl_->process(in, out, stream); }

void Chain::processBatch(const Image& in, size_t inStride, const Image& out, size_t outStride, int count,
                         cudaStream_t stream) {
  if (count < 0) throw std::invalid_argument("batch count must not be negative");
  for (int i = 0; i < count; ++i) {
    Image a = in, b = out;
    a.data = static_cast<char*>(in.data) + size_t(i) * inStride;
    b.data = static_cast<char*>(out.data) + size_t(i) * outStride;
    impl_->process(a, b, stream);
  }
}

std::string Chain::spec() const { return formatChain(impl_->chain); }
std::string Chain::describe() const { return describeChain(impl_->chain); }
int Chain::size() const { return impl_->chain.size(); }

void Chain::set(std::string_view path, double value) {
  int option = -1;
  impl_->chain[impl_->locate(path, option)].set(option, value);
}

void Chain::set(std::string_view path, std::string_view value) {
  int option = -1;
  FilterElement& e = impl_->chain[impl_->locate(path, option)];
  e.set(option, parseOptionValue(e.filter().option(option), value));
}

double Chain::get(std::string_view path) const {
  int option = -1;
  return impl_->chain[impl_->locate(path, option)].value(option);
}

void Chain::setSpec(std::string_view spec) { impl_->chain = parseChain(spec); }

void Chain::append(std::string_view element) { impl_->chain.add(parseElement(element)); }

void Chain::insert(int position, std::string_view element) {
  FilterChain& c = impl_->chain;
  if (position < 0 || position > c.size())
    throw std::invalid_argument("insert position " + std::to_string(position) + " is outside 0.." +
                                std::to_string(c.size()));
  FilterChain next;
  const FilterElement added = parseElement(element);
  for (int i = 0; i <= c.size(); ++i) {
    if (i == position) next.add(added);
    if (i < c.size()) next.add(c[i]);
  }
  c = next;
}

void Chain::remove(std::string_view target) { impl_->chain.remove(resolveElement(impl_->chain, target, "")); }

void Chain::enable(std::string_view target, bool on) {
  impl_->chain[resolveElement(impl_->chain, target, "")].setEnabled(on);
}

void Chain::reset() {
  impl_->host.reset();
  if (impl_->gpu) impl_->gpu->reset();
}

std::vector<ElementMetrics> Chain::metrics() {
  if (impl_->last == Impl::Last::Device && impl_->gpu) {
    const DeviceScope scope(impl_->gpu->device());
    if (const FrameResults* r = impl_->gpu->results()) return metricsOf(*r);
  }
  if (impl_->last == Impl::Last::Host) return metricsOf(impl_->host.results());
  return {};
}

void Chain::setTiming(bool on) { impl_->timing = on; }
Device Chain::device() const { return impl_->device; }

std::vector<FilterDescription> filters() {
  static const char* const kTypes[] = {"int", "float", "choice", "bool"};
  std::vector<FilterDescription> out;
  for (const FilterInfo* f : filterRegistry()) {
    FilterDescription d{f->name, f->summary, f->temporal, {}};
    for (int i = 0; i < f->optionCount; ++i) {
      const OptionInfo& o = f->option(i);
      OptionDescription od;
      od.name = o.name, od.type = kTypes[int(o.type)], od.help = o.help ? o.help : "";
      od.lo = o.lo, od.hi = o.hi, od.def = o.def, od.runtime = o.runtime;
      od.defText = formatOptionValue(o, o.def);
      if (o.choices) {
        std::string_view rest = o.choices;
        for (size_t bar; (bar = rest.find('|')) != std::string_view::npos; rest.remove_prefix(bar + 1))
          od.choices.emplace_back(rest.substr(0, bar));
        od.choices.emplace_back(rest);
      }
      d.options.push_back(std::move(od));
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace vp
