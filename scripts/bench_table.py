#!/usr/bin/env python3
"""docs/benchmarks.md's kernel table from one GPU run: each GPU kernel row of vp_bench (timed
batched, VP_BENCH_BATCH=20), its DRAM floor (the bytes it must move over the bandwidth of a
device-to-device copy measured in the same run), the ratio to the floor, and the ratio to
its NPP and PyTorch peers (tests/bench/peers/run_peers.sh's lines):

  VP_BENCH_BATCH=20 vp_bench --benchmark_filter='Gpu|DeviceCopy' --benchmark_repetitions=3 \\
      --benchmark_report_aggregates_only=true --benchmark_format=json > bench.json
  tests/bench/peers/run_peers.sh > peers.txt
  scripts/bench_table.py bench.json [peers.txt] > table.md

A row's bytes are what the benchmark declares (SetBytesProcessed: for the filters, the RGBA
frame read once and written once); the copy is BM_DeviceCopy's largest size (read + write).
A peer matches a row by kernel, size and parameter (PEERS below); rows without a peer leave
those cells empty. `python3 scripts/bench_table.py --self-test` checks the arithmetic and
the matching on a made-up run."""
import json
import re
import sys

UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}

# (benchmark name pattern, peer case pattern): {w}, {h} and the named groups of the first
# fill the second; a peer line is "npp|torch CASE WxH: US us (min ...)".
PEERS = [
    (r"BM_GaussGpu/w:(?P<w>\d+)/h:(?P<h>\d+)/sigma10:10/border:1", r"gauss-advanced sigma=1|gauss sigma=1 \(separable\)"),
    (r"BM_GaussGpu/w:(?P<w>\d+)/h:(?P<h>\d+)/sigma10:50/border:1", r"gauss-advanced sigma=5|gauss sigma=5 \(separable\)"),
    (r"BM_MedianGpu/w:(?P<w>\d+)/h:(?P<h>\d+)/r:(?P<r>\d+)/border:1", r"median r={r}( \(unfold\))?"),
    (r"BM_EdgesGpu/w:(?P<w>\d+)/h:(?P<h>\d+)/overlay:0", r"sobel magnitude( \(rgb -> L2\))?"),
    (r"BM_BilateralGpu/w:(?P<w>\d+)/h:(?P<h>\d+)/r:(?P<r>\d+)", r"bilateral r={r} s=3 v=30( \(unfold rows\))?"),
]
PEER_LINE = re.compile(r"^(?P<who>npp|torch) (?P<case>.+?)\s+(?P<w>\d+)x(?P<h>\d+):\s+(?P<us>[\d.]+) us")


def rows_of(bench):
    """(name, label, us per call, bytes per call) of each timed row: the median aggregate
    where there are repetitions, else the row itself."""
    entries = bench["benchmarks"]
    medians = [b for b in entries if b.get("aggregate_name") == "median"]
    for b in medians or [b for b in entries if b.get("run_type", "iteration") == "iteration"]:
        us = b["real_time"] * UNIT_US[b.get("time_unit", "ns")]
        nbytes = b.get("bytes_per_second", 0.0) * us * 1e-6
        yield b.get("run_name", b["name"]), b.get("label", ""), us, nbytes


def copy_bandwidth(rows):
    """Bytes per second of the largest BM_DeviceCopy row."""
    copies = [(nbytes, nbytes / (us * 1e-6)) for name, _, us, nbytes in rows if name.startswith("BM_DeviceCopy")]
    if not copies:
        raise SystemExit("bench_table: no BM_DeviceCopy row in the run (its bandwidth is the floor)")
    return max(copies)[1]


def peers_of(text):
    out = {}
    for line in text.splitlines():
        m = PEER_LINE.match(line.strip())
        if m:
            out[(m["who"], m["case"].strip(), int(m["w"]), int(m["h"]))] = float(m["us"])
    return out


def peer_us(name, peers, who):
    for pattern, case in PEERS:
        m = re.match(pattern, name)
        if not m:
            continue
        want = re.compile("^(" + case.format(**m.groupdict()) + ")$")
        for (w_, c, w, h), us in peers.items():
            if w_ == who and w == int(m["w"]) and h == int(m["h"]) and want.match(c):
                return us
    return None


def table(bench, peers_text=""):
    rows = list(rows_of(bench))
    bandwidth = copy_bandwidth(rows)
    peers = peers_of(peers_text)
    out = [f"Device-to-device copy: {bandwidth / 1e9:.0f} GB/s (the floor's bandwidth).", "",
           "| kernel | label | µs per call | MB moved | floor µs | × floor | NPP µs | × NPP | torch µs | × torch |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name, label, us, nbytes in rows:
        if "Gpu" not in name.split("/")[0]:
            continue
        floor = nbytes / bandwidth * 1e6
        cells = [name.replace("/manual_time", ""), label, f"{us:.1f}", f"{nbytes / 1e6:.1f}" if nbytes else "",
                 f"{floor:.1f}" if nbytes else "", f"{us / floor:.1f}" if nbytes else ""]
        for who in ("npp", "torch"):
            p = peer_us(name, peers, who)
            cells += [f"{p:.1f}", f"{p / us:.1f}"] if p else ["", ""]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def self_test():
    bench = {"benchmarks": [
        {"name": "BM_DeviceCopy/1024/manual_time_median", "run_name": "BM_DeviceCopy/1024/manual_time",
         "aggregate_name": "median", "real_time": 500.0, "time_unit": "us", "bytes_per_second": 2 * 2**30 / 500e-6},
        {"name": "BM_MedianGpu/w:1920/h:1080/r:1/border:1/manual_time_median",
         "run_name": "BM_MedianGpu/w:1920/h:1080/r:1/border:1/manual_time", "aggregate_name": "median",
         "real_time": 18.0, "time_unit": "us", "bytes_per_second": 1920 * 1080 * 8 / 18e-6, "label": "network"},
        {"name": "BM_EdgesGpu/w:3840/h:2160/overlay:0/manual_time_median",
         "run_name": "BM_EdgesGpu/w:3840/h:2160/overlay:0/manual_time", "aggregate_name": "median",
         "real_time": 0.05, "time_unit": "ms", "bytes_per_second": 3840 * 2160 * 8 / 50e-6},
    ]}
    peers = ("npp median r=1                     1920x1080:      54.0 us (min 53.0)\n"
             "npp median r=1                     3840x2160:     200.0 us (min 190.0)\n"
             "torch sobel magnitude                3840x2160:     400.0 us (min 390.0)\n")
    text = table(bench, peers)
    bw = 2 * 2**30 / 500e-6
    checks = [
        f"{bw / 1e9:.0f} GB/s" in text,
        "| BM_MedianGpu/w:1920/h:1080/r:1/border:1 | network | 18.0 | 16.6 | " in text,
        f"| {1920 * 1080 * 8 / bw * 1e6:.1f} | {18.0 / (1920 * 1080 * 8 / bw * 1e6):.1f} | 54.0 | 3.0 |" in text,
        "| BM_EdgesGpu/w:3840/h:2160/overlay:0 |  | 50.0 |" in text and "| 400.0 | 8.0 |" in text,
        "BM_DeviceCopy" not in text.split("\n", 1)[1],
    ]
    print(text)
    print("self-test:", "ok" if all(checks) else f"failed checks {[i for i, c in enumerate(checks) if not c]}")
    return 0 if all(checks) else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        bench = json.load(f)
    peers = open(argv[2]).read() if len(argv) == 3 else ""
    sys.stdout.write(table(bench, peers))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
