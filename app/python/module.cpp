// vidproc._vidproc: the pybind11 layer over libvidproc (app/api/vidproc.h). It takes raw
// image descriptions (pointer, pitch, sizes, layout, memory) that the Python package
// (vidproc/__init__.py) reads off numpy, torch, CuPy or DLPack arrays, and orders device
// work against the caller's stream with events. Also: reading DLPack capsules, and a
// device array of our own for producers whose type we cannot allocate.
#include <vidproc/vidproc.h>

#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("vidproc: ") + what + ": " + cudaGetErrorString(e));
}

vp::PixelLayout layoutOf(const std::string& name) {
  for (vp::PixelLayout l : {vp::PixelLayout::RGBA, vp::PixelLayout::RGB, vp::PixelLayout::BGR, vp::PixelLayout::BGRA,
                            vp::PixelLayout::GRAY})
    if (vp::layoutName(l) == name) return l;
  throw std::invalid_argument("unknown pixel layout '" + name + "'");
}

vp::Device deviceOf(const std::string& name) {
  if (name == "auto") return vp::Device::Auto;
  if (name == "cpu") return vp::Device::Cpu;
  if (name == "cuda") return vp::Device::Cuda;
  throw std::invalid_argument("device must be 'auto', 'cpu' or 'cuda', not '" + name + "'");
}

cudaStream_t streamOf(uintptr_t handle) { return reinterpret_cast<cudaStream_t>(handle); }

// A Chain with the events that order its device work after the caller's stream and the
// caller's stream after it, created on the first call that needs them.
class PyChain {
 public:
  PyChain(const std::string& spec, const std::string& device) : chain_(spec, deviceOf(device)) {}
  ~PyChain() {
    for (cudaEvent_t e : {before_, after_})
      if (e) cudaEventDestroy(e);
  }
  PyChain(const PyChain&) = delete;
  PyChain& operator=(const PyChain&) = delete;

  // One image or `count` images `stride` bytes apart. Device memory: the work runs on
  // `stream`; when `peer` (the stream the arrays were made on and will be used on) is
  // another stream, vidproc waits for it first and it waits for vidproc after.
  void process(uintptr_t in, size_t inPitch, size_t inStride, const std::string& inLayout, uintptr_t out,
               size_t outPitch, size_t outStride, const std::string& outLayout, int width, int height, int count,
               bool deviceMemory, int device, uintptr_t stream, int64_t peer) {
    const vp::MemoryKind kind = deviceMemory ? vp::MemoryKind::Device : vp::MemoryKind::Host;
    const vp::Image a{reinterpret_cast<void*>(in), inPitch, width, height, layoutOf(inLayout), kind, device};
    const vp::Image b{reinterpret_cast<void*>(out), outPitch, width, height, layoutOf(outLayout), kind, device};
    py::gil_scoped_release unlocked;
    const bool fence = deviceMemory && peer >= 0 && uintptr_t(peer) != stream;
    if (fence) {
      ensureEvents(device);
      check(cudaEventRecord(before_, streamOf(uintptr_t(peer))), "event record");
      check(cudaStreamWaitEvent(streamOf(stream), before_, 0), "stream wait");
    }
    chain_.processBatch(a, inStride, b, outStride, count, streamOf(stream));
    if (fence) {
      check(cudaEventRecord(after_, streamOf(stream)), "event record");
      check(cudaStreamWaitEvent(streamOf(uintptr_t(peer)), after_, 0), "stream wait");
    }
  }

  py::dict metrics() {
    std::vector<vp::ElementMetrics> m;
    {
      py::gil_scoped_release unlocked;  // may wait for the device
      m = chain_.metrics();
    }
    py::dict out;
    for (const vp::ElementMetrics& e : m) {
      py::dict d;
      if (e.ms >= 0) d["ms"] = e.ms;
      for (const auto& [name, value] : e.values) d[py::str(name)] = value;
      out[py::str(e.label)] = d;
    }
    return out;
  }

  vp::Chain& chain() { return chain_; }

 private:
  void ensureEvents(int device) {
    if (before_) return;
    int current = 0;
    check(cudaGetDevice(&current), "cudaGetDevice");
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaEventCreateWithFlags(&before_, cudaEventDisableTiming), "event create");
    check(cudaEventCreateWithFlags(&after_, cudaEventDisableTiming), "event create");
    check(cudaSetDevice(current), "cudaSetDevice");
  }

  vp::Chain chain_;
  cudaEvent_t before_ = nullptr, after_ = nullptr;
};

// What a DLPack capsule describes, for the package to check and use; the capsule stays
// the caller's (its own destructor gives the tensor back).
py::dict dlpackInfo(const py::capsule& capsule) {
  if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
    throw py::type_error("not an unconsumed DLPack capsule ('dltensor')");
  const auto* managed = static_cast<const DLManagedTensor*>(capsule.get_pointer());
  const DLTensor& t = managed->dl_tensor;
  py::dict d;
  d["ptr"] = reinterpret_cast<uintptr_t>(t.data) + uintptr_t(t.byte_offset);
  py::list shape, strides;
  for (int i = 0; i < t.ndim; ++i) {
    shape.append(t.shape[i]);
    // No strides: compact row-major.
    int64_t s = 1;
    if (t.strides) s = t.strides[i];
    else
      for (int j = i + 1; j < t.ndim; ++j) s *= t.shape[j];
    strides.append(s);
  }
  d["shape"] = py::tuple(shape);
  d["strides"] = py::tuple(strides);  // in elements, as DLPack counts them
  d["device_type"] = int(t.device.device_type);
  d["device_id"] = t.device.device_id;
  d["dtype"] = py::make_tuple(int(t.dtype.code), int(t.dtype.bits), int(t.dtype.lanes));
  return d;
}

// Device memory of our own, for a result whose producer we cannot ask to allocate. It
// speaks both protocols, so torch, CuPy, JAX, numba and cv2.cuda wrappers can take it.
class DeviceArray {
 public:
  DeviceArray(std::vector<int64_t> shape, int device) : shape_(std::move(shape)), device_(device) {
    size_t bytes = 1;
    for (int64_t s : shape_) bytes *= size_t(s);
    int current = 0;
    check(cudaGetDevice(&current), "cudaGetDevice");
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaMalloc(&ptr_, bytes ? bytes : 1), "cudaMalloc");
    check(cudaSetDevice(current), "cudaSetDevice");
  }
  ~DeviceArray() { cudaFree(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  uintptr_t ptr() const { return reinterpret_cast<uintptr_t>(ptr_); }
  const std::vector<int64_t>& shape() const { return shape_; }
  int device() const { return device_; }

  py::dict cudaArrayInterface() const {
    py::dict d;
    d["shape"] = py::tuple(py::cast(shape_));
    d["typestr"] = "|u1";
    d["data"] = py::make_tuple(ptr(), false);
    d["version"] = 3;
    d["strides"] = py::none();
    d["stream"] = py::none();  // the caller ordered the work that wrote it
    return d;
  }

  // A DLPack capsule that keeps `self` alive until the consumer is done with it.
  static py::capsule dlpack(const py::object& self) {
    const DeviceArray& a = self.cast<const DeviceArray&>();
    struct Holder {
      DLManagedTensor managed;
      std::vector<int64_t> shape;
      PyObject* owner;
    };
    auto* h = new Holder{{}, a.shape_, self.ptr()};
    Py_INCREF(h->owner);
    DLTensor& t = h->managed.dl_tensor;
    t.data = a.ptr_;
    t.device = DLDevice{kDLCUDA, a.device_};
    t.ndim = int(h->shape.size());
    t.dtype = DLDataType{kDLUInt, 8, 1};
    t.shape = h->shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    h->managed.manager_ctx = h;
    h->managed.deleter = [](DLManagedTensor* m) {
      auto* holder = static_cast<Holder*>(m->manager_ctx);
      py::gil_scoped_acquire gil;
      Py_DECREF(holder->owner);
      delete holder;
    };
    // A capsule nobody consumed gives the tensor back itself.
    return py::capsule(&h->managed, "dltensor", [](PyObject* cap) {
      if (PyCapsule_IsValid(cap, "dltensor")) {
        auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
        m->deleter(m);
      }
    });
  }

 private:
  void* ptr_ = nullptr;
  std::vector<int64_t> shape_;
  int device_ = 0;
};

}  // namespace

PYBIND11_MODULE(_vidproc, m) {
  m.doc() = "vidproc's filter chain on host and CUDA images (see the vidproc package)";

  py::class_<PyChain>(m, "Chain")
      .def(py::init<const std::string&, const std::string&>(), py::arg("spec"), py::arg("device") = "auto")
      .def("process", &PyChain::process)
      .def("metrics", &PyChain::metrics)
      .def("reset", [](PyChain& c) { c.chain().reset(); })
      .def("set", [](PyChain& c, const std::string& path, double v) { c.chain().set(path, v); })
      .def("set", [](PyChain& c, const std::string& path, const std::string& v) { c.chain().set(path, v); })
      .def("get", [](PyChain& c, const std::string& path) { return c.chain().get(path); })
      .def("set_spec", [](PyChain& c, const std::string& s) { c.chain().setSpec(s); })
      .def("append", [](PyChain& c, const std::string& e) { c.chain().append(e); })
      .def("insert", [](PyChain& c, int i, const std::string& e) { c.chain().insert(i, e); })
      .def("remove", [](PyChain& c, const std::string& t) { c.chain().remove(t); })
      .def("enable", [](PyChain& c, const std::string& t, bool on) { c.chain().enable(t, on); })
      .def("set_timing", [](PyChain& c, bool on) { c.chain().setTiming(on); })
      .def("spec", [](PyChain& c) { return c.chain().spec(); })
      .def("describe", [](PyChain& c) { return c.chain().describe(); })
      .def("size", [](PyChain& c) { return c.chain().size(); });

  py::class_<DeviceArray>(m, "DeviceArray")
      .def(py::init<std::vector<int64_t>, int>())
      .def_property_readonly("ptr", &DeviceArray::ptr)
      .def_property_readonly("shape", [](const DeviceArray& a) { return py::tuple(py::cast(a.shape())); })
      .def_property_readonly("device", &DeviceArray::device)
      .def_property_readonly("__cuda_array_interface__", &DeviceArray::cudaArrayInterface)
      // stream: the work that wrote it is ordered already; max_version: this is a legacy capsule.
      .def("__dlpack__", [](const py::object& self, const py::kwargs&) { return DeviceArray::dlpack(self); })
      .def("__dlpack_device__", [](const DeviceArray& a) { return py::make_tuple(int(kDLCUDA), a.device()); });

  py::class_<vp::VideoReader>(m, "VideoReader")
      .def(py::init([](const std::string& url, const std::string& device) {
             py::gil_scoped_release unlocked;  // opening a network stream may wait
             return std::make_unique<vp::VideoReader>(url, deviceOf(device));
           }),
           py::arg("url"), py::arg("device") = "auto")
      .def("peek",
           [](vp::VideoReader& r) -> py::object {
             int w = 0, h = 0;
             bool ok = false;
             {
               py::gil_scoped_release unlocked;
               ok = r.peek(&w, &h);
             }
             return ok ? py::object(py::make_tuple(w, h)) : py::object(py::none());
           })
      .def("read",
           [](vp::VideoReader& r, uintptr_t ptr, size_t pitch, const std::string& layout, int w, int h, int device,
              uintptr_t stream) -> py::object {
             const vp::Image out{reinterpret_cast<void*>(ptr), pitch, w, h, layoutOf(layout), r.memory(), device};
             vp::FrameStamp stamp;
             bool ok = false;
             {
               py::gil_scoped_release unlocked;
               ok = r.read(out, &stamp, streamOf(stream));
             }
             return ok ? py::object(py::make_tuple(stamp.ptsUs, stamp.index)) : py::object(py::none());
           })
      .def_property_readonly("width", &vp::VideoReader::width)
      .def_property_readonly("height", &vp::VideoReader::height)
      .def_property_readonly("fps", &vp::VideoReader::fps)
      .def_property_readonly("duration_us", &vp::VideoReader::durationUs)
      .def_property_readonly("codec", &vp::VideoReader::codec)
      .def_property_readonly("decode_path", &vp::VideoReader::decodePath)
      .def_property_readonly("cuda", [](const vp::VideoReader& r) { return r.memory() == vp::MemoryKind::Device; });

  m.def("dlpack_info", &dlpackInfo);
  m.def("cuda_available", &vp::cudaAvailable);
  m.def("filters", [] {
    py::list out;
    for (const vp::FilterDescription& f : vp::filters()) {
      py::list options;
      for (const vp::OptionDescription& o : f.options) {
        py::dict d;
        d["name"] = o.name, d["type"] = o.type, d["help"] = o.help;
        d["min"] = o.lo, d["max"] = o.hi, d["default"] = o.defText;
        d["choices"] = py::cast(o.choices);
        d["runtime"] = o.runtime;
        options.append(d);
      }
      py::dict d;
      d["name"] = f.name, d["summary"] = f.summary, d["temporal"] = f.temporal, d["options"] = options;
      out.append(d);
    }
    return out;
  });
}
