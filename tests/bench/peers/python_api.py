"""vidproc's Python module on torch CUDA tensors beside the same jobs in plain torch, timed
as vp_bench's BM_ChainApiGpu rows are (N calls on one stream between CUDA events, us per
call), plus the host's own time per call (what a Python loop pays when the GPU is not
the bound). Run on the GPU machine with the module importable:
    python3 tests/bench/peers/python_api.py
One line per case: "python CASE WxH: MEDIAN_US us/frame (min MIN_US) host HOST_US us/call".
With VP_DECODE_CLIP set: decode + filter of that clip through vidproc.open(device="cuda"),
frames per second, beside which scripts/gpu_python.sh puts the program's own rate."""
import os
import time

import torch

from torch_filters import event_times  # the peers' one timing loop, beside this file

import vidproc

KMEANS = "kmeans=k=8:iterations=20:epsilon=0:warm=0:init=uniform"  # BM_KmeansGpu's work on every frame


def natural(h, w, c=3, n=None):
    g = torch.Generator(device="cpu").manual_seed(3)
    y = torch.linspace(0, 255, h).view(h, 1).expand(h, w)
    x = torch.linspace(0, 255, w).view(1, w).expand(h, w)
    base = torch.stack([x, y, (x + y) / 2, torch.full_like(x, 255)][:c], dim=-1)
    shape = base.shape if n is None else (n,) + tuple(base.shape)
    img = (base + torch.randn(shape, generator=g) * 12).round().clamp(0, 255).to(torch.uint8)
    return img.cuda()


def time_case(name, w, h, fn, frames=1, calls=20, batches=7):
    us = event_times(fn, calls, batches, per_call=frames)
    # Host time per call: the calls queue without waiting (the GPU catches up after).
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t0) * 1e6 / calls
    torch.cuda.synchronize()
    print(f"python {name:<34} {w}x{h}: {us[len(us) // 2]:9.1f} us/frame (min {us[0]:.1f}) host {host:.1f} us/call",
          flush=True)


def torch_kmeans(img, k=8, iterations=20):
    """Lloyd's K-means on the pixels in float32: uniform start, 20 iterations, paint."""
    px = img.reshape(-1, 3).float()
    centres = torch.linspace(0, 255, k, device=img.device).view(k, 1).repeat(1, 3)
    for _ in range(iterations):
        labels = torch.cdist(px, centres).argmin(dim=1)
        sums = torch.zeros_like(centres).index_add_(0, labels, px)
        counts = torch.bincount(labels, minlength=k).clamp_(min=1).unsqueeze(1)
        centres = sums / counts
    labels = torch.cdist(px, centres).argmin(dim=1)
    return centres.round().to(torch.uint8)[labels].view_as(img)


def torch_median3(img):
    f = torch.nn.functional.pad(img.permute(2, 0, 1).unsqueeze(0).float(), (1, 1, 1, 1), mode="replicate")
    patches = f.unfold(2, 3, 1).unfold(3, 3, 1)  # 1, C, H, W, 3, 3
    return patches.reshape(*patches.shape[:4], 9).median(dim=-1).values[0].permute(1, 2, 0).to(torch.uint8)


def decode_case(path, spec, reps=2):
    """Frames per second of vidproc.open + a chain over a whole clip, frames kept on the GPU."""
    for rep in range(reps):
        chain = vidproc.Chain(spec)
        reader = vidproc.open(path, device="cuda", output="torch")
        torch.cuda.synchronize()
        t0, n, out = time.perf_counter(), 0, None  # from the decoder's start, as the program counts
        for frame in reader:
            if out is None:
                out = torch.empty_like(frame.image)
            chain(frame.image, out=out)
            n += 1
        torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        print(f"python decode + {spec} ({rep + 1}): {n} frames in {seconds:.2f} s: {n / seconds:.1f} fps", flush=True)


def main():
    clip = os.environ.get("VP_DECODE_CLIP")
    if clip:
        decode_case(clip, os.environ.get("VP_DECODE_CHAIN", "kmeans=k=8"))
    for w, h in ((1920, 1080), (3840, 2160)):
        rgb, rgba = natural(h, w), natural(h, w, 4)
        out3, out4 = torch.empty_like(rgb), torch.empty_like(rgba)
        for spec, label in ((KMEANS, "kmeans k8 20 it"), ("median=r=1", "median r1")):
            chain = vidproc.Chain(spec)
            time_case(f"vidproc {label} rgb", w, h, lambda: chain(rgb, out=out3))
            time_case(f"vidproc {label} rgb new tensor", w, h, lambda: chain(rgb))
            time_case(f"vidproc {label} rgba", w, h, lambda: chain(rgba, out=out4))
            side = torch.cuda.Stream()  # a stream of torch's own (non-blocking), current for the case
            with torch.cuda.stream(side):
                time_case(f"vidproc {label} rgb own stream", w, h, lambda: chain(rgb, out=out3))
            if w == 1920:
                batch = natural(h, w, 3, 64)
                bout = torch.empty_like(batch)
                time_case(f"vidproc {label} rgb batch 64", w, h, lambda: chain(batch, out=bout), frames=64, calls=1)
        time_case("torch kmeans k8 20 it", w, h, lambda: torch_kmeans(rgb), calls=5)
        time_case("torch median r1", w, h, lambda: torch_median3(rgb), calls=5)


if __name__ == "__main__":
    main()
