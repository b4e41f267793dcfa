#!/usr/bin/env bash
# Do two vidproc builds write the same files? For refactors that must not change
# behaviour: the same command lines (K-means, blur, passthrough, --loop, an odd-sized
# 4:4:4 clip, H.264 output) through both builds on the CPU backend, then each pair of
# outputs compared: decoded video frames and timestamps (ffmpeg's framemd5) must be
# equal, and files whose muxer writes no random IDs (MP4) byte for byte. Matroska
# files differ run to run in their segment UID and date, so they are compared decoded.
#   scripts/output_ab.sh VIDPROC_A VIDPROC_B [WORK_DIR]
# Exit 0: all equal; 1: a difference (listed); 2: usage or a missing tool.
set -uo pipefail
(($# >= 2)) || { sed -n 2,9p "$0"; exit 2; }
command -v ffmpeg >/dev/null || { echo "ffmpeg not installed (scripts/setup.sh)"; exit 2; }
a=$(realpath "$1") b=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work" && cd "$work" || exit 2
ffmpeg -v error -y -f lavfi -i "testsrc2=size=320x240:rate=25:d=2.4" -c:v libx264 -pix_fmt yuv420p -g 12 clip.mp4 &&
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=161x91:rate=25:d=1.2" -c:v libx264 -pix_fmt yuv444p odd444.mkv || exit 2

cases=(
  "km.mkv|clip.mp4 --mode kmeans -k 6 --codec ffv1"
  "blur.mkv|clip.mp4 --mode blur -r 7 --passes 2 --border reflect --codec ffv1"
  "none.mkv|clip.mp4 --mode none --codec ffv1"
  "km_h264.mp4|clip.mp4 --mode kmeans -k 5"
  "loop.mkv|clip.mp4 --mode kmeans -k 4 --loop --frames 150 --codec ffv1"
  "odd_blur.mkv|odd444.mkv --mode blur -r 3 --border wrap --codec ffv1"
  "odd_km.mkv|odd444.mkv --mode kmeans -k 12 --init kmeans++ --seed 7 --codec ffv1"
  "nowarm.mkv|clip.mp4 --mode kmeans -k 8 --no-warm --iterations 5 --codec ffv1"
)
frames() { ffmpeg -v error -i "$1" -map 0:v -f framemd5 - | grep -v '^#'; }
status=0
for c in "${cases[@]}"; do
  out=${c%%|*}
  read -r -a args <<<"${c#*|}"
  for side in a b; do
    bin=$a; [[ $side == b ]] && bin=$b
    "$bin" "${args[@]}" --headless --no-progress --backend cpu --streams 2 -y -o "$side.$out" >"$side.$out.log" 2>&1 ||
      { echo "$out: build $side exited with $? (see $work/$side.$out.log)"; status=1; continue 2; }
  done
  n=$(frames "a.$out" | wc -l)
  if [[ "$(frames "a.$out")" != "$(frames "b.$out")" ]]; then
    echo "$out: DIFFERENT frames ($n in A)"; status=1
  elif [[ $out == *.mp4 ]] && ! cmp -s "a.$out" "b.$out"; then
    echo "$out: same frames, DIFFERENT bytes"; status=1
  else
    echo "$out: same ($n frames$([[ $out == *.mp4 ]] && echo ", byte-identical file"))"
  fi
done
exit $status
