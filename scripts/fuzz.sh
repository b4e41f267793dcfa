#!/usr/bin/env bash
# Long fuzzing run of the input side (tests/fuzz): bytes -> in-memory source ->
# decode -> CPU K-means and blur.
#   scripts/fuzz.sh [EXECUTIONS=10000]
#   VP_FUZZ_TIMEOUT  seconds one input may take before it counts as a hang (default 10)
#   VP_FUZZ_RSS_MB   memory limit, MiB (default 2048)
#   VP_JOBS          build jobs
# Builds the CMake preset "fuzz" (clang, libFuzzer, ASan + UBSan) into build-fuzz,
# writes the seed corpus, runs vp_fuzz for EXECUTIONS inputs and prints the
# executions and the crashes, hangs, leaks and out-of-memory inputs found. libFuzzer
# stops at the first finding; it is kept in build-fuzz/fuzz-findings/. Fix it, copy
# it into tests/fuzz/regressions/ (ctest replays that folder) and run again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-10000}
build=$root/build-fuzz
[[ -f $build/build.ninja ]] || cmake --preset fuzz -S "$root" >/dev/null
cmake --build "$build" -j "${VP_JOBS:-$(nproc)}" --target vp_fuzz vp_fuzz_seeds
seeds=$build/fuzz-seeds corpus=$build/fuzz-corpus findings=$build/fuzz-findings log=$build/fuzz.log
mkdir -p "$corpus" "$findings"
# The seed maker is a tool, not the target: libx265 leaks a block at exit.
ASAN_OPTIONS=detect_leaks=0 "$build/tests/fuzz/vp_fuzz_seeds" "$seeds" >/dev/null
status=0
# New inputs go to $corpus (the first folder), so later runs go on from there.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1 UBSAN_OPTIONS=print_stacktrace=1 \
  "$build/tests/fuzz/vp_fuzz" -runs="$runs" -timeout="${VP_FUZZ_TIMEOUT:-10}" -rss_limit_mb="${VP_FUZZ_RSS_MB:-2048}" \
  -max_len=16384 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if [[ -z $executions ]]; then  # stopped by a finding: the last status line says how far it got
  executions=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
fi
# libFuzzer names each finding it writes by kind: crash- (sanitizer report, signal,
# uncaught exception, broken invariant), timeout-, leak-, oom-.
found() { grep -c "Test unit written to $findings/$1-" "$log" || true; }
crashes=$(found crash) hangs=$(found timeout) leaks=$(found leak) ooms=$(found oom)
echo "fuzz: ${executions:-0} executions, $crashes crashes, $hangs hangs, $leaks leaks, $ooms out-of-memory" \
     "(libFuzzer exit $status; log $log; findings in $findings)"
[[ $status -eq 0 && $crashes -eq 0 && $hangs -eq 0 && $leaks -eq 0 && $ooms -eq 0 ]]
