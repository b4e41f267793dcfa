#!/usr/bin/env bash
# Configures (once) and builds vidproc incrementally: scripts/build.sh [TARGET...]
#   BUILD_DIR   build folder (default: build)
#   VP_CUDA_ARCHS  CUDA architectures, e.g. "90" (default: Turing..Hopper, see CMakeLists.txt)
#   VP_CMAKE_ARGS  extra CMake arguments
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
args=(-G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release})
[[ -n "${VP_CUDA_ARCHS:-}" ]] && args+=("-DCMAKE_CUDA_ARCHITECTURES=$VP_CUDA_ARCHS")
# shellcheck disable=SC2206
[[ -n "${VP_CMAKE_ARGS:-}" ]] && args+=($VP_CMAKE_ARGS)
if [[ ! -f "$build/build.ninja" || -n "${VP_CUDA_ARCHS:-}${VP_CMAKE_ARGS:-}" ]]; then
  cmake -S "$root" -B "$build" "${args[@]}" >/dev/null
fi
jobs=${VP_JOBS:-$(nproc)}
# Arguments name targets (default: all).
targets=()
(($#)) && targets=(--target "$@")
cmake --build "$build" -j "$jobs" "${targets[@]}"
