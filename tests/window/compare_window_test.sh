#!/usr/bin/env bash
# The compare view in the real vidproc window (run inside xvfb.sh):
#   compare_window_test.sh VIDPROC OUT_DIR
# A still 1280x720 source (SMPTE bars) shown 1:1 in the 1280x720 window with
# --compare split and a blur: left of the split line the screen must be within 1 level of
# the unprocessed frame, right of it within 1 level of the processed one (both references
# written by the same binary headless with --vf none and --vf blur..., decoded by ffmpeg).
# Then key s saves the processed frame (not the view), a mouse drag moves the line, and key
# c cycles to side by side: checked in the final --stats-json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/wait_window.sh"
vidproc=$1
out=$2
for tool in xdotool xwd convert ffmpeg; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -n "${DISPLAY:-}" ]] || { echo "FAIL: no DISPLAY (run through xvfb.sh)"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
src=(-f lavfi "smptebars=size=1280x720:rate=30")
chain="blur=r=6"
fail() {
  echo "FAIL: $*"; echo "--- vidproc output:"; cat "$out/vidproc.log" 2>/dev/null || true
  [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null
  exit 1
}

# References: the unprocessed and the processed frame, headless.
for ref in "none:none" "proc:$chain"; do
  "$vidproc" "${src[@]}" --headless --backend cpu --frames 1 --vf "${ref#*:}" --codec ffv1 -y -o "$out/${ref%%:*}.mkv" \
    >"$out/${ref%%:*}.log" 2>&1 || fail "headless reference ${ref%%:*} failed: $(cat "$out/${ref%%:*}.log")"
  ffmpeg -v error -y -i "$out/${ref%%:*}.mkv" -frames:v 1 "$out/${ref%%:*}.png"
done

"$vidproc" "${src[@]}" --backend cpu --streams 2 --vf "$chain" --compare split --split 50 \
  --stats-json "$out/stats.json" --screenshot-dir "$out" >"$out/vidproc.log" 2>&1 &
pid=$!
win=$(wait_window "$pid" "^vidproc") || fail "no vidproc window"
sleep 2
xdotool key --window "$win" h || fail "key h not delivered"  # HUD off: the video alone
sleep 4                                                      # the status line fades (Hud::kStatusSeconds)
xwd -root -silent | convert xwd:- "$out/screen.png"
eval "$(xdotool getwindowgeometry --shell "$win")"  # X Y WIDTH HEIGHT
[[ "$WIDTH" == 1280 && "$HEIGHT" == 720 ]] || fail "window is ${WIDTH}x$HEIGHT, the test needs 1280x720 (1:1)"

# Peak absolute difference (0..1) of a region of the screen against the same region of a reference.
# Rows 0..659: the compare labels sit along the bottom. Columns: the line is at 639 and 640.
peak() {  # peak REF X0 WIDTH
  convert "$out/screen.png" -crop "${3}x660+$((X + $2))+$Y" +repage "$out/screen-$2.png"
  convert "$out/$1.png" -crop "${3}x660+$2+0" +repage "$out/ref-$1-$2.png"
  { compare -metric PAE "$out/screen-$2.png" "$out/ref-$1-$2.png" null: 2>&1 || true; } | sed 's/.*(\(.*\)).*/\1/'
}
left=$(peak none 0 639)
right=$(peak proc 641 639)
cross=$(peak proc 0 639)  # the left half against the processed frame: must differ (the blur shows)
awk -v m="$left" 'BEGIN { exit !(m <= 1 / 255 + 1e-6) }' || fail "left of the line differs from the original by $left"
awk -v m="$right" 'BEGIN { exit !(m <= 1 / 255 + 1e-6) }' || fail "right of the line differs from the processed frame by $right"
awk -v m="$cross" 'BEGIN { exit !(m > 10 / 255) }' || fail "left of the line equals the processed frame (peak $cross): no comparison shown"

# Key s while the window shows the comparison saves the processed frame (the default --output-view).
xdotool key --window "$win" s || fail "key s not delivered"
shot=""
for _ in $(seq 1 100); do
  shot=$(grep -o "screenshot saved: .*\.png" "$out/vidproc.log" | head -n 1 | sed 's/^screenshot saved: //') || true
  [[ -n "$shot" && -s "$shot" ]] && break
  sleep 0.1
done
[[ -n "$shot" && -s "$shot" ]] || fail "no screenshot saved within 10 s"
diff_px=$({ compare -metric AE "$shot" "$out/proc.png" null: 2>&1 || true; } | sed 's/ .*//')
[[ "$diff_px" == 0 ]] || fail "the screenshot is not the processed frame ($diff_px pixels differ)"

# Drag the line from the middle to three quarters, then c: split -> side.
xdotool mousemove --window "$win" 640 300 mousedown 1 mousemove --window "$win" 800 300 \
  mousemove --window "$win" 960 300 mouseup 1 || fail "mouse drag not delivered"
sleep 0.5
xdotool key --window "$win" c || fail "key c not delivered"
sleep 0.5
xdotool key --window "$win" q 2>/dev/null || true
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "vidproc did not quit within 10 s of 'q'"
wait "$pid" || fail "vidproc exited with status $?"
grep -q '"compare": "side"' "$out/stats.json" || fail "key c did not cycle split -> side: $(tr -d '\n ' < "$out/stats.json" | grep -o '"params":{[^}]*}')"
grep -q '"split": 0.75' "$out/stats.json" || fail "the drag did not move the line to 75 %: $(tr -d '\n ' < "$out/stats.json" | grep -o '"params":{[^}]*}')"
echo "PASS: split view left peak diff $left (original), right $right (processed), left vs processed $cross; screenshot = processed frame; drag -> 75 %, c -> side"
