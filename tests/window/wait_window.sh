# Sourced by the window tests: wait_window PID NAME_REGEX prints the first visible window
# whose name matches, waiting as long as process PID runs, up to 60 s; it returns 1 (printing
# nothing) when PID exits first or the time runs out. The tests judge what the window shows,
# not how soon it maps: an ASan build beside other tests took over 10 s to map one.
wait_window() {
  local pid=$1 name=$2 win _
  for _ in $(seq 600); do
    win=$(xdotool search --onlyvisible --name "$name" 2>/dev/null | head -1 || true)
    [[ -n "$win" ]] && { echo "$win"; return 0; }
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
