#!/usr/bin/env bash
# Glass-to-glass latency of vidproc, ffplay and mpv, measured the same way for each
# (tests/latency/README.md): a sender encodes barcoded frames live to UDP MPEG-TS, the
# player shows them in a 1280x720 window at 0,0 on a private Xvfb screen, and a probe
# grabs the screen and reads which frame is up; latency = first grab showing frame N -
# the time N was captured. One table row per player and frame rate.
#
#   scripts/latency.sh [--seconds 60] [--fps "30 60"] [--players "vidproc vidproc-kmeans ffplay mpv"]
#                      [--out DIR] [--skip S] [--probe-fps 113] [--end-aud on|off] [--pause "AT FOR"]
# Players: vidproc (--vf none), vidproc-kmeans (--vf kmeans=k=6), vidproc-normal (--vf none
# --latency normal: the stream buffered and paced like a file), ffplay and mpv with their
# low-latency settings.
# --skip: seconds of warm-up left out of the figures (default 2/5 of the run, 10 at most).
# --probe-fps: screen grabs a second; no multiple of the frame rate, so grabs sweep every phase
# of the frames instead of locking to one (a fixed bias of up to a grab period per run).
# --end-aud off: frames as a plain MPEG-TS sender makes them, which FFmpeg-based players hold
# for one frame period (see vp_latency_send).
# --pause "AT FOR": the sender stops AT seconds in for FOR seconds, then goes on (vidproc runs
# with --reconnect); each row then says how soon after the stream returned frames were shown
# as early as before, and the latency from 2 s after it on.
# Environment:
#   VP_BUILD          build folder (default: build); the tools are built there with scripts/build.sh
#   VP_LATENCY_SEND, VP_LATENCY_PROBE, VIDPROC   paths of the programs (a program given is not built)
#   VP_BACKEND        vidproc's --backend (default: cuda when nvidia-smi sees a GPU, else cpu)
# A player that fails to start or dies is reported as failed with its log's tail; the
# others still run. Logs, screenshots and results.txt stay in the output folder.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmdline="$0 $*"
seconds=60 fps_list="30 60" players="vidproc vidproc-kmeans ffplay mpv" out="" skip="" probe_fps=113 end_aud=on
pause=""
usage() {
  echo "usage: scripts/latency.sh [--seconds 60] [--fps \"30 60\"] [--players \"vidproc vidproc-kmeans ffplay mpv\"]" \
    "[--out DIR] [--skip S] [--probe-fps 113] [--end-aud on|off] [--pause \"AT FOR\"]" >&2
  exit 2
}
die() { echo "latency: $*" >&2; exit 1; }
while (($#)); do
  case $1 in
    --seconds | --fps | --players | --out | --skip | --probe-fps | --end-aud | --pause) ;;
    *) echo "latency: unknown option $1" >&2; usage ;;
  esac
  [[ $# -ge 2 ]] || { echo "latency: $1 needs a value" >&2; usage; }
  case $1 in
    --seconds) seconds=$2 ;;
    --fps) fps_list=$2 ;;
    --players) players=$2 ;;
    --out) out=$2 ;;
    --skip) skip=$2 ;;
    --probe-fps) probe_fps=$2 ;;
    --end-aud) end_aud=$2 ;;
    --pause) pause=$2 ;;
  esac
  shift 2
done
within() { [[ "$1" =~ ^[0-9]+$ ]] && (($1 >= $2 && $1 <= $3)); }  # within N LOW HIGH: a whole number in range
within "$seconds" 15 86400 || die "--seconds wants a whole number, 15..86400"
# Warm-up: 2/5 of the run, 10 s at most (mpv starts ~0.3 s behind at 60 fps and takes ~7 s to catch up).
skip=${skip:-$((seconds * 2 / 5 < 10 ? seconds * 2 / 5 : 10))}
within "$skip" 0 $((seconds / 2 - 1)) || die "--skip wants a whole number below half of --seconds"
within "$probe_fps" 10 500 || die "--probe-fps wants 10..500"
[[ $end_aud == on || $end_aud == off ]] || die "--end-aud wants on or off"
for f in $fps_list; do within "$f" 1 120 || die "--fps: $f is not 1..120"; done
pause_args=()
if [[ -n "$pause" ]]; then
  read -r pause_at pause_for extra <<<"$pause"
  within "${pause_at:-x}" 1 86400 && within "${pause_for:-x}" 1 3600 && [[ -z "${extra:-}" ]] &&
    ((pause_at >= skip + 5 && pause_at + pause_for + 5 <= seconds)) ||
    die "--pause wants \"AT FOR\" in whole seconds, 5 s after the warm-up ($skip s) at least and 5 s before the end"
  pause_args=(--pause-at "$pause_at" --pause-for "$pause_for")
fi
[[ -n "${fps_list// /}" ]] || die "--fps is empty"
want_vidproc=0 packages=(xvfb)
for p in $players; do
  case $p in
    vidproc | vidproc-kmeans | vidproc-normal) want_vidproc=1 ;;
    ffplay) packages+=(ffmpeg) ;;
    mpv) packages+=(mpv) ;;
    *) die "unknown player $p (vidproc, vidproc-kmeans, vidproc-normal, ffplay, mpv)" ;;
  esac
done
[[ -n "${players// /}" ]] || die "--players is empty"

# Packages: one dpkg query when all are there, apt-get only for what is missing (as setup.sh).
missing=()
for p in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "latency: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } ||
    die "could not install ${missing[*]}"
fi

out=${out:-$(mktemp -d /tmp/vp-latency.XXXXXX)}
mkdir -p "$out" || die "cannot make $out"
out=$(cd "$out" && pwd)
echo "latency: results in $out"

# The tools: given paths, else built (incrementally) in VP_BUILD.
build=${VP_BUILD:-$root/build}
send=${VP_LATENCY_SEND:-$build/vp_latency_send}
probe=${VP_LATENCY_PROBE:-$build/vp_latency_probe}
vidproc=${VIDPROC:-$build/vidproc}
targets=()
[[ -n "${VP_LATENCY_SEND:-}" ]] || targets+=(vp_latency_send)
[[ -n "${VP_LATENCY_PROBE:-}" ]] || targets+=(vp_latency_probe)
((want_vidproc)) && [[ -z "${VIDPROC:-}" ]] && targets+=(vidproc)
if ((${#targets[@]})); then
  "$root/scripts/setup.sh" || die "scripts/setup.sh could not install the build's packages"
  echo "latency: building ${targets[*]} in $build"
  BUILD_DIR=$build "$root/scripts/build.sh" "${targets[@]}" >"$out/build.log" 2>&1 ||
    { tail -n 20 "$out/build.log" >&2; die "build failed (log: $out/build.log)"; }
fi
[[ -x "$send" ]] || die "no sender at $send"
[[ -x "$probe" ]] || die "no probe at $probe"
backend=${VP_BACKEND:-cpu}
[[ -z "${VP_BACKEND:-}" ]] && nvidia-smi -L >/dev/null 2>&1 && backend=cuda

# Every child runs in its own session (setsid), so stopping its process group leaves no
# strays; the trap stops whatever is still running, the X server last.
pgids=()
stop_group() {  # stop_group PGID: SIGINT (vidproc's clean exit), then TERM, then KILL
  local pg=$1 sig
  for sig in INT TERM KILL; do
    kill -s "$sig" -- "-$pg" 2>/dev/null || return 0
    for _ in $(seq 50); do
      kill -0 -- "-$pg" 2>/dev/null || return 0
      sleep 0.1
    done
  done
}
nap() {  # nap SECONDS: a sleep that a signal to this script cuts short (wait returns at once)
  sleep "$1" &
  nap_pid=$!
  wait "$nap_pid"
}
finish() {  # finish PID SECONDS: its exit status, once it ends; stopped if it outlasts SECONDS
  local _
  for _ in $(seq $(($2 * 10))); do
    kill -0 "$1" 2>/dev/null || break
    nap 0.1
  done
  kill -0 "$1" 2>/dev/null && { stop_group "$1"; return 1; }
  wait "$1"
}
cleanup() {
  local pg
  [[ -n "${nap_pid:-}" ]] && kill "$nap_pid" 2>/dev/null
  for pg in "${pgids[@]}"; do stop_group "$pg"; done
  [[ -n "${xvfb:-}" ]] && stop_group "$xvfb"
}
trap cleanup EXIT
trap 'echo "latency: interrupted" >&2; exit 130' INT TERM
start() {  # start LOG CMD...: CMD in its own session, output to LOG; its pid in $REPLY
  setsid "${@:2}" >"$1" 2>&1 </dev/null &
  REPLY=$!
  pgids+=("$REPLY")
}

# A private X server on a free display (-displayfd: Xvfb picks it and says when it is up).
xvfb_fd=$out/xvfb.display
: >"$xvfb_fd"
setsid Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp 3>"$xvfb_fd" >"$out/xvfb.log" 2>&1 </dev/null &
xvfb=$!
for _ in $(seq 100); do [[ -s "$xvfb_fd" ]] && break; kill -0 "$xvfb" 2>/dev/null || break; sleep 0.1; done
[[ -s "$xvfb_fd" ]] || { tail -n 5 "$out/xvfb.log" >&2; die "Xvfb did not start"; }
DISPLAY=":$(head -n 1 "$xvfb_fd")"
export DISPLAY SDL_AUDIODRIVER=dummy XDG_RUNTIME_DIR=$out/xdg  # XDG_RUNTIME_DIR: players warn without it
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

player_command() {  # player_command NAME URL DIR: the player's command line into cmd
  case $1 in
    vidproc | vidproc-kmeans | vidproc-normal)
      local vf=none
      [[ $1 == vidproc-kmeans ]] && vf=kmeans=k=6
      cmd=("$vidproc" "$2" --geometry 1280x720+0+0 --no-hud --vf "$vf" --log-level warn --backend "$backend"
           --stats-json "$3/stats.json")
      [[ $1 == vidproc-normal ]] && cmd+=(--latency normal)  # buffered and paced like a file
      [[ -n "$pause" ]] && cmd+=(--reconnect) ;;
    ffplay)
      cmd=(ffplay -hide_banner -loglevel warning -fflags nobuffer -flags low_delay -framedrop -probesize 32
           -sync ext -an -x 1280 -y 720 -left 0 -top 0 -noborder "$2") ;;
    mpv)
      cmd=(mpv --no-config --profile=low-latency --untimed --no-audio --hwdec=no --geometry=1280x720+0+0
           --no-border --no-osc --osd-level=0 --really-quiet "$2") ;;
  esac
}
internal_latency() {  # internal_latency LOG: "p50/p99" of vidproc's own summary line, or -
  local v
  v=$(sed -n 's|^latency *p50 \([0-9.]*\) ms, p95 [0-9.]*, p99 \([0-9.]*\),.*|\1/\2|p' "$1" 2>/dev/null | tail -n 1)
  echo "${v:--}"
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# CPU time of the whole machine and of the run's own processes, in clock ticks: what is
# left is other load (or a hypervisor's steal), which stalls everything on a small machine.
cpu_sample() {  # cpu_sample PLAYER_PID PID...: "uptime_s busy_ticks own_ticks player_ticks"
  local p t own=0 player=""
  for p; do
    t=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $12 + $13 }')  # utime + stime
    own=$((own + ${t:-0}))
    player=${player:-${t:-0}}
  done
  echo "$(cut -d' ' -f1 /proc/uptime) $(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat) $own $player"
}
cpu_use() {  # cpu_use SAMPLE0 SAMPLE1: "player% other%": the player's in % of one CPU, others' in % of all
  awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" -v cpus="$(nproc)" 'BEGIN {
    split(a, x, " "); split(b, y, " "); ticks = (y[1] - x[1]) * hz
    other = 100 * ((y[2] - x[2]) - (y[3] - x[3])) / (ticks * cpus)
    printf "%.0f %.0f", 100 * (y[4] - x[4]) / ticks, other < 0 ? 0 : other }'
}

rows=() failures=()
port=$((23000 + RANDOM % 2000 * 10))
run_one() {  # run_one FPS PLAYER
  local fps=$1 name=$2 dir="$out/$2-$1fps" url pid send_pid probe_pid status=ok line
  mkdir -p "$dir"
  port=$((port + 1))
  url=udp://127.0.0.1:$port
  player_command "$name" "$url" "$dir"
  echo "latency: $name at $fps fps ($url, $seconds s)"
  printf '%q ' "${cmd[@]}" >"$dir/command.txt"
  start "$dir/player.log" "${cmd[@]}"
  pid=$REPLY
  nap 1.5  # the player opens its window and its input
  if ! kill -0 "$pid" 2>/dev/null; then
    failures+=("$name $fps fps: did not start; last lines of $dir/player.log:"$'\n'"$(tail -n 5 "$dir/player.log")")
    rows+=("$(printf '%-15s %4s  %s' "$name" "$fps" "FAILED to start")")
    return
  fi
  start "$dir/send.out" "$send" --url "$url" --size 640x360 --fps "$fps" --seconds "$seconds" \
    --end-aud "$end_aud" --log "$dir/send.log" "${pause_args[@]}"
  send_pid=$REPLY
  nap 1
  # The probe runs 2 s past the last frame sent, so the last frames have time to show.
  start "$dir/probe.out" "$probe" --display "$DISPLAY" --region 1280x720+0+0 --fps "$probe_fps" \
    --seconds $((seconds + 1)) --out "$dir/seen.log"
  probe_pid=$REPLY
  local sample cpu
  sample=$(cpu_sample "$pid" "$send_pid" "$probe_pid" "$xvfb")
  nap $((seconds - 1))  # while all of them run
  read -r -a cpu <<<"$(cpu_use "$sample" "$(cpu_sample "$pid" "$send_pid" "$probe_pid" "$xvfb")")"
  finish "$probe_pid" 10 || status="probe failed: $(tail -n 1 "$dir/probe.out")"
  finish "$send_pid" 5 || status="sender failed: $(tail -n 1 "$dir/send.out")"
  kill -0 "$pid" 2>/dev/null || status="player exited early"
  if command -v xwd >/dev/null && command -v convert >/dev/null; then  # the last frame, for a look
    xwd -root -silent -display "$DISPLAY" 2>/dev/null | convert xwd:- "$dir/screen.png" 2>/dev/null
  fi
  stop_group "$pid"
  line=$("$probe" --analyze "$dir/send.log" "$dir/seen.log" --skip "$skip" --label "$name-${fps}fps" 2>&1 |
    tee "$dir/analysis.txt" | grep '^latency:')
  [[ $status == ok && "$line" == *" shown=0 "* ]] && status="nothing seen on screen"
  if [[ $status != ok ]]; then
    failures+=("$name $fps fps: $status; last lines of $dir/player.log:"$'\n'"$(tail -n 5 "$dir/player.log")")
  fi
  local internal=- note="" late
  late=$(sed -n 's/.*, \([0-9]*\) dropped late.*/\1/p' "$dir/send.out")
  [[ ${late:-0} -gt 0 ]] && note="sender dropped $late late"
  [[ $status != ok ]] && note=$status
  if [[ "$line" == *" gap_s="* ]]; then
    note="${note:+$note; }after a $(field gap_s "$line") s pause: as early as before in"
    note+=" $(field recovery_ms "$line") ms, then p50 $(field after_p50_ms "$line") p99 $(field after_p99_ms "$line")"
  fi
  [[ $name == vidproc* ]] && internal=$(internal_latency "$dir/player.log")
  if [[ -z "$line" ]]; then
    rows+=("$(printf '%-15s %4s  %s' "$name" "$fps" "no result: $(tail -n 1 "$dir/analysis.txt")")")
    return
  fi
  rows+=("$(printf '%-15s %4s %7s %7s %7s %7s %6s %6s %7s %11s %5s %6s  %s' "$name" "$fps" "$(field p50_ms "$line")" \
    "$(field p95_ms "$line")" "$(field p99_ms "$line")" "$(field max_ms "$line")" "$(field shown "$line")" \
    "$(field never "$line")" "$(field growth_ms "$line")" "$internal" "${cpu[0]}" "${cpu[1]}" "$note")")
}

header=$(
  echo "# $cmdline"
  echo "# $(date -u '+%F %T UTC'), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
  echo "# sender 640x360 H.264 ultrafast/zerolatency, end-aud $end_aud; probe $probe_fps grabs/s; skip $skip s;" \
    "vidproc backend $backend"
  echo "# latency ms from capture (sender's stamp) to the first screen grab showing the frame;"
  echo "# growth = p50 of the last 10 s - p50 of the first 10 s (halves in shorter runs);"
  echo "# internal = vidproc's own p50/p99, packet arrival -> shown (its summary; stats.json has the breakdown);"
  echo "# cpu% = the player's CPU (100 = one CPU); other% = CPU taken by anything but this run (other load,"
  echo "# steal) in % of all CPUs: keep it near 0"
  printf '%-15s %4s %7s %7s %7s %7s %6s %6s %7s %11s %5s %6s\n' player fps p50 p95 p99 max shown never growth \
    internal cpu% other%
)
for fps in $fps_list; do
  for name in $players; do run_one "$fps" "$name"; done
done
{
  echo "$header"
  printf '%s\n' "${rows[@]}"
  for f in "${failures[@]}"; do echo "FAILED $f"; done
} | tee "$out/results.txt"
echo "latency: logs and screenshots in $out"
