#!/usr/bin/env bash
# A/B timing of vidproc builds in one device call: the same synthetic and decode runs,
# interleaved variant by variant and repeated, so that clock and host drift between
# runs shows up as spread instead of as a difference between variants.
#   scripts/pipeline_ab.sh NAME=VIDPROC [NAME=VIDPROC ...]
# VIDPROC is a command, e.g. ".gpu/run build-server/vidproc" (a device bundle) or a path.
# Environment (defaults in brackets):
#   VP_AB_REPS     repetitions of the whole sweep [2]
#   VP_AB_CASES    synthetic cases, SIZE:MODE:STREAMS:FRAMES separated by spaces
#                  [1920x1080:kmeans:3:6000 1920x1080:kmeans:4:6000 3840x2160:kmeans:4:1500]
#   VP_AB_CLIP     a clip for decode-only vs decode + K-means pairs (none: skipped)
#   VP_AB_DECODE_FRAMES  frames per decode run, the clip looped [6000]
#   VP_AB_ARGS     extra vidproc arguments for every run (e.g. "--backend cpu")
set -uo pipefail
(($#)) || { sed -n 2,13p "$0"; exit 2; }
reps=${VP_AB_REPS:-2}
cases=${VP_AB_CASES:-"1920x1080:kmeans:3:6000 1920x1080:kmeans:4:6000 3840x2160:kmeans:4:1500"}
clip=${VP_AB_CLIP:-}
names=() cmds=()
for v in "$@"; do
  [[ $v == *=* ]] || { echo "pipeline_ab: expected NAME=VIDPROC, got '$v'" >&2; exit 2; }
  names+=("${v%%=*}") cmds+=("${v#*=}")
done

# Prints the "rate" line's frames per second of one headless run (or "failed").
rate() {
  local cmd=$1; shift
  # shellcheck disable=SC2086  # cmd and VP_AB_ARGS are word lists on purpose
  $cmd --headless --no-progress --log-level warn ${VP_AB_ARGS:-} "$@" 2>&1 |
    awk '/^rate/ {print $2; found = 1} END {if (!found) print "failed"}'
}

for ((rep = 1; rep <= reps; ++rep)); do
  for c in $cases; do
    IFS=: read -r size mode streams frames <<< "$c"
    for i in "${!names[@]}"; do
      fps=$(rate "${cmds[$i]}" --synthetic "$size" --mode "$mode" --streams "$streams" --frames "$frames")
      printf '%-10s synthetic %-9s %-6s streams %s  rep %d: %s fps\n' "${names[$i]}" "$size" "$mode" "$streams" "$rep" "$fps"
    done
  done
  [[ -n $clip ]] || continue
  for i in "${!names[@]}"; do
    long=(--loop --frames "${VP_AB_DECODE_FRAMES:-6000}")
    d=$(rate "${cmds[$i]}" "$clip" "${long[@]}" --decode-only)
    k=$(rate "${cmds[$i]}" "$clip" "${long[@]}" --mode kmeans)
    ratio=$(awk -v d="$d" -v k="$k" 'BEGIN {if (d + 0 > 0 && k + 0 > 0) printf "%.1f%%", 100 * k / d; else print "-"}')
    printf '%-10s decode-only %s fps, + K-means %s fps (%s)  rep %d\n' "${names[$i]}" "$d" "$k" "$ratio" "$rep"
  done
done
