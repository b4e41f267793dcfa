#!/usr/bin/env bash
# Builds and runs the Google Benchmark suite (kernels, CPU twins, transfers): medians
# of repeated runs. GPU benchmarks report "no CUDA device" and skip without a GPU.
# Arguments go to vp_bench, e.g. scripts/bench.sh --benchmark_filter=BoxBlur
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" vp_bench
exec "${BUILD_DIR:-$root/build}/tests/vp_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.05 "$@"
