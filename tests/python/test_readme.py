"""The README's Python examples run as written: each ```python block of its library
section in a fresh interpreter, in a folder holding the clip.mp4 and frame.png they open.
A block whose imports are missing here (torch, CuPy, OpenCV on a machine without them)
is skipped, naming the module; on the GPU machine they all run."""
import os
import pathlib
import re
import shlex
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import vidproc

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def blocks():
    text = README.read_text()
    section = text.split("## As a library", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def write_png(path, rgb):
    """A PNG of an (H, W, 3) uint8 array, standard library only."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    make = os.environ.get("VP_MAKE_CLIP")
    if not make:
        pytest.skip("needs VP_MAKE_CLIP")
    d = tmp_path_factory.mktemp("readme")
    subprocess.run(shlex.split(make) + [str(d / "clip.mp4"), "320", "180", "12"], check=True, capture_output=True)
    y, x = np.mgrid[0:180, 0:320]
    write_png(d / "frame.png", np.stack([x * 255 // 320, y * 255 // 180, (x ^ y) & 255], -1).astype(np.uint8))
    return d


def test_the_section_has_the_four_examples():
    text = "\n".join(blocks())
    for module in ("numpy", "torch", "cupy", "cv2"):
        assert f"import {module}" in text


@pytest.mark.parametrize("index", range(len(blocks())))
def test_example_runs_as_written(index, workdir):
    code = blocks()[index]
    for module in re.findall(r"^import (\w+)", code, re.M):
        if module != "vidproc":
            pytest.importorskip(module)
    if "cuda" in code:
        torch_or_cupy = "torch" if "import torch" in code else "cupy"
        lib = pytest.importorskip(torch_or_cupy)
        if torch_or_cupy == "torch" and not lib.cuda.is_available():
            pytest.skip("no CUDA device")
        if torch_or_cupy == "cupy" and lib.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    # The module this test imported, wherever the examples' folder is.
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(vidproc.__file__).resolve().parents[1]))
    result = subprocess.run([sys.executable, "-c", code], cwd=workdir, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"example {index} failed:\n{code}\n{result.stderr}"
