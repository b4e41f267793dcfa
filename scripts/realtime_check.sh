#!/usr/bin/env bash
# The real-time tests under load: each runs N times in a row (ctest --repeat until-fail:N)
# while the rest of the suite runs beside it, `ctest -j2` over and over, as on CI's
# 2-core machine. Prints, per regex, whether every test passed N runs in a row, else
# ctest's count and the failures (the log is kept).
#   scripts/realtime_check.sh [N=20] [BUILD=build] [TEST_REGEX...]
# Default tests: window playback with sound (AudioPlayback.*, window.audio_disk), the
# window's shutdown cycles (window.stop_cycles) and the files' A/V sync (AudioSync.*).
set -uo pipefail
n=${1:-20}
build=$(cd "${2:-build}" && pwd)
shift $(($# < 2 ? $# : 2))
tests=("$@")
((${#tests[@]})) || tests=('^AudioPlayback\.' '^window\.audio_disk$' '^window\.stop_cycles$' 'AudioSync\.')
realtime='AudioPlayback|AudioSync|^window\.'
cd "$build"

# The load: the rest of the suite, two at a time, in a loop; its own process group.
setsid bash -c "while :; do ctest -j2 -E '$realtime' >/dev/null 2>&1; done" &
load=$!
trap 'kill -- -$load 2>/dev/null' EXIT
sleep 5  # the load under way

status=0
for t in "${tests[@]}"; do
  start=$SECONDS
  log=$(mktemp)
  ctest -R "$t" --repeat until-fail:"$n" --output-on-failure >"$log" 2>&1
  rc=$?
  tests_run=$(grep -oE 'tests passed, [0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
  if ((rc == 0)); then
    echo "$t: every test passed $n runs in a row ($((SECONDS - start)) s)"
  else
    status=1
    echo "$t: FAILED ($tests_run, $((SECONDS - start)) s); log kept: $log"
    grep -E 'Failure|Expected|FAIL|Which is' "$log" | head -20
    continue
  fi
  rm -f "$log"
done
exit $status
