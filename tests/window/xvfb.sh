#!/usr/bin/env bash
# Runs a command on a private Xvfb server (24-bit 1280x800 screen; Mesa llvmpipe for GL):
#   xvfb.sh COMMAND [ARGS...]   ==   xvfb-run -a -s "-screen 0 1280x800x24" COMMAND [ARGS...]
# Exits 77 (ctest SKIP_RETURN_CODE) when xvfb-run is not installed.
set -euo pipefail
# Listing a GoogleTest binary's tests (ctest's discovery at build time) needs no display.
for arg in "$@"; do [[ "$arg" == --gtest_list_tests ]] && exec "$@"; done
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIP: xvfb-run not installed (Debian package xvfb)"
  exit 77
fi
# Software GL whatever the host has: the tests check pixels, not speed.
export LIBGL_ALWAYS_SOFTWARE=1
exec xvfb-run -a -s "-screen 0 1280x800x24" "$@"
