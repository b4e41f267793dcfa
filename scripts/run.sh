#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, then runs vidproc
# (with no arguments: its built-in default input). Arguments go to vidproc.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" vidproc
exec "${BUILD_DIR:-$root/build}/vidproc" "$@"
