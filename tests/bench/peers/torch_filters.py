"""Hand-written PyTorch at vidproc's jobs (Gaussian, median, Sobel edges, bilateral), RGB
8-bit in and out on the GPU, timed with CUDA events as the kernel rows are: the peers in
docs/benchmarks.md. Run on the GPU machine: tests/bench/peers/run_peers.sh.
Prints one line per case: "torch CASE WxH: MEDIAN_US us (min MIN_US)"."""
import math

import torch
import torch.nn.functional as F


def event_times(fn, calls=20, batches=7, per_call=1):
    """Microseconds per unit (a call, or per_call frames of it) of `batches` batches of
    `calls` back-to-back calls between two CUDA events on the current stream, after 3
    warm-up calls; sorted. The peers' one timing loop (python_api.py uses it too)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    us = []
    for _ in range(batches):
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        us.append(start.elapsed_time(stop) * 1000 / (calls * per_call))
    return sorted(us)


def time_case(name, w, h, fn, calls=20, batches=7):
    us = event_times(fn, calls, batches)
    print(f"torch {name:<28} {w}x{h}: {us[len(us) // 2]:9.1f} us (min {us[0]:.1f})", flush=True)


def gauss(img, sigma):
    r = math.ceil(3 * sigma)
    x = torch.arange(-r, r + 1, device=img.device, dtype=torch.float32)
    k = torch.exp(-x * x / (2 * sigma * sigma))
    k = k / k.sum()
    f = F.pad(img.float(), (r, r, r, r), mode="replicate")
    f = F.conv2d(f, k.view(1, 1, 1, -1).repeat(3, 1, 1, 1), groups=3)
    f = F.conv2d(f, k.view(1, 1, -1, 1).repeat(3, 1, 1, 1), groups=3)
    return f.round_().clamp_(0, 255).to(torch.uint8)


def median(img, r):
    n = 2 * r + 1
    f = F.pad(img, (r, r, r, r), mode="replicate") if img.dtype.is_floating_point else \
        F.pad(img.float(), (r, r, r, r), mode="replicate")
    windows = f.unfold(2, n, 1).unfold(3, n, 1).reshape(*img.shape, n * n)
    return windows.median(dim=-1).values.to(torch.uint8)


SOBEL_X = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])


def edges(img):
    rgb = img.float()
    y = torch.floor((2126 * rgb[:, 0] + 7152 * rgb[:, 1] + 722 * rgb[:, 2] + 5000) / 10000).unsqueeze(1)
    k = torch.stack([SOBEL_X, SOBEL_X.t()]).unsqueeze(1).to(img.device)
    g = F.conv2d(F.pad(y, (1, 1, 1, 1), mode="replicate"), k)
    m = torch.sqrt(g[:, 0] ** 2 + g[:, 1] ** 2).round_().clamp_(0, 255).to(torch.uint8)
    return m.unsqueeze(1).expand(-1, 3, -1, -1)


def bilateral(img, r, sigma_s, sigma_r):
    """The bilateral filter as bilateral.h defines it (border replicate), float32: one
    window row at a time, the row's 2r+1 samples of every pixel as an unfold view of the
    padded image (no copy), weights exp(-(dx^2 + dy^2) / 2 S^2) * exp(-|dRGB|^2 / 2 V^2)."""
    n, h = 2 * r + 1, img.shape[2]
    f = img.float()
    padded = F.pad(f, (r, r, r, r), mode="replicate")
    off = torch.arange(-r, r + 1, device=img.device, dtype=torch.float32)
    g = torch.exp(-off * off / (2 * sigma_s * sigma_s))  # the spatial Gaussian along one axis
    num = torch.zeros_like(f)
    den = torch.zeros_like(f[:, :1])
    centre = f.unsqueeze(-1)
    for j in range(n):
        q = padded[:, :, j:j + h, :].unfold(3, n, 1)  # (1, 3, H, W, n): window row j
        d2 = (q - centre).square_().sum(1, keepdim=True)  # (1, 1, H, W, n)
        w = torch.exp(d2 * (-0.5 / (sigma_r * sigma_r))) * (g * g[j])
        num += (w * q).sum(-1)
        den += w.sum(-1)
    return (num / den).round_().clamp_(0, 255).to(torch.uint8)


def main():
    torch.backends.cudnn.benchmark = True
    for w, h in ((1920, 1080), (3840, 2160)):
        img = torch.randint(0, 256, (1, 3, h, w), dtype=torch.uint8, device="cuda")
        for sigma in (1.0, 5.0):
            time_case(f"gauss sigma={sigma:g} (separable)", w, h, lambda: gauss(img, sigma))
        for r in (1, 2):
            time_case(f"median r={r} (unfold)", w, h, lambda: median(img, r), calls=5, batches=5)
        time_case("sobel magnitude", w, h, lambda: edges(img))
        time_case("bilateral r=5 s=3 v=30 (unfold rows)", w, h, lambda: bilateral(img, 5, 3.0, 30.0),
                  calls=5, batches=5)


if __name__ == "__main__":
    main()
