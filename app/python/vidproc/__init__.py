"""vidproc: the filter chain of the vidproc program on numpy, PyTorch and CuPy arrays.

    import vidproc
    chain = vidproc.Chain("blur=r=3,kmeans=k=6")   # --vf syntax
    out = chain(img)                               # (H, W, 3|4) or (N, H, W, C) uint8

Host arrays (numpy, anything with the buffer protocol, torch CPU tensors) run the CPU
twins; CUDA arrays (torch, CuPy, anything with ``__cuda_array_interface__`` or
``__dlpack__``) run the kernels in place in their memory, with no copy, and the result
comes back as the caller's type. Both give the same bytes, and the same as
``vidproc --vf`` on the same frames. The chain keeps its state between calls, as on a
video (K-means warm starts, automatic K, scene cuts); ``reset()`` forgets it.
"""

import numpy as _np

from . import _vidproc

__all__ = ["Chain", "apply", "filters", "cuda_available", "DeviceArray", "open", "Frame", "VideoReader"]

DeviceArray = _vidproc.DeviceArray
cuda_available = _vidproc.cuda_available

_LAYOUT = {("rgb", 3): "rgb", ("bgr", 3): "bgr", ("rgb", 4): "rgba", ("bgr", 4): "bgra", ("rgb", 1): "gray",
           ("bgr", 1): "gray"}
_KDLCUDA, _KDLCPU = 2, 1


def filters():
    """The filters a chain may use: name, summary, temporal, options (name, type, min,
    max, default, choices, help, runtime), from the program's registry."""
    return _vidproc.filters()


class _Array:
    """What a call needs to know about one array."""

    __slots__ = ("obj", "kind", "ptr", "shape", "strides", "device", "stream", "keep")

    def __init__(self, obj, kind, ptr, shape, strides, device=0, stream=None, keep=None):
        self.obj, self.kind, self.ptr, self.shape, self.strides = obj, kind, ptr, shape, strides
        self.device, self.stream, self.keep = device, stream, keep


def _torch_module(a):
    mod = type(a).__module__
    return mod.startswith("torch")


def _cupy_module(a):
    return type(a).__module__.startswith("cupy")


def _describe(a, what):
    """Reads an array's memory, shape and strides (bytes) without copying it."""
    if _torch_module(a) and hasattr(a, "data_ptr"):
        import torch
        if a.dtype != torch.uint8:
            raise TypeError(f"{what} must be uint8, not {a.dtype}")
        if not a.is_cuda:
            host = _describe(a.numpy(), what)
            host.kind = "torch-cpu"
            return host
        return _Array(a, "torch", a.data_ptr(), tuple(a.shape), tuple(a.stride()), a.device.index or 0)
    if isinstance(a, _np.ndarray) or (not hasattr(a, "__cuda_array_interface__") and not hasattr(a, "__dlpack__")):
        try:
            arr = _np.asarray(a)
        except Exception as e:  # noqa: BLE001 - any object numpy cannot read is the wrong type
            raise TypeError(f"{what}: expected an image array, got {type(a).__name__}") from e
        if arr.dtype == object or arr.ndim == 0:
            raise TypeError(f"{what}: expected an image array, got {type(a).__name__}")
        if arr.dtype != _np.uint8:
            raise TypeError(f"{what} must be uint8, not {arr.dtype}")
        return _Array(arr, "numpy", arr.ctypes.data, arr.shape, arr.strides)
    if hasattr(a, "__cuda_array_interface__"):
        cai = a.__cuda_array_interface__
        if cai.get("typestr") not in ("|u1", "<u1", ">u1"):
            raise TypeError(f"{what} must be uint8, not {cai.get('typestr')}")
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        if strides is None:
            strides = _compact(shape)
        kind = "cupy" if _cupy_module(a) else "cai"
        device = a.device.id if kind == "cupy" else _pointer_device(cai["data"][0])
        return _Array(a, kind, cai["data"][0], shape, tuple(strides), device, cai.get("stream"))
    dev_type, dev_id = a.__dlpack_device__()
    if dev_type == _KDLCPU:
        return _describe(_np.from_dlpack(a), what)
    if dev_type != _KDLCUDA:
        raise TypeError(f"{what}: DLPack device type {dev_type} is neither CPU nor CUDA")
    capsule = a.__dlpack__()
    info = _vidproc.dlpack_info(capsule)
    if info["dtype"] != (1, 8, 1):
        raise TypeError(f"{what} must be uint8 (DLPack dtype {info['dtype']})")
    return _Array(a, "dlpack", info["ptr"], info["shape"], info["strides"], dev_id, keep=capsule)


def _compact(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _pointer_device(ptr):
    try:
        import cupy
        return cupy.cuda.runtime.pointerGetAttributes(ptr).device
    except ImportError:
        return 0


def _geometry(arr, what):
    """(count, height, width, channels, pitch, frame stride) of an (H, W), (H, W, C) or
    (N, H, W, C) image whose pixels are packed rows; None when the strides are others."""
    shape, strides = arr.shape, arr.strides
    if len(shape) == 2:
        shape, strides = (1, shape[0], shape[1], 1), (0, strides[0], 1, 1)
    elif len(shape) == 3:
        shape, strides = (1,) + tuple(shape), (0,) + tuple(strides)
    elif len(shape) != 4:
        raise TypeError(f"{what} must be (H, W), (H, W, C) or (N, H, W, C), not shape {tuple(arr.shape)}")
    n, h, w, c = shape
    if c not in (1, 3, 4):
        raise TypeError(f"{what} must have 1, 3 or 4 channels, not {c} (shape {tuple(arr.shape)})")
    if h <= 0 or w <= 0:
        raise TypeError(f"{what} is empty (shape {tuple(arr.shape)})")
    pitch, stride = strides[1], strides[0]
    packed = (c == 1 or strides[3] == 1) and strides[2] == c and pitch >= w * c
    if n > 1:
        packed = packed and stride >= pitch * (h - 1) + w * c
    return (n, h, w, c, pitch, stride) if packed else None


def _contiguous(a):
    """A packed copy of an array of another stride pattern (same type and device)."""
    if a.kind in ("numpy", "torch-cpu"):
        arr = _np.ascontiguousarray(a.obj)
        return _Array(arr, a.kind, arr.ctypes.data, arr.shape, arr.strides)
    if a.kind == "torch":
        t = a.obj.contiguous()
        return _Array(t, "torch", t.data_ptr(), tuple(t.shape), tuple(t.stride()), a.device)
    if a.kind == "cupy":
        import cupy
        with cupy.cuda.Device(a.device):
            c = cupy.ascontiguousarray(a.obj)
        return _describe(c, "input")
    raise ValueError("vidproc: this CUDA array's rows are not packed (strides "
                     f"{a.strides}); pass a contiguous or row-padded array")


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    raise TypeError(f"stream: expected a torch or CuPy stream or an integer handle, not {type(stream).__name__}")


def _current_stream(a):
    """The stream the caller's library is working on for this array, or None."""
    if a.kind == "torch":
        import torch
        # The raw handle without building a Stream object: a few microseconds a call.
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        return raw(a.device) if raw else torch.cuda.current_stream(a.device).cuda_stream
    if a.kind == "cupy":
        import cupy
        with cupy.cuda.Device(a.device):
            return cupy.cuda.get_current_stream().ptr
    return a.stream  # __cuda_array_interface__'s producer stream (1: legacy, 2: per-thread default)


def _allocate(a, shape):
    if a.kind == "numpy":
        return _np.empty(shape, _np.uint8)
    if a.kind == "torch-cpu":
        import torch
        return torch.empty(shape, dtype=torch.uint8)
    if a.kind == "torch":
        import torch
        return torch.empty(shape, dtype=torch.uint8, device=a.obj.device)
    if a.kind == "cupy":
        import cupy
        with cupy.cuda.Device(a.device):
            return cupy.empty(shape, dtype=cupy.uint8)
    return _vidproc.DeviceArray(list(shape), a.device)


class Chain:
    """A filter chain: ``Chain("blur=r=3,kmeans=k=6", device="auto", order="rgb")``.

    device: "auto" (host arrays on the CPU twins, CUDA arrays on the kernels), "cpu"
    (refuses CUDA arrays) or "cuda" (host arrays too run on the GPU, copied there and
    back). order: "rgb" or "bgr" (OpenCV's images), for 3- and 4-channel arrays.
    A bad chain raises ValueError naming the position, as ``vidproc --vf`` does.
    """

    def __init__(self, spec="none", device="auto", order="rgb"):
        if order not in ("rgb", "bgr"):
            raise ValueError(f"order must be 'rgb' or 'bgr', not {order!r}")
        if device == "cuda" and not _vidproc.cuda_available():
            raise RuntimeError("vidproc: device 'cuda' was asked for, but no CUDA device is available")
        self._chain = _vidproc.Chain(spec, device)
        self._order = order
        self.device = device

    def __call__(self, img, out=None, stream=None, order=None):
        """Runs the chain on ``img`` and returns the result, written into ``out`` when
        given (same shape; it may be ``img`` itself). CUDA arrays run on ``stream`` (a
        torch or CuPy stream or a handle; default: the array's current stream), ordered
        after the work already queued on the array's current stream and before what
        comes next on it."""
        order = order or self._order
        if order not in ("rgb", "bgr"):
            raise ValueError(f"order must be 'rgb' or 'bgr', not {order!r}")
        a = _describe(img, "image")
        geo = _geometry(a, "image")
        if geo is None:
            a = _contiguous(a)
            geo = _geometry(a, "image")
        n, h, w, c, pitch, stride = geo
        cuda = a.kind not in ("numpy", "torch-cpu")
        if out is None:
            result = _allocate(a, a.shape)
            o = _describe(result, "out")
        else:
            result = out
            o = _describe(out, "out")
            if tuple(o.shape) != tuple(a.shape):
                raise TypeError(f"out has shape {tuple(o.shape)}, the image {tuple(a.shape)}")
            if (o.kind not in ("numpy", "torch-cpu")) != cuda:
                raise TypeError("out must live where the image does (both host or both CUDA arrays)")
        ogeo = _geometry(o, "out")
        if ogeo is None:
            raise ValueError(f"out's rows are not packed (strides {o.strides}); pass a contiguous or row-padded array")
        layout = _LAYOUT[(order, c)]
        handle = peer = 0
        if cuda:
            if o.device != a.device:
                raise ValueError(f"image is on CUDA device {a.device}, out on {o.device}")
            current = _current_stream(a)
            handle = _stream_handle(stream)
            if handle is None:
                handle = current if current is not None else 0
            peer = current if current is not None else -1
        self._chain.process(a.ptr, pitch, stride, layout, o.ptr, ogeo[4], ogeo[5], layout, w, h, n, cuda,
                            a.device, handle, peer)
        return result

    @property
    def metrics(self):
        """Per element ("kmeans#1"), the numbers of the latest frame: K-means iterations,
        cost, reinit, k and score with automatic K; ms on host calls (and on CUDA calls
        after ``timing = True``). Reading them after a CUDA call waits for that frame."""
        return self._chain.metrics()

    @property
    def timing(self):
        return getattr(self, "_timing", False)

    @timing.setter
    def timing(self, on):
        self._timing = bool(on)
        self._chain.set_timing(self._timing)

    def reset(self):
        """Forgets the state carried between frames: the next frame starts cold."""
        self._chain.reset()

    def set(self, path, value):
        """``set("kmeans.k", 5)``, ``set("blur#1.border", "wrap")``, ``set("k", 5)``."""
        if isinstance(value, bool):
            value = int(value)
        self._chain.set(path, value if isinstance(value, str) else float(value))
        return self

    def get(self, path):
        return self._chain.get(path)

    def append(self, element):
        self._chain.append(element)
        return self

    def insert(self, position, element):
        self._chain.insert(position, element)
        return self

    def remove(self, target):
        self._chain.remove(target)
        return self

    def enable(self, target, on=True):
        self._chain.enable(target, on)
        return self

    @property
    def spec(self):
        """The chain as text, options at their defaults left out ("blur=r=3,kmeans=k=6")."""
        return self._chain.describe()

    @spec.setter
    def spec(self, text):
        self._chain.set_spec(text)

    @property
    def canonical(self):
        """The chain with every option written."""
        return self._chain.spec()

    def __len__(self):
        return self._chain.size()

    def __repr__(self):
        return f"vidproc.Chain({self.spec!r}, device={self.device!r})"


def apply(spec, img, device="auto", order="rgb", **kwargs):
    """One-shot: ``vidproc.apply("median=r=2", img)``."""
    return Chain(spec, device=device, order=order)(img, **kwargs)


class Frame:
    """One decoded frame: ``image`` (H, W, C) uint8, ``pts`` in seconds, ``index`` in
    decode order."""

    __slots__ = ("image", "pts", "index")

    def __init__(self, image, pts, index):
        self.image, self.pts, self.index = image, pts, index

    def __repr__(self):
        return f"vidproc.Frame({tuple(self.image.shape)}, pts={self.pts:.6f}, index={self.index})"


_OUTPUTS = ("numpy", "torch", "cupy", "dlpack")


class VideoReader:
    """The frames of a video file or stream, decoded and converted as ``vidproc --vf``
    receives them: ``for frame in vidproc.open("clip.mp4", device="cuda"): ...``.

    device: "cuda" decodes on NVDEC where the program's ``--hwdec auto`` would, and the
    frames stay on the GPU; "cpu" decodes in software into host memory; "auto" is cuda
    when a device is present. output: the frames' type, "numpy" (host), or on the GPU
    "torch", "cupy" or "dlpack" (a ``vidproc.DeviceArray``, readable through DLPack and
    ``__cuda_array_interface__``); default numpy for cpu, dlpack for cuda. order: "rgb"
    or "bgr"; channels: 3, or 4 (alpha 255), or 1 (grey, the rounded luma). Each frame
    is a new array; CUDA frames are written on the output library's current stream.
    """

    def __init__(self, url, device="auto", output=None, order="rgb", channels=3):
        if order not in ("rgb", "bgr"):
            raise ValueError(f"order must be 'rgb' or 'bgr', not {order!r}")
        if channels not in (1, 3, 4):
            raise ValueError(f"channels must be 1, 3 or 4, not {channels!r}")
        if device == "cuda" and not _vidproc.cuda_available():
            raise RuntimeError("vidproc: device 'cuda' was asked for, but no CUDA device is available")
        self._reader = _vidproc.VideoReader(str(url), device)
        cuda = self._reader.cuda
        self.output = output or ("dlpack" if cuda else "numpy")
        if self.output not in _OUTPUTS:
            raise ValueError(f"output must be one of {', '.join(_OUTPUTS)}, not {self.output!r}")
        if (self.output == "numpy") == cuda:
            raise ValueError(f"output {self.output!r} does not match a {'cuda' if cuda else 'cpu'} reader")
        self._layout = _LAYOUT[(order, channels)]
        self._channels = channels

    width = property(lambda self: self._reader.width)
    height = property(lambda self: self._reader.height)
    fps = property(lambda self: self._reader.fps)
    duration = property(lambda self: self._reader.duration_us / 1e6)
    codec = property(lambda self: self._reader.codec)
    decode_path = property(lambda self: self._reader.decode_path)
    cuda = property(lambda self: self._reader.cuda)

    def __iter__(self):
        return self

    def __next__(self):
        size = self._reader.peek()
        if size is None:
            raise StopIteration
        w, h = size
        shape = (h, w) if self._channels == 1 else (h, w, self._channels)
        image, stream, device = self._allocate(shape)
        a = _describe(image, "frame")
        stamp = self._reader.read(a.ptr, a.strides[0], self._layout, w, h, device, stream)
        if stamp is None:
            raise StopIteration
        return Frame(image, stamp[0] / 1e6, stamp[1])

    def _allocate(self, shape):
        if self.output == "numpy":
            return _np.empty(shape, _np.uint8), 0, 0
        if self.output == "torch":
            import torch
            device = torch.cuda.current_device()
            return (torch.empty(shape, dtype=torch.uint8, device=f"cuda:{device}"),
                    torch.cuda.current_stream(device).cuda_stream, device)
        if self.output == "cupy":
            import cupy
            return cupy.empty(shape, dtype=cupy.uint8), cupy.cuda.get_current_stream().ptr, cupy.cuda.Device().id
        return _vidproc.DeviceArray(list(shape), 0), 0, 0


def open(url, device="auto", output=None, order="rgb", channels=3):  # noqa: A001 - vidproc.open, as io.open
    """``for frame in vidproc.open("clip.mp4"): chain(frame.image)``: see VideoReader."""
    return VideoReader(url, device=device, output=output, order=order, channels=channels)
