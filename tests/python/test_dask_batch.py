"""vidproc.batch: many files through the vidproc CLI on a Dask LocalCluster, checked
against sequential runs of the same command (vidproc writes the same bytes every run)."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("distributed")
from distributed import Client, LocalCluster  # noqa: E402

VIDPROC = os.environ.get("VP_VIDPROC", "")
MAKE_CLIP = os.environ.get("VP_MAKE_CLIP", "")
if not (os.path.isfile(VIDPROC) and os.path.isfile(MAKE_CLIP)):
    pytest.skip("needs $VP_VIDPROC (build/vidproc) and $VP_MAKE_CLIP (build/tests/vp_make_clip) "
                "naming built binaries", allow_module_level=True)

try:
    from vidproc import batch

    CLI = [sys.executable, "-m", "vidproc.batch"]
except ImportError:
    # The package's __init__ imports the compiled extension; where that is not built, load
    # this pure-Python module from the source tree (it needs neither) and run it as a script.
    SOURCE = pathlib.Path(__file__).resolve().parents[2] / "app/python/vidproc/batch.py"
    spec = importlib.util.spec_from_file_location("vidproc_batch", SOURCE)
    batch = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = batch
    spec.loader.exec_module(batch)
    CLI = [sys.executable, str(SOURCE)]

VF = "blur=r=2,kmeans=k=4"
ARGS = ["--backend", "cpu", "--codec", "ffv1", "--no-audio"]
# Different containers, codecs, pixel formats and pictures.
CLIPS = [("a.mp4", ["libx264", "yuv420p", "30", "--picture", "natural"]),
         ("b.mkv", ["ffv1", "bgr0", "25", "--picture", "noise"]),
         ("c.avi", ["mpeg4", "yuv420p", "24", "--picture", "flashes"])]


def vidproc(input, output, tmp):
    """One sequential run of the command a batch task runs."""
    return subprocess.run([VIDPROC, str(input), "--headless", "-o", str(output), "-y", "--vf", VF,
                           "--stats-json", str(tmp / "stats.json"), *ARGS],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clips")
    for name, options in CLIPS:
        subprocess.run([MAKE_CLIP, str(folder / name), "96", "64", "12", *options], check=True, capture_output=True)
    return sorted(folder.iterdir())


@pytest.fixture(scope="module")
def reference(clips, tmp_path_factory):
    """Each clip's output from a plain sequential CLI run, by stem."""
    folder = tmp_path_factory.mktemp("reference")
    out = {}
    for clip in clips:
        target = folder / (clip.stem + ".mkv")
        run = vidproc(clip, target, folder)
        assert run.returncode == 0, run.stderr
        out[clip.stem] = target.read_bytes()
    return out


@pytest.fixture(scope="module")
def corrupt(clips, tmp_path_factory):
    """The clips plus a file that is not a video."""
    folder = tmp_path_factory.mktemp("corrupt")
    for clip in clips:
        (folder / clip.name).symlink_to(clip)
    (folder / "broken.mp4").write_bytes(b"\x00\x00\x00\x18ftypisom not a video\n" * 64)
    return sorted(folder.iterdir())


@pytest.fixture(scope="module")
def client():
    # One "GPU" per worker, as on a GPU machine with one worker per device.
    with LocalCluster(n_workers=2, threads_per_worker=1, resources={"GPU": 1}, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def test_matches_sequential_cli(clips, reference, client, tmp_path, monkeypatch):
    monkeypatch.setenv("VP_VIDPROC", VIDPROC)  # the default binary
    seen = []
    results = batch.process_files(clips, tmp_path / "out", VF, ARGS, client=client, gpus_per_job=1,
                                  on_result=seen.append)
    assert [r.input for r in results] == [str(c) for c in clips]
    assert sorted(r.input for r in seen) == sorted(r.input for r in results)
    for clip, r in zip(clips, results):
        assert r.ok and r.returncode == 0, r.stderr
        assert r.output == str(tmp_path / "out" / (clip.stem + ".mkv"))
        assert r.stats["frames"]["processed"] == 12
        assert [e["label"] for e in r.stats["chain"]] == ["blur#1", "kmeans#2"]
        assert r.seconds > 0
        assert pathlib.Path(r.output).read_bytes() == reference[clip.stem], clip.name
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(stem + ".mkv" for stem in reference)


def test_corrupt_input_fails_alone(corrupt, reference, client, tmp_path):
    broken = next(p for p in corrupt if p.name == "broken.mp4")
    expected = vidproc(broken, tmp_path / "expected.mkv", tmp_path)
    assert expected.returncode != 0
    with pytest.raises(batch.BatchError) as failure:
        batch.process_files(corrupt, tmp_path / "out", VF, ARGS, client=client, gpus_per_job=1, vidproc=VIDPROC,
                            check=True)
    results = {pathlib.Path(r.input).name: r for r in failure.value.results}
    bad = results.pop("broken.mp4")
    assert not bad.ok and bad.returncode == expected.returncode
    assert bad.message == expected.stderr.strip().splitlines()[-1]
    assert bad.stats is None and not os.path.exists(bad.output)
    assert str(broken) in str(failure.value)
    assert len(results) == len(reference)
    for r in results.values():
        assert r.ok, r.stderr
        assert pathlib.Path(r.output).read_bytes() == reference[pathlib.Path(r.input).stem]


def test_duplicate_stems_rejected(clips, tmp_path, client):
    other = tmp_path / "other"
    other.mkdir()
    (other / (clips[0].stem + ".webm")).write_bytes(b"")
    with pytest.raises(ValueError, match="same file name stem"):
        batch.process_files([clips[0], other / (clips[0].stem + ".webm")], tmp_path / "out", VF, ARGS,
                            client=client, vidproc=VIDPROC)
    # An output that would replace its own input.
    with pytest.raises(ValueError, match="own input"):
        batch.process_files([clips[0]], clips[0].parent, VF, ARGS, client=client, vidproc=VIDPROC,
                            suffix=clips[0].suffix)
    assert not (tmp_path / "out").exists()


def test_gpu_resource_missing_rejected(clips, tmp_path, client):
    # Tasks asking for more GPUs than any worker has would wait forever.
    with pytest.raises(ValueError, match="GPU=2"):
        batch.process_files(clips, tmp_path, VF, ARGS, client=client, gpus_per_job=2, vidproc=VIDPROC)


def test_existing_output_kept_without_overwrite(clips, tmp_path, client):
    kept = tmp_path / (clips[0].stem + ".mkv")
    kept.write_bytes(b"keep me")
    (r,) = batch.process_files(clips[:1], tmp_path, VF, ARGS, client=client, vidproc=VIDPROC, overwrite=False)
    assert not r.ok and "exists" in r.message
    assert kept.read_bytes() == b"keep me"


def test_missing_binary_reported(clips, tmp_path, client):
    results = batch.process_files(clips, tmp_path, VF, ARGS, client=client, vidproc=str(tmp_path / "no-vidproc"))
    assert all(r.returncode is None and "cannot run" in r.message for r in results)


def cli(*args):
    return subprocess.run([*CLI, "--local", "2", "--gpus", "--vf", VF, *args, "--", *ARGS],
                          capture_output=True, text=True, timeout=120)


def test_cli(clips, reference, tmp_path):
    run = cli("--out", str(tmp_path), "--vidproc", VIDPROC, str(clips[0].parent))
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert sum(line.startswith("ok ") and "fps" in line for line in lines) == len(clips), run.stdout
    for stem, data in reference.items():
        assert (tmp_path / (stem + ".mkv")).read_bytes() == data


def test_cli_failure_exit_status(corrupt, tmp_path):
    run = cli("--out", str(tmp_path), "--vidproc", VIDPROC, *map(str, corrupt))
    assert run.returncode == 1, run.stdout + run.stderr
    failed = [line for line in run.stdout.splitlines() if line.startswith("failed ")]
    assert len(failed) == 1 and "broken.mp4" in failed[0], run.stdout
