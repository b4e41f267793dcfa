#!/usr/bin/env bash
# Shutdown cycles: starts vidproc N times and stops each run at a random moment in
# one of these ways (taken in turn, so every N >= 6 covers all of them):
#   sigint, sigterm   the signal (exit 130)
#   quit              `quit` over the control channel while decoding (exit 0)
#   seek              `seek T` and `quit` in one write: quit lands mid-seek (exit 0)
#   pause             `pause`, a moment later `quit` or SIGINT (exit 0 / 130)
#   eos               a short clip runs to its end; sometimes `quit` races it (exit 0)
#   key               (--window only) the q key through xdotool (exit 0)
# Every run must end within VP_STOP_TIMEOUT seconds (else: deadlock, failure). Half
# of the headless runs encode to a file (ffv1 .mkv or H.264 .mp4), which must then decode
# with vidproc --decode-only to exactly the frames the run reported.
#
#   scripts/stop_cycles.sh [N=100] [--window]
# Environment: VP_BUILD (default build), VP_RUN (command prefix, e.g. ".gpu/run"),
# VP_BACKEND (default auto), VP_STOP_TIMEOUT (default 30), VP_STOP_OUT (work folder;
# default a temp folder, removed on success), VP_STOP_SEED (seed of the random ways,
# delays and outputs; default random, printed first: the same seed makes the same choices).
# A signal is sent only once vidproc's signal watcher is up (never before: a default
# action would end it with the same status 130), and a run ended by a signal must have
# written its summary and stats, which a process killed by the default action does not. --window runs the SDL player (needs
# $DISPLAY, e.g. under tests/window/xvfb.sh, and xdotool for the key way).
set -uo pipefail
n=${1:-100}
window=0
[[ "${2:-}" == --window ]] && window=1
build=${VP_BUILD:-build}
backend=${VP_BACKEND:-auto}
timeout_s=${VP_STOP_TIMEOUT:-30}
# shellcheck disable=SC2206
run=(${VP_RUN:-})
work=${VP_STOP_OUT:-$(mktemp -d /tmp/vp-stop.XXXXXX)}
seed=${VP_STOP_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
RANDOM=$seed  # bash reseeds $RANDOM in subshells: it is read only in this shell below
echo "stop cycles: seed $seed (VP_STOP_SEED=$seed repeats the choices)"
mkdir -p "$work"
ways=(sigint sigterm quit seek pause eos)
if ((window)); then
  [[ -n "${DISPLAY:-}" ]] || { echo "FAIL: --window needs a DISPLAY"; exit 1; }
  command -v xdotool >/dev/null 2>&1 && ways+=(key)
fi

"${run[@]}" "$build/tests/vp_make_clip" "$work/loop.mp4" 192 108 90 >/dev/null || { echo "FAIL: vp_make_clip"; exit 1; }
"${run[@]}" "$build/tests/vp_make_clip" "$work/short.mp4" 192 108 12 >/dev/null || { echo "FAIL: vp_make_clip"; exit 1; }

# A random delay in seconds, 0.000 .. $1 (milliseconds resolution), into $REPLY (not
# printed: a $(...) subshell would draw from a reseeded $RANDOM).
rand_delay() {
  local ms=$((RANDOM % ($1 * 1000 + 1)))
  printf -v REPLY '%d.%03d' $((ms / 1000)) $((ms % 1000))
}
json() { grep -m1 "\"$1\":" "$2" 2>/dev/null | sed 's/.*: *//; s/[",]//g'; }
# The signal watcher is up once the main thread blocks SIGINT and SIGTERM but not
# SIGHUP (glibc blocks everything for a moment while it creates a thread). Before
# that a signal meets its default action, which is not what this checks.
# Until it has exec'd, the pid is this shell's forked child, which bash starts with INT and
# TERM blocked (around fork): that mask is not vidproc's, and a signal then kills the child.
watching() {
  local mask
  [[ "$(readlink "/proc/$1/exe" 2>/dev/null)" != "$(readlink /proc/$$/exe)" ]] || return 1
  mask=$(awk '/^SigBlk:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [[ -n "$mask" ]] && (((0x$mask & 0x4003) == 0x4002))
}

passed=0 failed=0
declare -A tally
for ((i = 0; i < n; i++)); do
  way=${ways[i % ${#ways[@]}]}
  dir=$work/run$i
  mkdir -p "$dir"
  fifo=$dir/ctl
  mkfifo "$fifo"
  clip=$work/loop.mp4 args=(--loop)
  [[ $way == eos ]] && clip=$work/short.mp4 args=()
  ((window)) || args+=(--headless --no-progress)
  out=""
  if ((!window && RANDOM % 2)); then  # the window player writes no file
    out=$dir/out.mp4
    ((RANDOM % 2)) && out=$dir/out.mkv
    args+=(-o "$out" -y)
    [[ $out == *.mkv ]] && args+=(--codec ffv1)
  fi
  "${run[@]}" "$build/vidproc" "$clip" "${args[@]}" --backend "$backend" --control "$fifo" \
    --stats-json "$dir/stats.json" >"$dir/log" 2>&1 &
  pid=$!
  exec 3<>"$fifo"  # our writer: commands never block, vidproc's end is opened read-write anyway
  ready=0
  for _ in $(seq $((timeout_s * 100))); do
    watching "$pid" && { ready=1; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  rand_delay 2
  delay=$REPLY
  ((i == 1)) && delay=0  # the first sigterm lands while vidproc is still opening its input
  sleep "$delay"
  want=0 how=$way
  case $way in
    sigint) kill -INT "$pid"; want=130 ;;
    sigterm) kill -TERM "$pid"; want=130 ;;
    quit) echo quit >&3 ;;
    seek) rand_delay 2; printf 'seek %s\nquit\n' "$REPLY" >&3 ;;
    pause)
      echo pause >&3
      rand_delay 1
      sleep "$REPLY"
      if ((RANDOM % 2)); then kill -INT "$pid"; want=130 how="pause+sigint"; else echo quit >&3; how="pause+quit"; fi ;;
    eos) ((RANDOM % 2)) && { echo quit >&3; how="eos+quit"; } ;;
    key)
      # The window may take seconds to appear on a loaded machine: wait as long as a run may take.
      win=$(timeout "$timeout_s" xdotool search --sync --pid "$pid" --name "^vidproc" 2>/dev/null | head -n 1)
      [[ -n "$win" ]] && xdotool key --window "$win" q 2>/dev/null || true ;;  # closed before the key release: fine
  esac
  code=timeout
  for _ in $(seq $((timeout_s * 20))); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; code=$?; break; }
    sleep 0.05
  done
  exec 3>&-
  problem=""
  if ((!ready)); then
    [[ $code == timeout ]] && { kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    problem="the signal watcher was never up (exit $code)"
  elif [[ $code == timeout ]]; then
    kill -ABRT "$pid" 2>/dev/null; sleep 1; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    problem="did not end within ${timeout_s}s (deadlock?)"
  elif [[ $code != "$want" ]]; then
    problem="exit code $code, expected $want"
  elif [[ ! -s $dir/stats.json ]]; then
    problem="exit code $code but no stats written: killed rather than ended by itself"
  elif [[ -n "$out" ]]; then
    processed=$(json processed "$dir/stats.json")
    if [[ -z "$processed" ]]; then
      problem="no stats written"
    elif ((processed > 0)); then
      "${run[@]}" "$build/vidproc" "$out" --decode-only --no-progress --stats-json "$dir/decoded.json" \
        >"$dir/decode.log" 2>&1 || problem="output $out does not decode: $(tail -n 1 "$dir/decode.log")"
      decoded=$(json processed "$dir/decoded.json")
      [[ -z "$problem" && "$decoded" != "$processed" ]] && problem="output has $decoded frames, the run wrote $processed"
    fi
  fi
  if [[ -z "$problem" ]] && grep -qE '^\[(error|critical)\]|ERROR: (Address|Leak)Sanitizer|runtime error:' "$dir/log"; then
    problem="error in the log: $(grep -m1 -E '^\[(error|critical)\]|Sanitizer|runtime error:' "$dir/log")"
  fi
  key="$how"
  if [[ -z "$problem" ]]; then
    passed=$((passed + 1)) tally[$key]=$((${tally[$key]:-0} + 1))
    rm -rf "$dir"
  else
    failed=$((failed + 1))
    echo "FAIL run $i ($how after ${delay}s${out:+, output $out}; seed $seed): $problem; log $dir/log"
    tail -n 5 "$dir/log" | sed 's/^/    /'
  fi
done
summary=""
for k in $(printf '%s\n' "${!tally[@]}" | sort); do summary+=" $k=${tally[$k]}"; done
echo "stop cycles: $passed of $n passed ($( ((window)) && echo window || echo headless), backend $backend):$summary"
((failed == 0)) || { echo "failed runs kept in $work"; exit 1; }
rm -rf "$work"
