#!/usr/bin/env bash
# vp_window_demo --frames N quits by itself with status 0 (run inside xvfb.sh).
set -euo pipefail
demo=$1
[[ -n "${DISPLAY:-}" ]] || { echo "FAIL: no DISPLAY (run through xvfb.sh)"; exit 1; }
set +e
log=$(timeout 30 "$demo" --frames 30 --pitch-pad 4 2>&1)  # pitch not a whole pixel: row-by-row upload
rc=$?
set -e
echo "$log"
[[ $rc -eq 0 ]] || { echo "FAIL: status $rc"; exit 1; }
grep -qx "quit after frame limit" <<<"$log" || { echo "FAIL: did not stop at the frame limit"; exit 1; }
echo "PASS"
