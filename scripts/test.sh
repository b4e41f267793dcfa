#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the whole suite
# through ctest. GPU tests skip (with a reason) when no CUDA device is present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
