#!/usr/bin/env bash
# Software vs NVDEC decoding, measured with vidproc itself (docs/hardware-decoding.md):
# for each clip, decode only (--decode-only), + K-means, + blur r 15, with --hwdec no,
# --hwdec nvdec and nvdec with three frame threads (nvdec3: VP_NVDEC_THREADS=3); prints
# frames/s and CPU ms per frame (getrusage user + system over the run) from --stats-json.
# MODES overrides the modes (decode none kmeans blur).
#   scripts/hwdec_bench.sh VIDPROC_COMMAND OUT_DIR CLIP:FRAMES...
# e.g. (GPU machine) scripts/hwdec_bench.sh ".gpu22/run build-server/vidproc" "$OUT" 4k.mp4:300
set -uo pipefail
vidproc=${1:?vidproc command}; out=${2:?output folder}; shift 2
mkdir -p "$out"
printf '%-24s %-8s %-7s %9s %9s  %s\n' clip mode hwdec fps cpu_ms decode
for spec in "$@"; do
  clip=${spec%%:*}; frames=${spec##*:}
  for mode in ${MODES:-decode kmeans blur}; do
    for hw in no nvdec nvdec3; do
      case $mode in
        decode) args=(--decode-only) ;;
        blur) args=(--mode blur -r 15) ;;
        *) args=(--mode "$mode") ;;
      esac
      json="$out/$(basename "$clip")-$mode-$hw.json"
      threads=1; [[ $hw == nvdec3 ]] && threads=3
      VP_NVDEC_THREADS=$threads $vidproc "$clip" --headless --no-progress --backend cuda --loop --frames "$frames" --hwdec "${hw%3}" \
        "${args[@]}" --stats-json "$json" > "$out/$(basename "$clip")-$mode-$hw.log" 2>&1 || echo "exit $? ($clip $mode $hw)"
      python3 - "$json" "$clip" "$mode" "$hw" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]:<24} {sys.argv[3]:<8} {sys.argv[4]:<7} no stats ({e})"); sys.exit()
d = j.get("decode", {})
print(f"{sys.argv[2].split('/')[-1]:<24} {sys.argv[3]:<8} {sys.argv[4]:<7} {j['fps']:9.1f} {j['cpu']['ms_per_frame']:9.2f}  "
      f"{d.get('path','')} {d.get('surface','')} frames {j['frames']['processed']}")
PY
    done
  done
done
