#!/usr/bin/env bash
# The real vidproc window driven by real X key events (run inside xvfb.sh):
#   vidproc_window_test.sh VIDPROC OUT_DIR
# Plays a lavfi source on the CPU backend, changes K, mode, radius and passes with
# xdotool, hides the HUD, pauses, takes screenshots with 's' until the shown frame is
# stable, captures the screen, quits with 'q', then checks the exit code, the final
# parameters in --stats-json, the screenshot's size, and the window's video area against
# the screenshot (letterbox geometry and tolerance below).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/wait_window.sh"
vidproc=$1
out=$2
for tool in xdotool xwd convert; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -n "${DISPLAY:-}" ]] || { echo "FAIL: no DISPLAY (run through xvfb.sh)"; exit 1; }
rm -rf "$out"; mkdir -p "$out"

fail() {
  echo "FAIL: $*"; echo "--- vidproc output:"; cat "$out/vidproc.log" || true
  if [[ -n "${pid:-}" ]]; then
    # A process that has already exited is reported with its status (143: killed here).
    kill "$pid" 2>/dev/null || true
    status=0; wait "$pid" || status=$?
    echo "--- vidproc exit status: $status"
  fi
  exit 1
}
# A key to the window; a window that is gone is a failure that shows vidproc's log.
press() { xdotool key --window "$win" "$1" || fail "key '$1' not delivered"; }

"$vidproc" -f lavfi "testsrc2=size=320x240:rate=30:duration=60" --backend cpu --streams 2 \
  --stats-json "$out/stats.json" --screenshot-dir "$out" >"$out/vidproc.log" 2>&1 &
pid=$!
win=$(wait_window "$pid" "^vidproc") || fail "no vidproc window"
echo "window $win: $(xdotool getwindowname "$win")"
sleep 2  # frames flowing before the keys arrive

# K 8 -> 10, a blur chain, radius 5 -> 7, passes 1 -> 2, HUD hidden (h), then paused.
for key in shift+k shift+k 2 shift+r shift+r b h space; do press "$key"; sleep 0.2; done

# Screenshot n of the frame shown, as the player saves it: press s, wait for the log line
# that reports it written (vidproc-DATE-TIME-n.png).
shot_n=0
shoot() {
  shot_n=$((shot_n + 1))
  press s
  shot=""
  for _ in $(seq 1 100); do
    shot=$(grep -o "screenshot saved: .*-$shot_n\.png" "$out/vidproc.log" | head -n 1 | sed 's/^screenshot saved: //') || true
    [[ -n "$shot" && -s "$shot" ]] && return 0
    sleep 0.1
  done
  fail "screenshot $shot_n not reported written within 10 s"
}
# Paused: frames already in flight may still be shown; wait until two screenshots agree.
shoot; prev=$shot
for _ in $(seq 1 10); do
  shoot
  cmp -s "$prev" "$shot" && break
  prev=$shot
done
cmp -s "$prev" "$shot" || fail "the picture kept changing while paused"
xwd -root -silent | convert xwd:- "$out/screen.png"
eval "$(xdotool getwindowgeometry --shell "$win")"  # X Y WIDTH HEIGHT of the window
shoot
cmp -s "$prev" "$shot" || fail "the picture changed while the screen was captured"
# vidproc may quit on the key press and close its window before xdotool sends the key
# release (X's BadWindow): whether it quit is checked below, not xdotool's status.
xdotool key --window "$win" q 2>/dev/null || true
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "vidproc did not quit within 10 s of 'q'"
wait "$pid" || fail "vidproc exited with status $?"

# The final chain: the blur with its keys' values; K reached 10 before it (the status log line).
vf=$(tr -d '\n ' < "$out/stats.json" | grep -o '"vf":"[^"]*"')
[[ "$vf" == '"vf":"blur=r=7:passes=2:border=replicate"' ]] || fail "final chain: $vf"
grep -q 'kmeans#1 k=10' "$out/vidproc.log" || fail "K did not reach 10: $(grep 'kmeans#1' "$out/vidproc.log" | tail -3)"
size=$(identify -format "%wx%h" "$shot")
[[ "$size" == "320x240" ]] || fail "screenshot is $size, expected the 320x240 processed frame"

# The window's video area against the processed frame. The frame is letterboxed into the
# window (gl_video.cpp's letterbox(): the largest rectangle of its aspect ratio, centred,
# sizes rounded to nearest) and drawn with linear filtering; the reference is the screenshot
# scaled to that rectangle with ImageMagick's triangle (bilinear) filter. Tolerance: mean
# absolute difference <= 0.5 % of full scale (1.3 levels) over the area below its top 48 rows
# (the status line is drawn there); the bars must be black (mean <= 1 %).
fw=320 fh=240
if ((WIDTH * fh > HEIGHT * fw)); then vh=$HEIGHT vw=$(((HEIGHT * fw + fh / 2) / fh)); else vw=$WIDTH vh=$(((WIDTH * fh + fw / 2) / fw)); fi
vx=$(((WIDTH - vw) / 2)) vy=$(((HEIGHT - vh) / 2))  # the same from the top as from the bottom, up to a row
vy=$((HEIGHT - vy - vh))
skip=48
convert "$out/screen.png" -crop "${vw}x$((vh - skip))+$((X + vx))+$((Y + vy + skip))" +repage "$out/video.png"
convert "$shot" -filter Triangle -resize "${vw}x${vh}!" -crop "${vw}x$((vh - skip))+0+$skip" +repage "$out/reference.png"
# Normalised mean absolute difference of two images (compare exits 1 when they differ at all).
mae_of() { { compare -metric MAE "$1" "$2" null: 2>&1 || true; } | sed 's/.*(\(.*\)).*/\1/'; }
mae=$(mae_of "$out/video.png" "$out/reference.png")
awk -v m="$mae" 'BEGIN { exit !(m <= 0.005) }' ||
  fail "window video area differs from the processed frame: normalised mean difference $mae > 0.005"
# Against the frame turned upside down (what a flipped upload would show): far outside the tolerance.
convert "$out/reference.png" -flip "$out/flipped.png"
flipped=$(mae_of "$out/video.png" "$out/flipped.png")
if ((vx > 0)); then
  bar=$(convert "$out/screen.png" -crop "${vx}x${vh}+${X}+$((Y + vy))" +repage -format "%[fx:mean]" info:)
  awk -v m="$bar" 'BEGIN { exit !(m <= 0.01) }' || fail "letterbox bar is not black (mean $bar)"
fi
echo "PASS: keys applied; window video area ${vw}x${vh}+${vx}+${vy} matches the paused frame $shot (normalised MAE $mae; flipped frame: $flipped); quit with q"
