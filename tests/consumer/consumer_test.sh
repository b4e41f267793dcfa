#!/usr/bin/env bash
# Installs this build (cmake --install) into a scratch prefix, then builds and runs
# tests/consumer against it, as a separate project would, and imports the installed
# Python module. Usage: consumer_test.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build=$(cd "$1" && pwd); here=$(cd "$(dirname "$0")" && pwd)
work=${2:-$(mktemp -d)}
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
"$work/build/consumer"
if [[ -x $work/build/opencv_example ]]; then "$work/build/opencv_example"; else echo "opencv_example: OpenCV core not installed, not built"; fi
site=$work/prefix/lib/python3/dist-packages
if [[ -d $site/vidproc ]]; then
  PYTHONPATH=$site /usr/bin/python3 -c '
import numpy as np, vidproc
img = np.arange(48 * 64 * 3, dtype=np.uint8).reshape(48, 64, 3)
out = vidproc.apply("kmeans=k=3", img)
assert out.shape == img.shape and len(np.unique(out.reshape(-1, 3), axis=0)) <= 3
print("python: installed module at", vidproc.__file__.rsplit("/", 2)[0], "ok")'
fi
