"""The Python module on host arrays: the same bytes as `vidproc --vf` (on the CPU, and on
the GPU where there is one) for every registered filter, layouts and orders, batches, out= and in place, padded and strided arrays, the
editing verbs, and errors that raise instead of crashing."""
import os
import shlex
import shutil
import subprocess

import numpy as np
import pytest

import vidproc

W, H, FRAMES = 83, 47, 3


def natural(seed, w=W, h=H, n=None):
    """Smooth gradients plus noise: what K-means and the blurs meet in camera frames."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    shape = (h, w) if n is None else (n, h, w)
    base = np.stack([x * 255 / w, y * 255 / h, (x + y) * 127 / (w + h) + 64], axis=-1)
    img = base + rng.normal(0, 12, size=shape + (3,))
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def registry_chains():
    return [f["name"] for f in vidproc.filters()] + ["blur=r=2,kmeans=k=5,median=r=1", "none"]


def run_frames(spec, frames, **kw):
    chain = vidproc.Chain(spec, **kw)
    return [chain(f) for f in frames]


FFMPEG = shutil.which("ffmpeg")


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """An RGB ffv1 clip (vp_make_clip) and its frames as (H, W, 3) arrays."""
    make = os.environ.get("VP_MAKE_CLIP")
    if not make:
        pytest.skip("needs VP_MAKE_CLIP")
    path = tmp_path_factory.mktemp("clip") / "in.mkv"
    subprocess.run(shlex.split(make) + [str(path), str(W), str(H), str(FRAMES), "ffv1", "bgr0"], check=True,
                   capture_output=True)
    return path, decode(path)


def decode(path):
    """A lossless clip's frames: by the ffmpeg command where there is one (independent of
    vidproc), else by vidproc.open, which test_open_reads_the_frames_the_program_reads
    holds to ffmpeg's where both exist."""
    if not FFMPEG:
        return [f.image for f in vidproc.open(path, device="cpu")]
    raw = subprocess.run([FFMPEG, "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True).stdout
    return list(np.frombuffer(raw, np.uint8).reshape(-1, H, W, 3))


BACKENDS = ["cpu"] + (["cuda"] if vidproc.cuda_available() else [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("spec", registry_chains())
def test_same_bytes_as_the_program(clip, spec, backend, tmp_path):
    vidproc_bin = os.environ.get("VP_VIDPROC")
    if not vidproc_bin:
        pytest.skip("needs VP_VIDPROC")
    path, frames = clip
    out = tmp_path / "out.mkv"
    subprocess.run(shlex.split(vidproc_bin) + [str(path), "--headless", "--backend", backend, "--vf", spec, "-o",
                    str(out), "--codec", "ffv1", "-y", "--no-audio"], check=True, capture_output=True)
    want = decode(out)
    assert len(want) == FRAMES
    for i, got in enumerate(run_frames(spec, frames)):
        assert np.array_equal(got, want[i]), f"{spec}: frame {i} differs"


def test_orders_and_layouts():
    img = natural(1)
    rgb = vidproc.apply("blur=r=1,kmeans=k=4", img)
    assert np.array_equal(vidproc.apply("blur=r=1,kmeans=k=4", img[..., ::-1].copy(), order="bgr"), rgb[..., ::-1])
    rgba = np.concatenate([img, np.full((H, W, 1), 255, np.uint8)], axis=-1)
    out = vidproc.apply("blur=r=1,kmeans=k=4", rgba)
    assert out.shape == (H, W, 4)
    assert np.array_equal(out[..., :3], rgb) and np.all(out[..., 3] == 255)
    grey = img[..., 1].copy()
    g = vidproc.apply("median=r=1", grey)
    g3 = vidproc.apply("median=r=1", np.repeat(grey[..., None], 3, axis=-1))
    assert g.shape == (H, W) and np.array_equal(g, g3[..., 0])
    assert vidproc.apply("median=r=1", grey[..., None]).shape == (H, W, 1)


def test_batch_equals_successive_calls():
    batch = natural(2, n=4)
    want = run_frames("kmeans=k=6", list(batch))
    got = vidproc.Chain("kmeans=k=6")(batch)
    assert got.shape == batch.shape
    for i in range(4):
        assert np.array_equal(got[i], want[i])


def test_out_and_in_place():
    img = natural(3)
    want = vidproc.apply("gauss", img)
    buf = np.zeros_like(img)
    assert vidproc.Chain("gauss")(img, out=buf) is buf
    assert np.array_equal(buf, want)
    same = img.copy()
    vidproc.Chain("gauss")(same, out=same)
    assert np.array_equal(same, want)


def test_padded_and_strided_arrays():
    img = natural(4)
    want = vidproc.apply("edges", img)
    padded = np.zeros((H, W + 5, 3), np.uint8)[:, :W]  # rows 5 pixels apart from their ends
    padded[...] = img
    assert not padded.flags.c_contiguous
    assert np.array_equal(vidproc.apply("edges", padded), want)
    wide = np.repeat(img, 2, axis=1)[:, ::2]  # every other pixel: not packed, copied
    assert np.array_equal(vidproc.apply("edges", wide), want)
    with pytest.raises(ValueError, match="not packed"):
        vidproc.Chain("edges")(img, out=np.zeros((H, 2 * W, 3), np.uint8)[:, ::2])


def test_state_reset_and_metrics():
    a, b = natural(5), natural(6)
    chain = vidproc.Chain("kmeans=k=5")
    first = chain(a)
    chain(b)
    m = chain.metrics["kmeans#1"]
    assert m["iterations"] >= 1 and m["reinit"] == 0 and m["ms"] >= 0  # the second frame starts warm
    chain.reset()
    assert np.array_equal(chain(a), first)
    assert chain.metrics["kmeans#1"]["reinit"] == 1


def test_editing_verbs():
    chain = vidproc.Chain("blur=r=3,kmeans=k=6")
    assert chain.spec == "blur=r=3,kmeans=k=6" and len(chain) == 2
    chain.set("kmeans.k", 5).set("blur#1.border", "wrap").set("r", 2)
    assert chain.get("kmeans#2.k") == 5
    assert chain.spec == "blur=r=2:border=wrap,kmeans=k=5"
    chain.append("median=r=1").insert(0, "gauss").remove("1").enable("median", False)
    assert len(chain) == 3
    chain.spec = "none"
    assert len(chain) == 0 and chain.canonical == "none"
    assert "kmeans" in repr(vidproc.Chain("kmeans"))


def test_filters_list_the_registry():
    names = [f["name"] for f in vidproc.filters()]
    assert {"kmeans", "blur", "median", "gauss", "edges", "slic"} <= set(names)
    k = next(f for f in vidproc.filters() if f["name"] == "kmeans")["options"][0]
    assert k["name"] == "k" and k["type"] == "int" and k["max"] >= 16


def test_errors_raise_clearly():
    img = natural(7)
    with pytest.raises(ValueError, match="at 16: unknown option 'q' of kmeans"):
        vidproc.Chain("blur=r=3,kmeans=q=2")
    with pytest.raises(ValueError, match="k must be"):
        vidproc.Chain("kmeans").set("k", 99)
    with pytest.raises(ValueError, match="no blur"):
        vidproc.Chain("kmeans").set("blur.r", 2)
    with pytest.raises(TypeError, match="uint8"):
        vidproc.apply("blur", img.astype(np.float32))
    with pytest.raises(TypeError, match="channels"):
        vidproc.apply("blur", img[..., :2])
    with pytest.raises(TypeError, match="shape"):
        vidproc.apply("blur", img[None, None])
    with pytest.raises(TypeError, match="empty"):
        vidproc.apply("blur", img[:0])
    with pytest.raises(TypeError, match="out has shape"):
        vidproc.Chain("blur")(img, out=np.zeros((H, W, 4), np.uint8))
    with pytest.raises(TypeError, match="expected an image array"):
        vidproc.apply("blur", object())
    with pytest.raises(ValueError, match="order"):
        vidproc.Chain("blur", order="gbr")
    with pytest.raises(ValueError, match="device"):
        vidproc.Chain("blur", device="tpu")
    if not vidproc.cuda_available():
        with pytest.raises(RuntimeError, match="no CUDA device"):
            vidproc.Chain("blur", device="cuda")


def test_torch_cpu_tensors_come_back_as_tensors():
    torch = pytest.importorskip("torch")
    img = natural(8)
    out = vidproc.apply("median=r=1", torch.from_numpy(img))
    assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
    assert np.array_equal(out.numpy(), vidproc.apply("median=r=1", img))


def test_open_reads_the_frames_the_program_reads(clip):
    if not FFMPEG:
        pytest.skip("needs the ffmpeg command: an independent decoder")
    path, frames = clip
    got = list(vidproc.open(path, device="cpu"))
    assert len(got) == FRAMES
    for i, frame in enumerate(got):
        assert frame.index == i and abs(frame.pts - i / 30) < 1e-3
        assert isinstance(frame.image, np.ndarray) and np.array_equal(frame.image, frames[i])
    bgra = next(iter(vidproc.open(path, device="cpu", order="bgr", channels=4))).image
    assert bgra.shape == (H, W, 4) and np.array_equal(bgra[..., 2::-1], frames[0]) and np.all(bgra[..., 3] == 255)
    reader = vidproc.open(path, device="cpu")
    assert (reader.width, reader.height, reader.codec, reader.decode_path) == (W, H, "ffv1", "software")


def test_open_errors(tmp_path):
    with pytest.raises(RuntimeError, match="missing.mp4"):
        vidproc.open(tmp_path / "missing.mp4", device="cpu")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(np.random.default_rng(1).integers(0, 256, 4000, dtype=np.uint8).tobytes())
    with pytest.raises(RuntimeError):
        vidproc.open(junk, device="cpu")
