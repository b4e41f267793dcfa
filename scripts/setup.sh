#!/usr/bin/env bash
# Installs every Debian 12 package vidproc's build, tests and tools need.
# Idempotent: one dpkg query when everything is present, apt-get only for what is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libavformat-dev libavcodec-dev libavdevice-dev libavfilter-dev libswscale-dev libswresample-dev libavutil-dev
  libsdl2-dev libepoxy-dev libimgui-dev
  libspdlog-dev libfmt-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  python3-dev python3-pybind11 libdlpack-dev python3-numpy python3-pytest python3-distributed libopencv-core-dev
  ffmpeg xvfb xauth xdotool x11-apps imagemagick
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: CUDA's nvcc not found (expected /usr/local/cuda/bin/nvcc); install the CUDA 13 toolkit" >&2
  exit 1
fi
