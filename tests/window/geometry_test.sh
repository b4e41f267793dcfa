#!/usr/bin/env bash
# Where the picture lands: a red 640x360 test pattern in vidproc's window under Xvfb,
# fullscreen on two screen sizes (filled, and letterboxed with bars) and in windows
# placed and sized by --geometry, and the default window (the video's size, centred).
# Each case reads pixels of a screenshot at the picture's corners and just outside them.
#   geometry_test.sh VIDPROC OUTDIR
# Exits 77 when xvfb-run, xdotool, xwd or ImageMagick's convert is missing.
set -euo pipefail
vidproc=$1
out=$2
mkdir -p "$out"
for tool in xvfb-run xdotool xwd convert; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
export LIBGL_ALWAYS_SOFTWARE=1
export VP_WAIT_WINDOW="$(cd "$(dirname "$0")" && pwd)/wait_window.sh"

# One case on its own X server: run_case NAME SCREEN_WxH [VIDPROC ARGS...]; the checks
# read $out/NAME.png and $out/NAME.geometry (X Y WIDTH HEIGHT of the window).
run_case() {
  local name=$1 screen=$2
  shift 2
  xvfb-run -a -s "-screen 0 ${screen}x24" bash -c '
    set -euo pipefail
    out=$1 name=$2 vidproc=$3
    shift 3
    "$vidproc" -f lavfi "color=c=red:size=640x360:rate=30" --backend cpu --vf none --no-hud --no-audio \
      --frames 900 "$@" >"$out/$name.log" 2>&1 &
    pid=$!
    trap "kill -INT $pid 2>/dev/null || true; wait $pid 2>/dev/null || true" EXIT
    source "$VP_WAIT_WINDOW"
    win=$(wait_window "$pid" "^vidproc") || { echo "FAIL $name: no window"; cat "$out/$name.log"; exit 1; }
    sleep 1.5  # frames drawn, fullscreen and geometry applied
    xdotool getwindowgeometry --shell "$win" >"$out/$name.geometry"
    xwd -root -silent | convert xwd:- "$out/$name.png"
  ' _ "$out" "$name" "$vidproc" "$@"
}

fails=0
pixel() {  # pixel NAME X Y -> "R,G,B"
  convert "$out/$1.png" -format "%[fx:int(255*p{$2,$3}.r+0.5)],%[fx:int(255*p{$2,$3}.g+0.5)],%[fx:int(255*p{$2,$3}.b+0.5)]" info:
}
expect() {  # expect NAME X Y red|black
  local got want
  got=$(pixel "$1" "$2" "$3")
  [[ $4 == red ]] && want="255,0,0" || want="0,0,0"
  # H.264-free lavfi colour through BT.601 limited range: red comes back within a few levels.
  local r g b
  IFS=, read -r r g b <<<"$got"
  if [[ $4 == red ]]; then ((r > 230 && g < 30 && b < 30)) && return 0; else ((r < 20 && g < 20 && b < 20)) && return 0; fi
  echo "FAIL $1: pixel ($2,$3) is $got, want $4 ($want)"
  fails=$((fails + 1))
}
expect_window() {  # expect_window NAME X Y W H
  # shellcheck disable=SC1090
  local X Y WIDTH HEIGHT
  eval "$(grep -E '^(X|Y|WIDTH|HEIGHT)=' "$out/$1.geometry")"
  if [[ "$X,$Y,$WIDTH,$HEIGHT" != "$2,$3,$4,$5" ]]; then
    echo "FAIL $1: window at $X,$Y size ${WIDTH}x$HEIGHT, want $2,$3 ${4}x$5"
    fails=$((fails + 1))
  fi
}

# Fullscreen, same aspect: the picture fills the 1920x1080 screen, corner to corner.
run_case fs-1080p 1920x1080 --fullscreen
expect_window fs-1080p 0 0 1920 1080
for xy in "1 1" "1918 1 " "1 1078" "1918 1078" "960 540"; do expect fs-1080p $xy red; done

# Fullscreen on a 4:3 640x480 screen: 640x360 letterboxed, 60-pixel bars above and below.
run_case fs-vga 640x480 --fullscreen
expect_window fs-vga 0 0 640 480
for xy in "1 62" "638 62" "1 417" "638 417"; do expect fs-vga $xy red; done
for xy in "320 2" "320 57" "320 423" "320 477"; do expect fs-vga $xy black; done

# --geometry 800x600+10+20: the window there, the picture 800x450 inside it, bars above and below.
run_case geometry-800x600 1280x800 --geometry 800x600+10+20
expect_window geometry-800x600 10 20 800 600
for xy in "12 97" "807 97" "12 542" "807 542"; do expect geometry-800x600 $xy red; done
for xy in "400 25" "400 90" "400 550" "400 615"; do expect geometry-800x600 $xy black; done

# --geometry 320x180+0+0: a small window in the corner, filled.
run_case geometry-small 1280x800 --geometry 320x180+0+0
expect_window geometry-small 0 0 320 180
for xy in "1 1" "318 1" "1 178" "318 178"; do expect geometry-small $xy red; done
expect geometry-small 330 10 black
expect geometry-small 10 190 black

# No geometry: the video's size, centred on the 1280x800 screen.
run_case default 1280x800
expect_window default 320 220 640 360
for xy in "321 221" "958 221" "321 578" "958 578"; do expect default $xy red; done
expect default 310 400 black

if ((fails)); then
  echo "geometry_test: $fails checks failed (screenshots in $out)"
  exit 1
fi
echo "geometry_test: fullscreen at 1920x1080 and 640x480, --geometry 800x600+10+20 and 320x180+0+0, default: all corners where they belong"
