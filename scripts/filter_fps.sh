#!/usr/bin/env bash
# Pipeline fps of each filter alone (and the cartoon chain) at 1080p and 4K, synthetic
# input, headless, 3 streams, with each element's GPU time from the stats JSON
# (docs/benchmarks.md, "Filters in the pipeline"):
#   scripts/filter_fps.sh VIDPROC [OUT]
# VIDPROC is a command, e.g. ".gpu/run build-server/vidproc". VP_FPS_CHAINS overrides the
# chains (blank-separated), VP_FPS_FRAMES the frames at 1080p (4K runs a quarter).
set -uo pipefail
(($#)) || { sed -n 2,7p "$0"; exit 2; }
vp=$1; out=${2:-/tmp/vp-fps}
mkdir -p "$out"
chains=${VP_FPS_CHAINS:-"none kmeans=k=8 blur=r=5 median=r=1 median=r=2 median=r=7 gauss=sigma=1 gauss=sigma=5 edges kmeans=k=6,edges=overlay=1"}
frames=${VP_FPS_FRAMES:-3000}
for size in 1920x1080 3840x2160; do
  n=$frames; [[ $size == 3840x2160 ]] && n=$((frames / 4))
  for vf in $chains; do
    tag=$size-${vf//[=,]/_}
    # shellcheck disable=SC2086  # vp is a word list on purpose
    $vp --headless --no-progress --log-level warn --stats-json "$out/$tag.json" --synthetic $size --vf "$vf" \
      --streams 3 --frames "$n" > "$out/$tag.txt" 2>&1
    python3 - "$out/$tag.json" "$size" "$vf" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]:<9} {sys.argv[3]:<28} failed ({e})"); sys.exit()
rows = "  ".join("%s %.1f us" % (e["label"], 1000 * e["ms"]["mean_ms"]) for e in j.get("chain", []) if "ms" in e)
print(f"{sys.argv[2]:<9} {sys.argv[3]:<28} {j.get('fps', j.get('rate', '?'))!s:>10} fps  {rows}")
PY
  done
done
