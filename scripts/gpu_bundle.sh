#!/usr/bin/env bash
# Builds the headless server binaries (no SDL2, libavdevice, libavfilter) and packs
# them with the libraries the GPU machine lacks into OUT (default .gpu), binaries
# xz-compressed so the four fit the 64 MiB the device tool carries:
#   scripts/gpu_bundle.sh [OUT]
#   (device, carry [OUT]) scripts/gpu_sweep.sh OUT build-server "$OUT"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-.gpu}
cd "$root"
BUILD_DIR=$root/build-server VP_CMAKE_ARGS="-DVP_WITH_WINDOW=OFF -DVP_WITH_DEVICES=OFF -DVP_PYTHON=OFF" \
  VP_CUDA_ARCHS=${VP_CUDA_ARCHS:-90} ./scripts/build.sh vidproc vp_tests vp_bench vp_make_clip vp_lib
../shared/tools/device-bundle.sh "$out" build-server/vidproc build-server/tests/vp_tests build-server/tests/vp_bench \
  build-server/tests/vp_make_clip
# The library's header and DLPack's, for building the Python extension there
# (scripts/gpu_python.sh; libvidproc.so travels as the tests' library).
rm -rf "$out/include" && mkdir -p "$out/include/vidproc" "$out/include/dlpack"
cp app/api/vidproc.h "$out/include/vidproc/"
cp /usr/include/dlpack/dlpack.h "$out/include/dlpack/"
# One xz block with a 64 MiB dictionary: the binaries share most of their device code, so
# the window that spans them packs the four into ~7 MB where the default (8 MiB) left ~17.
XZ_OPT='-9 -T1' tar -C "$out" -cJf "$out/bin.tar.xz" bin
rm -rf "$out/bin"
du -sh "$out"
