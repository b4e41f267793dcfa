#!/usr/bin/env bash
# vp_window_demo driven by real X key events (run inside xvfb.sh):
#   demo_keys_test.sh DEMO_BINARY OUT_DIR
# Starts the demo, finds its window, types keys with xdotool, checks the actions the demo prints,
# screenshots the X screen and the GL back buffer and checks them (not black, letterbox bars
# black, HUD drawn), then quits with 'q' and checks the demo exits 0 within a few seconds.
# Exits 77 when xdotool, xwd or ImageMagick's convert is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/wait_window.sh"
demo=$1
out=$2
for tool in xdotool xwd convert; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -n "${DISPLAY:-}" ]] || { echo "FAIL: no DISPLAY (run through xvfb.sh)"; exit 1; }
mkdir -p "$out"
rm -f "$out"/demo.log "$out"/*.png

fail() {
  echo "FAIL: $*"
  echo "--- demo output:"
  cat "$out/demo.log" || true
  [[ -n "${pid:-}" ]] && kill "$pid" 2>/dev/null || true
  exit 1
}

# Mean brightness (0..1) of a region of an image: mean IMAGE [WxH+X+Y].
mean() {
  if [[ -n "${2:-}" ]]; then convert "$1" -crop "$2" +repage -format "%[fx:mean]" info:
  else convert "$1" -format "%[fx:mean]" info:; fi
}
# Is a brightness value above a threshold? above VALUE THRESHOLD
above() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v > t) }'; }

# Safety cap of 3000 frames (about 50 s) in case the quit key never arrives.
"$demo" --frames 3000 --screenshot-after 20 "$out/gl.png" >"$out/demo.log" 2>&1 &
pid=$!

win=$(wait_window "$pid" "vidproc") || fail "no window named vidproc"
echo "window $win: $(xdotool getwindowname "$win")"
xdotool getwindowname "$win" | grep -q "vidproc — demo" || fail "unexpected title"

# Wait for the GL read-back (frame 20) so the window is drawing before keys arrive.
for _ in $(seq 1 100); do grep -q "^screenshot: " "$out/demo.log" && break; sleep 0.1; done
grep -q "^screenshot: .* ok$" "$out/demo.log" || fail "no GL screenshot"

# wait_for LINE: the demo printed LINE within 5 s.
wait_for() {
  for _ in $(seq 1 50); do grep -qx "$1" "$out/demo.log" && return 0; sleep 0.1; done
  fail "expected '$1'"
}

# Real key events: a shifted letter, letters, '+' (shift+equal on the US map), keypad '+', '?',
# named keys. Each must come out as its command, in order.
keys=(shift+k r plus KP_Add b e m 2 period Right Up minus space s question)
expected=("k +1" "radius -1" "param +1" "param +1" "passes cycle" "border cycle" "preset cycle" "mode blur"
          step "seek +5" "seek +60" "param -1" "pause toggle" screenshot help)
for key in "${keys[@]}"; do
  xdotool key --window "$win" "$key"
  sleep 0.1
done
wait_for "command: help"
got=$(grep "^command: " "$out/demo.log" | sed 's/^command: //' | tr '\n' '|')
want=$(printf '%s|' "${expected[@]}")
[[ "$got" == "$want" ]] || fail "commands: got '$got', expected '$want'"

# Screen with the HUD and the help window: let a few frames pass, then grab the X screen.
sleep 0.5
xwd -root -silent | convert xwd:- "$out/screen.png"
geometry=$(xdotool getwindowgeometry --shell "$win")
eval "$geometry"  # X Y WIDTH HEIGHT of the window
echo "window at ${X},${Y} size ${WIDTH}x${HEIGHT}"
[[ "$WIDTH" -gt 0 && "$HEIGHT" -gt 0 ]] || fail "bad geometry"
whole=$(mean "$out/screen.png")
echo "screen mean $whole"
above "$whole" 0.05 || fail "screen is (nearly) black: mean $whole"
# The demo frame is 4:3 in a wider window: pillar-box bars at both sides must be black.
bar=$(( (WIDTH - HEIGHT * 4 / 3) / 2 ))
if (( bar > 20 )); then
  left=$(mean "$out/screen.png" "10x$((HEIGHT / 2))+$((X + bar / 2))+$((Y + HEIGHT / 2))")
  right=$(mean "$out/screen.png" "10x$((HEIGHT / 2))+$((X + WIDTH - bar / 2))+$((Y + HEIGHT / 4))")
  echo "bars: left $left right $right"
  above "$left" 0.01 && fail "left bar not black ($left)"
  above "$right" 0.01 && fail "right bar not black ($right)"
fi
picture=$(mean "$out/screen.png" "$((WIDTH / 4))x$((HEIGHT / 4))+$((X + WIDTH / 2))+$((Y + HEIGHT * 5 / 8))")
echo "picture mean $picture"
above "$picture" 0.1 || fail "video area is dark ($picture)"

# The GL read-back (video + HUD at frame 20): not black; HUD corner differs from the bars.
glmean=$(mean "$out/gl.png")
echo "gl read-back mean $glmean"
above "$glmean" 0.05 || fail "GL read-back is black"

# Close help, hide the HUD, check they are handled, then screenshot again: the top-left region
# (where the HUD was, over the left bar) is black now.
xdotool key --window "$win" F1
xdotool key --window "$win" h
wait_for "command: hud"
[[ $(grep -cx "command: help" "$out/demo.log") -eq 2 ]] || fail "F1: no second help"
sleep 0.5
xwd -root -silent | convert xwd:- "$out/screen-nohud.png"
hud_on=$(mean "$out/screen.png" "60x60+$((X + 20))+$((Y + 100))")
hud_off=$(mean "$out/screen-nohud.png" "60x60+$((X + 20))+$((Y + 100))")
echo "HUD corner: shown $hud_on hidden $hud_off"
above "$hud_on" "$hud_off" || fail "HUD not visible where expected"
above "$hud_off" 0.01 && fail "HUD still drawn after 'h'"

# Resize: the viewport follows the drawable. At 1000x400 the 4:3 picture is 533 wide.
timeout 5 xdotool windowsize --sync "$win" 1000 400 || fail "window did not resize"
sleep 0.5
xwd -root -silent | convert xwd:- "$out/screen-resized.png"
eval "$(xdotool getwindowgeometry --shell "$win")"
echo "resized window at ${X},${Y} size ${WIDTH}x${HEIGHT}"
[[ "$WIDTH" -eq 1000 && "$HEIGHT" -eq 400 ]] || fail "unexpected size after resize"
left=$(mean "$out/screen-resized.png" "100x300+$((X + 50))+$((Y + 50))")
right=$(mean "$out/screen-resized.png" "100x300+$((X + 850))+$((Y + 50))")
picture=$(mean "$out/screen-resized.png" "200x200+$((X + 400))+$((Y + 100))")
echo "resized: left bar $left right bar $right picture $picture"
above "$left" 0.01 && fail "left bar not black after resize ($left)"
above "$right" 0.01 && fail "right bar not black after resize ($right)"
above "$picture" 0.1 || fail "picture dark after resize ($picture)"

# Quit with 'q': the demo prints it and exits 0 within 5 s.
xdotool key --window "$win" q 2>/dev/null || true  # the window may close before the key release is sent
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then fail "demo still running 5 s after 'q'"; fi
set +e
wait "$pid"
rc=$?
set -e
pid=""
grep -qx "command: quit" "$out/demo.log" || fail "no quit command"
[[ $rc -eq 0 ]] || fail "demo exit status $rc"
echo "--- demo output:"
cat "$out/demo.log"
echo "PASS: keys reached the demo, screen checked, clean exit"
