#!/usr/bin/env bash
# The real vidproc window driven by real X key events (run inside xvfb.sh):
#   vidproc_window_test.sh VIDPROC OUT_DIR
# Plays a lavfi source on the CPU backend, changes K, mode, radius and passes with
# xdotool, takes a screenshot with 's', quits with 'q', then checks the exit code,
# the final parameters in --stats-json and the screenshot (processed frame size, not black).
set -euo pipefail
vidproc=$1
out=$2
for tool in xdotool xwd convert; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -n "${DISPLAY:-}" ]] || { echo "FAIL: no DISPLAY (run through xvfb.sh)"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

fail() {
  echo "FAIL: $*"; echo "--- vidproc output:"; cat "$out/vidproc.log" || true
  [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null || true
  exit 1
}

"$vidproc" -f lavfi "testsrc2=size=320x240:rate=30:duration=60" --backend cpu --streams 2 \
  --stats-json "$out/stats.json" --screenshot-dir "$out" >"$out/vidproc.log" 2>&1 &
pid=$!
win=$(timeout 20 xdotool search --sync --name "^vidproc" | head -n 1) || fail "no vidproc window"
echo "window $win: $(xdotool getwindowname "$win")"
sleep 2  # frames flowing before the keys arrive

# K 8 -> 10, blur mode, radius 5 -> 7, passes 1 -> 2, then a screenshot of the processed frame.
for key in shift+k shift+k 2 shift+r shift+r b; do xdotool key --window "$win" "$key"; sleep 0.2; done
sleep 0.5
xdotool key --window "$win" s
for _ in $(seq 1 50); do ls "$out"/vidproc-*.png >/dev/null 2>&1 && break; sleep 0.1; done
shot=$(ls "$out"/vidproc-*.png 2>/dev/null | head -n 1) || true
[[ -n "$shot" ]] || fail "no screenshot written"
xwd -root -silent | convert xwd:- "$out/screen.png"
xdotool key --window "$win" q
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "vidproc did not quit within 10 s of 'q'"
wait "$pid" || fail "vidproc exited with status $?"

# The final parameters (stats JSON is pretty-printed, one key per line).
for want in '"mode": "blur"' '"k": 10' '"radius": 7' '"passes": 2'; do
  grep -q "$want" "$out/stats.json" || fail "final parameters: no $want in $(tr -d '\n ' < "$out/stats.json")"
done
size=$(identify -format "%wx%h" "$shot")
[[ "$size" == "320x240" ]] || fail "screenshot is $size, expected the 320x240 processed frame"
mean=$(convert "$shot" -format "%[fx:mean]" info:)
awk -v m="$mean" 'BEGIN { exit !(m > 0.05) }' || fail "screenshot is black (mean $mean)"
grep -q "screenshot saved: $shot" "$out/vidproc.log" || fail "screenshot path not reported"
screen=$(convert "$out/screen.png" -format "%[fx:mean]" info:)
awk -v m="$screen" 'BEGIN { exit !(m > 0.02) }' || fail "window is black (mean $screen)"
echo "PASS: keys applied, screenshot $shot ($size, mean $mean), quit with q"
