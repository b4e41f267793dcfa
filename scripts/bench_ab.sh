#!/usr/bin/env bash
# A/B timing of vp_bench builds in one device call: the same benchmarks, binary by binary
# in alternating rounds, so that clock and machine drift shows up as spread between rounds
# instead of as a difference between builds.
#   scripts/bench_ab.sh NAME=VP_BENCH [NAME=VP_BENCH ...]
# VP_BENCH is a command, e.g. ".gpu/run build-server/tests/vp_bench" (scripts/gpu_bundle.sh)
# or ".gpu/run base/vp_bench" (another commit's, added by scripts/gpu_bundle_base.sh).
# Environment (defaults in brackets):
#   VP_AB_REPS     rounds [2]
#   VP_AB_FILTER   --benchmark_filter [the kernel rows of the README's performance table]
#   VP_AB_BENCH_ARGS  extra vp_bench arguments [--benchmark_repetitions=5
#                  --benchmark_report_aggregates_only=true]
# Prints one line per build, round and benchmark: NAME round BENCHMARK median.
set -uo pipefail
(($#)) || { sed -n 2,13p "$0"; exit 2; }
reps=${VP_AB_REPS:-2}
filter=${VP_AB_FILTER:-'BM_KmeansGpu/w:(1920|3840)/h:(1080|2160)/k:8/it:20/init:0/|BM_KmeansWarm/|BM_BoxBlurGpu/w:(1920|3840)/h:(1080|2160)/r:[0-9]+/border:1/passes:1/|BM_ConvertToRgbaGpu/fmt:0/w:1920/'}
bench_args=${VP_AB_BENCH_ARGS:-"--benchmark_repetitions=5 --benchmark_report_aggregates_only=true"}
names=() cmds=()
for v in "$@"; do
  [[ $v == *=* ]] || { echo "bench_ab: expected NAME=VP_BENCH, got '$v'" >&2; exit 2; }
  names+=("${v%%=*}") cmds+=("${v#*=}")
done
# Bundles ship their binaries compressed (scripts/gpu_bundle.sh): unpack them once.
for bundle in $(printf '%s\n' "${cmds[@]}" | awk '{print $1}' | xargs -n1 dirname | sort -u); do
  if [[ -f $bundle/bin.tar.xz && ! -d $bundle/bin ]]; then tar -C "$bundle" -xJf "$bundle/bin.tar.xz"; fi
done

for ((rep = 1; rep <= reps; ++rep)); do
  for i in "${!names[@]}"; do
    # shellcheck disable=SC2086  # the command and the arguments are word lists on purpose
    ${cmds[$i]} $bench_args --benchmark_filter="$filter" 2>&1 |
      awk -v name="${names[$i]}" -v rep="$rep" '/_median/ {printf "%-8s %d  %-90s %s %s\n", name, rep, $1, $2, $3; n++}
        END {if (!n) printf "%-8s %d  no benchmark ran (no GPU, or the filter matches none)\n", name, rep}'
  done
done
