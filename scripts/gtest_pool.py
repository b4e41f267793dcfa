#!/usr/bin/env python3
"""Runs a GoogleTest binary's tests on a pool of worker processes (the GPU check's suite).

Fixed shards (GTEST_TOTAL_SHARDS) deal tests out round-robin, so a shard that draws the
slow ones sets the wall time (one took 243 s where the eight averaged 122). Here the tests
are cut into chunks, the slow-looking ones alone or few and first, and each worker takes the next
chunk as it finishes one. A chunk that crashes or passes --chunk-timeout is reported with
its log and its tests counted as not run, and the pool goes on: one hung test no longer
costs the whole call.

  scripts/gtest_pool.py --workers 8 --threads 2 --out DIR [--filter F] [--times J ...] -- CMD [ARGS]

CMD is the test binary's command line (e.g. `.gpu/run build-server/tests/vp_tests`). --times
takes gtest JSON reports of an earlier run: their times order the chunks, longest first,
instead of the name heuristic. Prints the counts, the failures, the slowest tests and each
worker's busy time; exits 1 when a test failed or a chunk did not finish.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

# Names of the tests that were slowest on the GPU machine: 4K and larger frames against
# the CPU twin (up to 88 s) get a chunk of their own, started first; whole-program runs and
# 1080p frames (up to 15 s) go a few to a chunk, next.
SLOWEST = re.compile(r"3840|4K|4k|8k|8K|Large|Determinism|EveryShipped")
SLOW = re.compile(r"E2E|Clips/|1921x1081|1920x1080")


def list_tests(cmd, flt):
    out = subprocess.run(cmd + ["--gtest_list_tests", "--gtest_filter=" + flt], capture_output=True, text=True,
                         check=True).stdout
    tests, suite = [], None
    for line in out.splitlines():
        if not line.strip() or line.startswith("Running main"):
            continue
        if not line.startswith(" "):
            suite = line.strip()
        else:
            tests.append(suite + line.strip().split("  #")[0].strip())
    return tests


def known_times(paths):
    times = {}
    for path in paths:
        try:
            report = json.load(open(path))
        except (OSError, ValueError):
            continue
        for suite in report.get("testsuites", []):
            for t in suite.get("testsuite", []):
                times[suite["name"] + "." + t["name"]] = float(t.get("time", "0s").rstrip("s"))
    return times


def make_chunks(tests, times, size):
    """Chunks in the order they start: the slow tests first, longest first when timed."""
    if times:
        alone = sorted((t for t in tests if times.get(t, 0.0) >= 5.0), key=lambda t: -times[t])
        few = sorted((t for t in tests if 1.0 <= times.get(t, 0.0) < 5.0), key=lambda t: -times[t])
    else:
        alone = [t for t in tests if SLOWEST.search(t)]
        few = [t for t in tests if SLOW.search(t) and not SLOWEST.search(t)]
    taken = set(alone) | set(few)
    rest = [t for t in tests if t not in taken]
    return ([[t] for t in alone] + [few[i:i + 4] for i in range(0, len(few), 4)] +
            [rest[i:i + size] for i in range(0, len(rest), size)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS of each worker")
    ap.add_argument("--out", required=True)
    ap.add_argument("--filter", default="*")
    ap.add_argument("--chunk-size", type=int, default=12)
    ap.add_argument("--chunk-timeout", type=float, default=300)
    ap.add_argument("--times", nargs="*", default=[])
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no test command after --")
    os.makedirs(a.out, exist_ok=True)
    tests = list_tests(cmd, a.filter)
    chunks = make_chunks(tests, known_times(a.times), a.chunk_size)
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
    busy = {}
    lock = threading.Lock()

    def run(index):
        log = os.path.join(a.out, f"chunk{index:04d}.log")
        report = os.path.join(a.out, f"chunk{index:04d}.json")
        start = time.monotonic()
        with open(log, "w") as f:
            try:
                p = subprocess.run(cmd + ["--gtest_brief=1", "--gtest_filter=" + ":".join(chunks[index]),
                                          "--gtest_output=json:" + report], stdout=f, stderr=subprocess.STDOUT,
                                   env=env, timeout=a.chunk_timeout)
                code = p.returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
        with lock:
            name = threading.current_thread().name
            busy[name] = busy.get(name, 0.0) + time.monotonic() - start
        return index, code, log, report

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=a.workers) as pool:
        results = list(pool.map(run, range(len(chunks))))
    wall = time.monotonic() - start

    passed = skipped = 0
    failed, unfinished, timed = [], [], []
    for index, code, log, report in results:
        seen = set()
        try:
            data = json.load(open(report))
        except (OSError, ValueError):
            data = {}
        for suite in data.get("testsuites", []):
            for t in suite.get("testsuite", []):
                name = suite["name"] + "." + t["name"]
                seen.add(name)
                timed.append((float(t.get("time", "0s").rstrip("s")), name))
                if t.get("failures"):
                    failed.append((name, log, [f.get("failure", "") for f in t["failures"]]))
                elif t.get("result") == "SKIPPED":
                    skipped += 1
                else:
                    passed += 1
        missing = [t for t in chunks[index] if t not in seen]
        if missing or code not in (0, 1):
            unfinished.append((index, code, log, missing))

    print(f"suite: {len(tests)} tests in {len(chunks)} chunks, {a.workers} workers x {a.threads} OpenMP threads, "
          f"{wall:.0f} s: {passed} passed, {skipped} skipped, {len(failed)} failed, "
          f"{sum(len(m) for _, _, _, m in unfinished)} not run")
    print("worker busy s: " + " ".join(f"{v:.0f}" for v in sorted(busy.values(), reverse=True)))
    for seconds, name in sorted(timed, reverse=True)[:15]:
        print(f"  {seconds:7.2f} s  {name}")
    for name, log, failures in failed:
        print(f"FAILED {name}  ({log})")
        # The failure text itself: a device call brings back only a few of the chunk logs.
        for text in failures[:3]:
            for line in text.splitlines()[:8]:
                print("    " + line[:300])
    for index, code, log, missing in unfinished:
        print(f"chunk {index} exit {code} ({log}): {len(missing)} tests without a result, first {missing[:3]}")
        with open(log) as f:
            for line in f.read().splitlines()[-5:]:
                print("    " + line)
    return 1 if failed or unfinished else 0


if __name__ == "__main__":
    sys.exit(main())
