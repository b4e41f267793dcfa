#!/usr/bin/env bash
# The whole GPU check in one device call: tests, compute-sanitizer, kernel
# benchmarks, pipeline benchmarks. Run on the GPU machine from a device bundle:
#   scripts/gpu_bundle.sh .gpu
#   (device, carry .gpu) scripts/gpu_sweep.sh .gpu build-server "$OUT" [parts]
# parts: any of tests library sanitize bench table memory pipeline elements (default: all but
# elements). Logs go to OUT.
# VP_BENCH_QUEUED=1 times the kernel benchmarks queued behind a host-held gate (the GPU's
# work without the first launch's submission; tests/support/cuda_bench.h).
set -uo pipefail
bundle=${1:-.gpu}; build=${2:-build-server}; out=${3:-${OUT:-/tmp/vp-sweep}}; parts=${4:-"tests library sanitize bench table memory pipeline"}
mkdir -p "$out"
# scripts/gpu_bundle.sh ships the binaries compressed.
[[ -f $bundle/bin.tar.xz && ! -d $bundle/bin ]] && tar -C "$bundle" -xJf "$bundle/bin.tar.xz"
run() { "$bundle/run" "$build/$@"; }
has() { [[ " $parts " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$out/gpu.txt"

if has tests; then
  echo "== tests"
  # End-to-end tests run the bundled binary on the CUDA backend. A pool of workers takes
  # chunks of tests as each finishes one, slow tests alone and first, the machine's cores
  # divided among the workers (each worker's CPU twins would otherwise start a thread per
  # core: 4 shards x 16 threads on 16 cores took > 470 s; fixed shards of 8 x 2 threads
  # took 258 s, bound by the shard that drew the slow tests); a chunk that crashes or hangs
  # is reported and the rest go on (scripts/gtest_pool.py). Then the real-time playback
  # tests alone: with the suite beside them they drop frames late and judge sync on a
  # machine that cannot keep time.
  run tests/vp_tests --gtest_list_tests > /dev/null  # unpacks the bundle's libraries once
  export VP_VIDPROC="$(pwd)/$bundle/run $build/vidproc" VP_E2E_BACKEND=cuda
  workers=${VP_TEST_WORKERS:-8}
  threads=$(( $(nproc) / workers )); (( threads < 1 )) && threads=1
  python3 scripts/gtest_pool.py --workers "$workers" --threads "$threads" --out "$out/tests" \
    --filter='-AudioPlayback.*' -- "$bundle/run" "$build/tests/vp_tests" | tee "$out/tests.txt"
  run tests/vp_tests --gtest_brief=1 --gtest_filter='AudioPlayback.*' > "$out/tests-playback.log" 2>&1
  echo "tests-playback.log: $(grep -E "^\[  (PASSED|SKIPPED|FAILED)  *\]" "$out/tests-playback.log" | tr '\n' ' ')"
  unset VP_VIDPROC VP_E2E_BACKEND
fi

if has library; then
  # The library face: its C++ tests, its cost over the bare kernels, then the Python module
  # built on this machine against its Python (tests, benchmark beside plain torch).
  echo "== library"
  run tests/vp_tests --gtest_brief=1 --gtest_filter='ChainApi*:VideoReader*' > "$out/library-tests.log" 2>&1
  echo "library tests: $(grep -E "^\[  (PASSED|SKIPPED|FAILED)  *\]" "$out/library-tests.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \]|Failure" "$out/library-tests.log" | head -10
  run tests/vp_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.05 \
    --benchmark_filter='BM_ChainApiGpu|BM_KmeansGpu/w:1920/h:1080/k:8/it:20/init:0/|BM_MedianGpu/w:(1920|3840)/h:(1080|2160)/r:1/border:1' \
    --benchmark_out="$out/library-bench.json" --benchmark_out_format=json > "$out/library-bench.txt" 2>&1
  grep -E "_median|ERROR" "$out/library-bench.txt"
  scripts/gpu_python.sh "$bundle" "$out/python"
fi

if has sanitize; then
  # Small sizes only: the sanitizers slow kernels by 10-100x.
  filter=${VP_SANITIZE_FILTER:-'BoxBlurGpu.SanitizerSubset:BoxBlurGpu.SubViewsAndBackToBackCalls:All/KmeansGpuVsCpu.Identical/37x11*k8_*:All/KmeansGpuVsCpu.Identical/2x3*k32*:KmeansGpu.ArgumentChecks:Sizes/ColorConvertGpu*/1x1:Sizes/ColorConvertGpu*/5x3:Sizes/ColorConvertGpu*/37x17:CudaResources.*:CudaPipelineArgs.*:Modes/CudaPipeline.*:BilateralArgs.GpuRejectsBadArguments:BilateralGpu.WorksOnSubViews:BilateralGpu.BackToBackCalls:All/KmeansSpatialGpuVsCpu.Identical/33x17_natural_k8_*:KmeansSpatialGpu.ScratchLeftZeroed:KmeansSpatialGpu.SmallGridsAndFlushes:SlicGpu.PersistentKernelOnFewBlocksMatchesCpuTwin:SlicGpu.BadArgumentsAreRejected:MedianGpu.MatchesCpuOnSmallImages'}
  for tool in memcheck racecheck synccheck initcheck; do
    compute-sanitizer --tool $tool --target-processes all --error-exitcode 99 \
      "$bundle/run" "$build/tests/vp_tests" --gtest_brief=1 --gtest_filter="$filter" > "$out/sanitize-$tool.log" 2>&1
    echo "compute-sanitizer $tool exit $? : $(grep -E "(ERROR|RACECHECK) SUMMARY|test suites? ran" "$out/sanitize-$tool.log" | tr '\n' ' ')"
  done
fi

if has bench; then
  echo "== kernel benchmarks"
  run tests/vp_bench --benchmark_repetitions=${VP_BENCH_REPS:-5} --benchmark_report_aggregates_only=true \
    --benchmark_min_time=${VP_BENCH_MIN_TIME:-0.05} --benchmark_out="$out/bench.json" --benchmark_out_format=json \
    --benchmark_filter="${VP_BENCH_FILTER:-^BM_(Kmeans|BoxBlurGpu/|BoxBlurCpu|GaussGpu|MedianGpu/|SlicGpu|EdgesGpu|BilateralGpu|ConvertToRgba|Rgba2Yuv|RgbaToRgb24|DeviceCopy|Pinned)}" \
    > "$out/bench.txt" 2>&1; echo "vp_bench exit $?"
  grep -E "_median" "$out/bench.txt" | awk '{printf "%-70s %12s %s\n", $1, $2, $3}'
fi

if has table; then
  # docs/benchmarks.md's kernel table: every GPU kernel row timed as the peers are (20 calls
  # between two events), the same run's device-to-device copy as the floor's bandwidth, the
  # NPP and torch peers beside them (scripts/bench_table.py).
  echo "== kernel table"
  # min_time counts the reported time per call, and a batched iteration is 20 calls: 0.01
  # here is 0.2 s of GPU time a repetition (0.05 made the part take over 330 s).
  VP_BENCH_BATCH=20 run tests/vp_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_min_time=0.01 --benchmark_out="$out/table-bench.json" --benchmark_out_format=json \
    --benchmark_filter="${VP_TABLE_FILTER:-^BM_(BoxBlurGpu/|GaussGpu/|MedianGpu/|EdgesGpu|BilateralGpu/|KmeansGpu/|KmeansSpatialGpu|SlicGpu|DeviceCopy)}" \
    > "$out/table-bench.txt" 2>&1; echo "vp_bench (batched) exit $?"
  PATH=/opt/torch/.venv/bin:$PATH tests/bench/peers/run_peers.sh "$out/peers-build" > "$out/peers.txt" 2>&1
  python3 scripts/bench_table.py "$out/table-bench.json" "$out/peers.txt" | tee "$out/table.md"
fi

if has memory; then
  # GPU memory per process at the default slots: the peak of nvidia-smi's used memory over
  # a run, summed over the compute processes (a container may hide pids; this run is
  # alone), 1080p and 4K H.264, NVDEC and software decode, K-means and blur; and, to see
  # where it goes, decoding alone (the context and the decoder), an empty chain (+ the
  # slots) and K-means on one slot.
  echo "== gpu memory"
  for size in 1920x1080 3840x2160; do
    clip=/tmp/vp-mem-$size.mp4
    [[ -f $clip ]] || run tests/vp_make_clip $clip ${size%x*} ${size#*x} 120 libx264 yuv420p 30 > /dev/null
    for hw in auto no; do
      for chain in decode-only none kmeans kmeans:1-slot blur=r=15; do
        args=(--vf "${chain%%:*}")
        [[ $chain == decode-only ]] && args=(--decode-only)
        [[ $chain == none ]] && args=(--mode none)
        [[ $chain == *:1-slot ]] && args+=(--streams 1)
        "$bundle/run" "$build/vidproc" $clip --headless --no-progress --log-level warn --loop --frames 480 \
          --hwdec $hw "${args[@]}" > "$out/memory-$size-$hw-${chain%%=*}.txt" 2>&1 &
        pid=$! peak=0
        while kill -0 $pid 2>/dev/null; do
          used=$(nvidia-smi --query-compute-apps=used_memory --format=csv,noheader,nounits | awk '{ s += $1 } END { print s + 0 }')
          (( used > peak )) && peak=$used
          sleep 0.1
        done
        wait $pid; code=$?
        echo "memory $size hwdec=$hw $chain: peak $peak MiB (exit $code)"
      done
    done
  done
fi

if has pipeline; then
  echo "== pipeline"
  pout=${VP_PIPELINE_OUT:-$out/pipeline}; mkdir -p "$pout"
  clip=/tmp/vp-1080p.mp4
  [[ -f $clip ]] || run tests/vp_make_clip $clip 1920 1080 900 libx264 yuv420p 30 > /dev/null
  vp() { "$bundle/run" "$build/vidproc" --headless --no-progress --log-level warn "$@"; }
  # 6,000 frames (the 900-frame clip looped) so start-up is a small part of each run;
  # decode-only and decode + K-means alternate twice to show the run-to-run spread.
  long="--loop --frames ${VP_DECODE_FRAMES:-6000}"
  for rep in 1 2; do
    vp $clip $long --decode-only --stats-json "$pout/decode-only-$rep.json" > "$pout/decode-only-$rep.txt" 2>&1
    echo "decode only ($rep): $(grep '^rate' "$pout/decode-only-$rep.txt")"
    vp $clip $long --mode kmeans --stats-json "$pout/decode-kmeans-$rep.json" > "$pout/decode-kmeans-$rep.txt" 2>&1
    echo "decode + kmeans ($rep): $(grep '^rate' "$pout/decode-kmeans-$rep.txt")"
  done
  for mode in blur none; do
    vp $clip $long --mode $mode -r 15 --stats-json "$pout/decode-$mode.json" > "$pout/decode-$mode.txt" 2>&1
    echo "decode + $mode: $(grep '^rate' "$pout/decode-$mode.txt")"
  done
  for size in 1920x1080 3840x2160; do
    for mode in kmeans blur; do
      for s in 1 2 3 4; do
        n=$([[ $size == 1920x1080 ]] && echo 6000 || echo 1500)
        vp --synthetic $size --mode $mode -r 15 --streams $s --frames $n \
          --stats-json "$pout/syn-$size-$mode-$s.json" > "$pout/syn-$size-$mode-$s.txt" 2>&1
        echo "synthetic $size $mode streams=$s: $(grep '^rate' "$pout/syn-$size-$mode-$s.txt") | $(grep '^sum of' "$pout/syn-$size-$mode-$s.txt")"
      done
    done
  done
fi

if has elements; then
  # Each chain element's own GPU time (its stage row: events around its launches on its
  # stream) at 1 stream and at 3, synthetic input, against the kernel's bench time: at 3
  # streams the elements of different frames share the SMs, so an element's span grows
  # while frames per second rise (docs/benchmarks.md, "In the pipeline").
  echo "== elements"
  eout=$out/elements; mkdir -p "$eout"
  printf "%-22s %-10s %10s %10s %7s %9s %9s\n" chain size "ms s=1" "ms s=3" ratio "fps s=1" "fps s=3"
  for size in ${VP_ELEMENT_SIZES:-1920x1080 3840x2160}; do
    n=${VP_ELEMENT_FRAMES:-$([[ $size == 3840x2160 ]] && echo 600 || echo 2000)}
    for chain in kmeans kmeans=spatial=1 slic=n=1000 blur=r=15 gauss=sigma=1 median=r=1 median=r=2 edges bilateral; do
      ms=() fps=()
      for s in 1 3; do
        f=$eout/$size-${chain//[=:]/_}-$s.txt
        timeout 120 "$bundle/run" "$build/vidproc" --headless --no-progress --log-level warn --synthetic $size \
          --vf "$chain" --streams $s --frames $n > "$f" 2>&1
        ms+=("$(awk '/^stage/ { t = 1 } t && $1 ~ /#1$/ { print $3 }' "$f")") fps+=("$(awk '/^rate/ { print $2 }' "$f")")
      done
      ratio=$(awk -v a="${ms[0]}" -v b="${ms[1]}" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')
      printf "%-22s %-10s %10s %10s %7s %9s %9s\n" "$chain" $size "${ms[0]:--}" "${ms[1]:--}" "$ratio" "${fps[0]:--}" "${fps[1]:--}"
    done
  done | tee "$out/elements.txt"
fi
