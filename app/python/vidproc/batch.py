"""Batch processing of many video files on Dask distributed: one ``vidproc`` CLI job
per file, one worker per GPU.

Each task runs the ``vidproc`` command-line program by subprocess, so this module needs
only the standard library and ``dask.distributed`` (not the compiled extension). Workers
need dask, the vidproc binary and the same paths as the client (a shared file system),
not this package. See docs/batch.md.
"""

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

import cloudpickle
from distributed import Client, LocalCluster, as_completed

# Tasks travel by value, so workers need not import this package (nor its extension).
cloudpickle.register_pickle_by_value(sys.modules[__name__])

__all__ = ["BatchError", "FileResult", "expand_inputs", "output_paths", "process_files", "main"]

# File extensions a directory argument expands to (compared case-insensitively).
VIDEO_EXTENSIONS = frozenset(
    ".3gp .avi .flv .m2ts .m4v .mkv .mov .mp4 .mpeg .mpg .mts .mxf .nut .ogv .ts .webm .wmv .y4m".split())

# vidproc's error message is its last stderr line; a few more give the context.
STDERR_TAIL_LINES = 20


@dataclasses.dataclass
class FileResult:
    """What one file's job did."""

    input: str
    output: str
    returncode: "int | None"  # None: vidproc never ran or its worker died (see stderr)
    seconds: float  # wall time of the vidproc process on the worker
    stats: "dict | None"  # vidproc's --stats-json, None when it wrote none
    stderr: str  # the last lines of vidproc's stderr, or the reason it did not run

    @property
    def ok(self):
        return self.returncode == 0

    @property
    def message(self):
        """The last non-empty stderr line: vidproc's error message when it failed."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""


class BatchError(RuntimeError):
    """Raised by process_files(check=True) when some files failed; .results has all records."""

    def __init__(self, results):
        self.results = results
        failed = [r for r in results if not r.ok]
        super().__init__(f"{len(failed)} of {len(results)} files failed: "
                         + "; ".join(f"{r.input}: {r.message}" for r in failed))


def expand_inputs(paths):
    """Files as given; directories replaced by the video files directly inside, sorted."""
    files = []
    for path in map(os.fspath, paths):
        if os.path.isdir(path):
            files.extend(sorted(entry.path for entry in os.scandir(path)
                                if entry.is_file() and os.path.splitext(entry.name)[1].lower() in VIDEO_EXTENSIONS))
        else:
            files.append(path)
    return files


def output_paths(inputs, output_dir, suffix=".mkv"):
    """Absolute output path of each input: its stem + suffix in output_dir.

    Raises ValueError when two inputs would write the same output, or an output would
    replace its own input, so nothing is overwritten by a later job.
    """
    output_dir = os.path.abspath(os.fspath(output_dir))
    outputs = [os.path.join(output_dir, os.path.splitext(os.path.basename(os.fspath(i)))[0] + suffix)
               for i in inputs]
    seen = {}
    for inp, out in zip(inputs, outputs):
        key = os.path.normcase(out)
        if key in seen:
            raise ValueError(f"{seen[key]!r} and {os.fspath(inp)!r} would both write {out!r} (same file name stem)")
        seen[key] = os.fspath(inp)
        if os.path.realpath(inp) == os.path.realpath(out):
            raise ValueError(f"{out!r} would overwrite its own input (choose another output directory or suffix)")
    return outputs


def _run_vidproc(vidproc, input, output, vf, args, overwrite):
    """One task, on a worker: vidproc INPUT -> OUTPUT, returning FileResult's fields. Failures
    are returned, not raised, so one file cannot stop the others."""
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vidproc-batch-") as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        cmd = [vidproc, input, "--headless", "-o", output, *(["-y"] if overwrite else []),
               "--vf", vf, "--stats-json", stats_path, *args]
        start = time.monotonic()
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, errors="replace")
        except OSError as e:  # the binary is missing or not executable on this worker
            return dict(input=input, output=output, returncode=None, seconds=time.monotonic() - start,
                        stats=None, stderr=f"cannot run {vidproc!r}: {e}")
        seconds = time.monotonic() - start
        try:
            with open(stats_path, encoding="utf-8") as f:
                stats = json.load(f)
        except (OSError, ValueError):
            stats = None
    stderr = "\n".join(proc.stderr.splitlines()[-STDERR_TAIL_LINES:])
    return dict(input=input, output=output, returncode=proc.returncode, seconds=seconds, stats=stats,
                stderr=stderr)


def _check_gpu_workers(client, gpus_per_job):
    # Tasks that ask for a resource no worker has wait forever: fail now instead.
    workers = client.scheduler_info()["workers"].values()
    if workers and not any(w.get("resources", {}).get("GPU", 0) >= gpus_per_job for w in workers):
        raise ValueError(f"no worker offers GPU={gpus_per_job}: start workers with --resources GPU=1 "
                         "(one per GPU), or pass gpus_per_job=None")


def process_files(inputs, output_dir, vf, args=(), *, client=None, gpus_per_job=None, vidproc=None,
                  suffix=".mkv", overwrite=True, n_workers=1, check=False, on_result=None):
    """Run ``vidproc INPUT --headless -o OUTPUT [-y] --vf VF --stats-json JSON *args`` for
    every input on Dask, one task per file; return a FileResult per input, in input order.

    client: a distributed.Client; None starts a LocalCluster of n_workers single-threaded
    worker processes for this call and closes it after.
    gpus_per_job: None, or the number of "GPU" resource units each task asks for, so a
    worker started with ``--resources GPU=1`` runs one job at a time.
    vidproc: the binary, else $VP_VIDPROC, else ``vidproc`` on each worker's PATH.
    Outputs are INPUT's stem + suffix in output_dir (ValueError, before anything runs,
    when two would collide). A failed file is reported in its record and the others go on;
    check=True raises BatchError at the end if any failed. on_result(record) is called
    on the client as each file finishes.
    """
    inputs = [os.path.abspath(os.fspath(i)) for i in inputs]
    outputs = output_paths(inputs, output_dir, suffix)
    vidproc = vidproc or os.environ.get("VP_VIDPROC") or "vidproc"
    if os.sep in vidproc:  # a path, not a name to look up: workers may run in another directory
        vidproc = os.path.abspath(vidproc)
    args = [str(a) for a in args]

    own_cluster = None
    if client is None:
        own_cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None,
                                   resources={"GPU": gpus_per_job} if gpus_per_job else None)
        client = Client(own_cluster)
    try:
        if gpus_per_job:
            _check_gpu_workers(client, gpus_per_job)
        futures = {}
        for index, (inp, out) in enumerate(zip(inputs, outputs)):
            stem = os.path.splitext(os.path.basename(out))[0]
            future = client.submit(_run_vidproc, vidproc, inp, out, vf, args, overwrite,
                                   key=f"vidproc-{stem}-{uuid.uuid4().hex}",
                                   resources={"GPU": gpus_per_job} if gpus_per_job else None)
            futures[future] = index
        results = [None] * len(inputs)
        for future in as_completed(futures):
            index = futures[future]
            try:
                fields = future.result()
            except Exception as e:  # the task itself failed, e.g. its worker died (KilledWorker)
                fields = dict(input=inputs[index], output=outputs[index], returncode=None, seconds=0.0, stats=None,
                              stderr=f"task failed: {e!r}")
            record = results[index] = FileResult(**fields)
            if on_result is not None:
                on_result(record)
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
    if check and not all(r.ok for r in results):
        raise BatchError(results)
    return results


def _format(record):
    if record.ok:
        fps = record.stats.get("fps") if record.stats else None
        rate = f"{fps:9.1f} fps" if isinstance(fps, (int, float)) else "        - fps"
        return f"ok      {record.seconds:7.2f} s {rate}  {record.input} -> {record.output}"
    code = "-" if record.returncode is None else record.returncode
    return f"failed  {record.seconds:7.2f} s  exit {code}  {record.input}: {record.message}"


def main(argv=None):
    """The command line; returns the exit status (0: all ok, 1: some failed, 2: usage)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after the first "--" goes to vidproc untouched (argparse would parse it).
    extra = []
    if "--" in argv:
        split = argv.index("--")
        argv, extra = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(
        prog="python3 -m vidproc.batch",
        description="Run vidproc on many video files on Dask: one job per file.",
        epilog="Arguments after -- are passed to every vidproc run, e.g. -- --backend cuda --codec ffv1.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler, e.g. tcp://HOST:8786")
    where.add_argument("--local", type=int, metavar="N", default=1,
                       help="start a local cluster of N worker processes (default 1)")
    parser.add_argument("--gpus", action="store_true",
                        help="each job takes one GPU resource unit (workers started with --resources GPU=1)")
    parser.add_argument("--vf", required=True, help="vidproc filter chain, e.g. blur=r=2,kmeans=k=4")
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--suffix", default=".mkv", help="output file name suffix (default .mkv)")
    parser.add_argument("--vidproc", metavar="PATH",
                        help="vidproc binary (default: $VP_VIDPROC, else vidproc on PATH)")
    parser.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR",
                        help="video files; a directory stands for the video files directly inside it")
    opts = parser.parse_args(argv)

    inputs = expand_inputs(opts.inputs)
    if not inputs:
        parser.error("no video files in " + " ".join(opts.inputs))
    client = Client(opts.scheduler) if opts.scheduler else None
    try:
        results = process_files(inputs, opts.out, opts.vf, extra, client=client,
                                gpus_per_job=1 if opts.gpus else None, vidproc=opts.vidproc,
                                suffix=opts.suffix, n_workers=opts.local,
                                on_result=lambda r: print(_format(r), flush=True))
    except ValueError as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    finally:
        if client is not None:
            client.close()
    failed = sum(not r.ok for r in results)
    print(f"{len(results)} files: {len(results) - failed} ok, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
