#!/usr/bin/env bash
# Window playback with sound under Xvfb, through SDL's `disk` audio driver (no sound card):
#   audio_disk_test.sh VIDPROC OUT_DIR
# Plays a 10 s clip with a beep at each white flash while a control file seeks, pauses,
# resumes, halves the volume and mutes; then checks what the driver wrote (beeps loud,
# then half as loud, then silence) and the player's A-V figures in --stats-json
# (mean |A-V| below VP_AV_LIMIT_MS, 40 by default). Exit 77 (skip) without ffmpeg/python3.
# The commands go out by the sound the driver has played (the size of its file), not by
# wall time: a slow start or a loaded machine moves them with the playback.
set -euo pipefail
vidproc=$1
out=$2
for tool in ffmpeg python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -n "${DISPLAY:-}" ]] || { echo "FAIL: no DISPLAY (run through xvfb.sh)"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
limit=${VP_AV_LIMIT_MS:-40}

# 25 fps; flashes (2 white frames) and 50 ms 1 kHz beeps at 0.4, 1.4, ... 9.4 s.
ffmpeg -v error -y -f lavfi -i "color=black:s=160x120:r=25:d=10,geq=lum='if(lt(mod(N+15,25),2),235,16)':cb=128:cr=128,format=yuv420p" \
  -f lavfi -i "aevalsrc='if(lt(mod(t+0.6,1),0.05),0.8*sin(2*PI*1000*t),0)':s=48000:d=10" \
  -c:v libx264 -g 25 -c:a aac "$out/clip.mp4"

ctl="$out/control.txt"
echo "hud" >"$ctl"  # the HUD off: llvmpipe draws less
fail() { echo "FAIL: $*"; echo "--- vidproc output:"; cat "$out/vidproc.log" || true; exit 1; }

SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE="$out/disk.raw" \
  "$vidproc" "$out/clip.mp4" --backend cpu --mode none --control "$ctl" --stats-json "$out/stats.json" \
  >"$out/vidproc.log" 2>&1 &
pid=$!
# Sends a command once the driver has played $1 ms of sound (48 kHz mono float, silence
# while paused or seeking included), or at once if vidproc has ended.
at_heard() {
  local bytes=$(($1 * 192))
  while (($(stat -c %s "$out/disk.raw" 2>/dev/null || echo 0) < bytes)) && kill -0 "$pid" 2>/dev/null; do
    sleep 0.02
  done
  echo "$2" >>"$ctl"
}
# Media time 1.2 s: seek to 5 s; ~5.6 s pause for 0.5 s; ~7.1 s (before the flash at 7.4)
# volume 50; ~8.6 s mute: beeps at 0.4 loud, 5.4, 6.4 loud, 7.4, 8.4 half, 9.4 silent.
at_heard 1200 "seek 5"
at_heard 1800 "pause"
at_heard 2300 "pause off"
at_heard 3800 "volume 50"
at_heard 5300 "mute"
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill "$pid"; fail "vidproc did not end with its input"; }
wait "$pid" || fail "vidproc exited with status $?"
grep -q "audio: aac 48000 Hz mono -> disk" "$out/vidproc.log" || fail "no sound through the disk driver"

python3 - "$out" "$limit" <<'PY' || fail "checks above"
import json, struct, sys
out, limit = sys.argv[1], float(sys.argv[2])
raw = open(out + "/disk.raw", "rb").read()
samples = struct.unpack("<%df" % (len(raw) // 4), raw[: len(raw) // 4 * 4])
rate = 48000
beeps, quiet = [], rate
for i, s in enumerate(samples):
    loud = abs(s) > 0.05
    if loud and quiet > rate // 10:
        beeps.append([i / rate, 0.0])
    if loud:
        beeps[-1][1] = max(beeps[-1][1], abs(s))
    quiet = 0 if loud else quiet + 1
print("disk audio: %.2f s, beeps (s, peak): %s" % (len(samples) / rate, [(round(t, 3), round(p, 2)) for t, p in beeps]))
peaks = [p for _, p in beeps]
assert any(p > 0.7 for p in peaks), "no beep at full volume"
assert any(0.3 < p < 0.5 for p in peaks), "no beep at volume 50"
first_half = next(i for i, p in enumerate(peaks) if p < 0.5)
assert all(p < 0.5 for p in peaks[first_half:]), "a loud beep after volume 50"
tail = len(samples) / rate - beeps[-1][0]
assert tail > 1.2, "muted: %.2f s of silence at the end, expected > 1.2 s" % tail
stats = json.load(open(out + "/stats.json"))
a = stats["audio"]
print("a-v: mean %.1f ms, max %.1f ms over %d frames; underruns %d; frames dropped late %d"
      % (a["av_diff_mean_ms"], a["av_diff_max_ms"], a["av_diff_frames"], a["underruns"], stats["frames"]["dropped_late"]))
assert "disk" in a["stream"]
assert a["av_diff_frames"] > 50, "too few frames measured"
assert a["av_diff_mean_ms"] < limit, "mean |A-V| %.1f ms >= %.0f ms" % (a["av_diff_mean_ms"], limit)
PY
echo "PASS"
