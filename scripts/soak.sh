#!/usr/bin/env bash
# Soak test: vidproc headless on a looping clip for DURATION seconds while a driver
# writes a random parameter change into its control FIFO every second; samples the
# process's resident memory (and its GPU memory, when nvidia-smi exists) every ~5 s.
# At the end: quit over the FIFO, then checks exit code 0, no error lines, frames
# processed > 0, and memory flat after warm-up; prints start/end/max figures.
#
#   scripts/soak.sh [DURATION=600]
# Environment:
#   VP_BUILD     build folder holding vidproc and tests/vp_make_clip (default: build)
#   VP_RUN       command prefix for the binaries, e.g. ".gpu/run" on the GPU machine
#                (then VP_BUILD is the path given to device-bundle.sh, e.g. build-server)
#   VP_BACKEND   auto | cuda | cpu (default: auto)
#   VP_SOAK_OUT  folder for the log, samples.csv and stats.json (default: a new temp folder)
#   VP_SOAK_CLIP clip size and frames, "W H FRAMES" (default: "1280 720 150")
#   VP_SOAK_SEED seed of the random parameter changes (default random; printed first, and
#                again on failure: the same seed sends the same commands)
#   VP_SOAK_RSS_SLACK_KB  allowed RSS growth from the warm-up sample to the end (default 32768;
#                with ASAN_OPTIONS set 327680: the sanitizer's quarantine)
# Needs only bash, coreutils and procps (no python): it runs on the GPU machine too.
set -uo pipefail
duration=${1:-${DURATION:-600}}
build=${VP_BUILD:-build}
backend=${VP_BACKEND:-auto}
out=${VP_SOAK_OUT:-$(mktemp -d /tmp/vp-soak.XXXXXX)}
read -r cw ch cframes <<<"${VP_SOAK_CLIP:-1280 720 150}"
# Under AddressSanitizer (ASAN_OPTIONS set, as the asan test preset does) freed blocks wait
# in its quarantine (256 MB by default) before reuse, so resident memory grows with
# allocation churn whatever the program does; LeakSanitizer checks for leaks there instead.
slack_default=32768
[[ -n "${ASAN_OPTIONS:-}" ]] && slack_default=$((320 * 1024))
slack_kb=${VP_SOAK_RSS_SLACK_KB:-$slack_default}
sample_s=5
warmup_s=10  # allocations settle after the first frames of each mode (short runs: half the run)
((warmup_s > duration / 2)) && warmup_s=$((duration / 2))
# shellcheck disable=SC2206
run=(${VP_RUN:-})
mkdir -p "$out"
seed=${VP_SOAK_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
RANDOM=$seed  # read only in this shell (bash reseeds $RANDOM in subshells)
echo "soak: seed $seed (VP_SOAK_SEED=$seed repeats the commands)"
log=$out/vidproc.log csv=$out/samples.csv stats=$out/stats.json fifo=$out/control.fifo
fail() { echo "FAIL: $* (seed $seed)"; echo "--- last lines of $log:"; tail -n 20 "$log" 2>/dev/null; exit 1; }

clip=$out/soak.mp4
"${run[@]}" "$build/tests/vp_make_clip" "$clip" "$cw" "$ch" "$cframes" >/dev/null || fail "vp_make_clip failed"
rm -f "$fifo"; mkfifo "$fifo"

"${run[@]}" "$build/vidproc" "$clip" --loop --headless --no-progress --backend "$backend" \
  --control "$fifo" --stats-json "$stats" >"$log" 2>&1 &
launcher=$! pid=$!
# A wrapper that does not exec leaves vidproc as its child: sample that one.
for _ in $(seq 50); do
  [[ "$(cat /proc/$pid/comm 2>/dev/null)" == vidproc ]] && break
  child=$(pgrep -x -P "$pid" vidproc | head -n 1) && [[ -n "$child" ]] && { pid=$child; break; }
  sleep 0.1
done
# Hold a writer open for the whole run (fd 3): writes never block on a missing reader.
exec 3<>"$fifo"

gpu_mib() {  # this process's GPU memory in MiB; empty without nvidia-smi
  command -v nvidia-smi >/dev/null 2>&1 || return 0
  # In a container nvidia-smi may report host pids: then take the sum over all
  # compute processes (the soak is meant to be the only one).
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
    awk -F', *' -v p="$pid" '{ all += $2 } $1 == p { mine = $2; found = 1 } END { if (NR) print found ? mine : all }'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null; }

modes=(kmeans blur none) borders=(zero replicate reflect wrap)
random_command() {  # called without a subshell, so $RANDOM follows the seed
  case $((RANDOM % 8)) in
    0) echo "mode ${modes[RANDOM % 3]}" ;;
    1 | 2) echo "k $((2 + RANDOM % 31))" ;;
    3 | 4) echo "radius $((RANDOM % 101))" ;;
    5) echo "passes $((1 + RANDOM % 3))" ;;
    6) echo "border ${borders[RANDOM % 4]}" ;;
    7) echo "iterations $((1 + RANDOM % 30))" ;;
  esac
}

echo "t_s,rss_kb,gpu_mib" >"$csv"
echo "soak: pid $pid, ${duration}s on $clip (${cw}x${ch}, $cframes frames, looped), backend $backend; output in $out"
start=$(date +%s)
commands=0 next_sample=0
while :; do
  now=$(($(date +%s) - start))
  ((now >= duration)) && break
  kill -0 "$pid" 2>/dev/null || fail "vidproc ended early after ${now}s"
  if ((now >= next_sample)); then
    echo "$now,$(rss_kb),$(gpu_mib)" >>"$csv"
    next_sample=$((now + sample_s))
  fi
  random_command >&3
  commands=$((commands + 1))
  # Every 30 s also a seek, back to the start of the loop.
  ((commands % 30 == 0)) && { echo "seek 0" >&3; commands=$((commands + 1)); }
  sleep 1
done
echo "$duration,$(rss_kb),$(gpu_mib)" >>"$csv"
echo quit >&3
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "vidproc did not quit within 30 s"; }
wait "$launcher"
code=$?
exec 3>&-

# Figures. stats.json is pretty-printed: one "key": value per line.
json() { grep -m1 "\"$1\":" "$stats" | sed 's/.*: *//; s/[",]//g'; }
processed=$(json processed) decode_errors=$(json decode_errors) fps=$(json fps)
depth_max=$(json depth_max) depth_mean=$(json depth_mean) capacity=$(json capacity)
received=$(json commands) rejected=$(json rejected)
summary() {  # column $1 of the samples: start, end, max, and the first value after warm-up
  awk -F, -v c="$1" -v w="$warmup_s" '
    NR > 1 && $c != "" { v = $c + 0; if (!n++) s = v; e = v; if (v > m) m = v; if (wv == "" && $1 >= w) wv = v }
    END { if (n) printf "%d %d %d %d", s, e, m, (wv == "" ? s : wv) }' "$csv"
}
read -r rss0 rss1 rssmax rsswarm <<<"$(summary 2)"
read -r gpu0 gpu1 gpumax gpuwarm <<<"$(summary 3)"
echo "samples    $(($(wc -l <"$csv") - 1)) in $csv"
echo "commands   $commands sent, $received received, $rejected rejected"
echo "frames     $processed processed, $fps frames/s, decode errors $decode_errors"
echo "queue      capacity $capacity, depth mean $depth_mean, max $depth_max"
echo "rss KiB    start $rss0, after ${warmup_s}s $rsswarm, end $rss1, max $rssmax"
[[ -n "$gpu0" ]] && echo "gpu MiB    start $gpu0, after ${warmup_s}s $gpuwarm, end $gpu1, max $gpumax"

((code == 0)) || fail "exit code $code"
grep -qiE '^\[(error|critical)\]|^vidproc:' "$log" && fail "error lines in the log: $(grep -iE '^\[(error|critical)\]|^vidproc:' "$log" | head -n 3)"
[[ "${processed:-0}" -gt 0 ]] || fail "no frames processed"
[[ "${decode_errors:-0}" -eq 0 ]] || fail "$decode_errors decode errors"
[[ "${rejected:-0}" -eq 0 ]] || fail "$rejected control commands rejected"
((received >= commands)) || fail "only $received of $commands commands received"
((rss1 - rsswarm <= slack_kb)) || fail "resident memory grew by $((rss1 - rsswarm)) KiB after warm-up"
[[ -z "$gpu0" || "$gpu1" -le "$gpuwarm" ]] || fail "GPU memory grew from $gpuwarm to $gpu1 MiB after warm-up"
echo "PASS: soak of ${duration}s"
