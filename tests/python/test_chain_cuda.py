"""The Python module on CUDA arrays (the GPU machine: torch and CuPy there): the same bytes
as the host path, no copy (results in the caller's memory, as the caller's type), and
work ordered after the producer's stream and before the consumer's."""
import numpy as np
import pytest

import vidproc

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or not vidproc.cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

W, H = 211, 97


def natural(seed, n=None, w=W, h=H):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    shape = (h, w) if n is None else (n, h, w)
    base = np.stack([x * 255 / w, y * 255 / h, (x + y) * 127 / (w + h) + 64], axis=-1)
    return np.clip(np.rint(base + rng.normal(0, 12, size=shape + (3,))), 0, 255).astype(np.uint8)


def registry_chains():
    return [f["name"] for f in vidproc.filters()] + ["blur=r=2,kmeans=k=5,median=r=1", "kmeans=k=auto"]


@pytest.mark.parametrize("spec", registry_chains())
def test_torch_equals_numpy(spec):
    host, cuda = vidproc.Chain(spec), vidproc.Chain(spec)
    for i in range(3):
        img = natural(i)
        want = host(img)
        t = torch.from_numpy(img).cuda()
        got = cuda(t)
        assert isinstance(got, torch.Tensor) and got.is_cuda and got.shape == t.shape
        assert np.array_equal(got.cpu().numpy(), want), f"{spec}: frame {i}"
    hm, dm = host.metrics, cuda.metrics
    assert hm.keys() == dm.keys()
    for label in hm:
        assert hm[label].get("iterations") == dm[label].get("iterations"), label


def test_no_copy_out_and_in_place():
    img = natural(1)
    want = vidproc.apply("median=r=2", img)
    t = torch.from_numpy(img).cuda()
    out = torch.empty_like(t)
    chain = vidproc.Chain("median=r=2")
    assert chain(t, out=out) is out
    assert np.array_equal(out.cpu().numpy(), want)
    ptr = t.data_ptr()
    assert vidproc.Chain("median=r=2")(t, out=t).data_ptr() == ptr  # in place, the same memory
    assert np.array_equal(t.cpu().numpy(), want)


def test_layouts_batches_and_padding_on_the_gpu():
    batch = natural(2, n=3)
    rgba = np.concatenate([batch, np.full(batch.shape[:-1] + (1,), 255, np.uint8)], axis=-1)
    for arr, order in ((batch, "rgb"), (rgba, "bgr"), (batch[0, ..., 1].copy(), "rgb")):
        want = vidproc.Chain("kmeans=k=6", order=order)(arr)
        got = vidproc.Chain("kmeans=k=6", order=order)(torch.from_numpy(arr).cuda())
        assert np.array_equal(got.cpu().numpy(), want)
    padded = torch.zeros((H, W + 7, 3), dtype=torch.uint8, device="cuda")[:, :W]
    padded.copy_(torch.from_numpy(batch[0]))
    assert np.array_equal(vidproc.apply("gauss", padded).cpu().numpy(), vidproc.apply("gauss", batch[0]))
    strided = torch.from_numpy(batch[0]).cuda().repeat_interleave(2, dim=1)[:, ::2]
    assert np.array_equal(vidproc.apply("gauss", strided).cpu().numpy(), vidproc.apply("gauss", batch[0]))


def test_cupy_in_cupy_out():
    cupy = pytest.importorskip("cupy")
    img = natural(3)
    a = cupy.asarray(img)
    got = vidproc.apply("blur=r=3,edges", a)
    assert isinstance(got, cupy.ndarray)
    assert np.array_equal(cupy.asnumpy(got), vidproc.apply("blur=r=3,edges", img))
    out = cupy.empty_like(a)
    assert vidproc.Chain("blur=r=3")(a, out=out, stream=cupy.cuda.Stream(non_blocking=True)) is out
    cupy.cuda.Device().synchronize()
    assert np.array_equal(cupy.asnumpy(out), vidproc.apply("blur=r=3", img))


class OnlyDlpack:
    """A producer vidproc knows only through DLPack."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


class OnlyCai:
    """A producer vidproc knows only through __cuda_array_interface__."""

    def __init__(self, t):
        self.t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


def test_other_producers_get_a_device_array_back():
    img = natural(4)
    want = vidproc.apply("median=r=1", img)
    t = torch.from_numpy(img).cuda()
    torch.cuda.synchronize()
    for wrapped in (OnlyDlpack(t), OnlyCai(t)):
        got = vidproc.apply("median=r=1", wrapped)
        assert isinstance(got, vidproc.DeviceArray) and got.shape == (H, W, 3)
        torch.cuda.synchronize()
        assert np.array_equal(torch.from_dlpack(got).cpu().numpy(), want)
        assert np.array_equal(torch.as_tensor(got, device="cuda").cpu().numpy(), want)


def test_stream_order_follows_the_producer_and_precedes_the_consumer():
    img = natural(5)
    want = vidproc.apply("gauss=sigma=2", img)
    src = torch.from_numpy(img).cuda()
    for own in (None, torch.cuda.Stream()):
        t = torch.zeros_like(src)
        torch.cuda.synchronize()
        torch.cuda._sleep(200_000_000)  # ~0.1 s of busy-waiting on the producer's stream
        t.copy_(src)  # the image is written only after it
        got = vidproc.Chain("gauss=sigma=2")(t, stream=own)
        snapshot = got.clone()  # the consumer, on the current stream
        assert np.array_equal(snapshot.cpu().numpy(), want), f"stream {own}"


def test_cpu_chain_refuses_cuda_arrays():
    t = torch.zeros((H, W, 3), dtype=torch.uint8, device="cuda")
    with pytest.raises(ValueError, match="CPU"):
        vidproc.Chain("blur", device="cpu")(t)


def test_cuda_chain_runs_numpy_on_the_gpu():
    img = natural(6)
    assert np.array_equal(vidproc.Chain("kmeans=k=7", device="cuda")(img), vidproc.Chain("kmeans=k=7")(img))
