#!/usr/bin/env bash
# With no display, opening the window fails with a clear SDL error and status 2 (the player
# falls back to headless on that error) instead of crashing.
set -uo pipefail
demo=$1
out=$(env -u DISPLAY -u WAYLAND_DISPLAY SDL_VIDEODRIVER=x11 timeout 20 "$demo" --frames 1 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 2 ]] || { echo "FAIL: expected status 2, got $rc"; exit 1; }
grep -q "cannot open window: SDL_Init(VIDEO) (no display?) failed: " <<<"$out" ||
  { echo "FAIL: no clear error message"; exit 1; }
echo "PASS"
