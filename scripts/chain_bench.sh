#!/usr/bin/env bash
# The filter chain's pipeline figures in one device call (docs/benchmarks.md, "Chains"):
#   scripts/chain_bench.sh VIDPROC [OUT]
# VIDPROC is a command, e.g. ".gpu/run build-server/vidproc". For each size, interleaved
# and repeated (VP_CHAIN_REPS, default 2):
#   - blur=r=3,kmeans=k=8 against each of its elements alone: fps at 3 streams, and the
#     elements' GPU times at 1 stream (no other stream's kernels beside them), so that the
#     chain's GPU time can be held to the sum of its elements alone;
#   - kmeans with --compare split / side against compare off: what the view costs.
set -uo pipefail
(($#)) || { sed -n 2,10p "$0"; exit 2; }
vp=$1; out=${2:-/tmp/vp-chain}; reps=${VP_CHAIN_REPS:-2}
mkdir -p "$out"
frames() { [[ $1 == 1920x1080 ]] && echo 6000 || echo 1500; }
# Runs one case; prints "fps" and leaves the stats JSON in $out/NAME.json.
run() {
  local name=$1; shift
  # shellcheck disable=SC2086  # vp is a word list on purpose
  $vp --headless --no-progress --log-level warn --stats-json "$out/$name.json" "$@" > "$out/$name.txt" 2>&1
  awk '/^rate/ {print $2; found = 1} END {if (!found) print "failed"}' "$out/$name.txt"
}
# "label mean_ms" for each chain element of a stats JSON.
elements() {
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print("  ".join("%s %.4f ms" % (e["label"], e["ms"]["mean_ms"]) for e in j["chain"] if "ms" in e))' "$1"
}
for ((rep = 1; rep <= reps; ++rep)); do
  for size in 1920x1080 3840x2160; do
    n=$(frames $size)
    for vf in "blur=r=3,kmeans=k=8" "blur=r=3" "kmeans=k=8"; do
      tag=$size-${vf//[=,]/_}-$rep
      fps=$(run "$tag-s3" --synthetic $size --vf "$vf" --streams 3 --frames "$n")
      run "$tag-s1" --synthetic $size --vf "$vf" --streams 1 --frames "$n" > /dev/null
      printf '%-9s %-22s rep %d: %8s fps (3 streams) | 1 stream: %s\n' $size "$vf" $rep "$fps" "$(elements "$out/$tag-s1.json")"
    done
    for view in off split side; do
      fps=$(run "$size-compare-$view-$rep" --synthetic $size --mode kmeans --compare $view --streams 3 --frames "$n")
      printf '%-9s kmeans --compare %-5s rep %d: %8s fps\n' $size $view $rep "$fps"
    done
  done
done
