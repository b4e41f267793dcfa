#!/usr/bin/env bash
# The Python module on the GPU machine: builds the extension there, against that machine's
# Python (3.12 with torch, CuPy and pybind11) and the bundle's libvidproc.so, then runs the
# Python tests and the Python benchmark. From a device bundle (scripts/gpu_bundle.sh):
#   (device, carry .gpu) scripts/gpu_python.sh .gpu "$OUT" [parts]
# parts: any of tests bench (default: both). Logs go to OUT.
set -uo pipefail
bundle=${1:-.gpu}; out=${2:-${OUT:-/tmp/vp-python}}; parts=${3:-"tests bench"}
has() { [[ " $parts " == *" $1 "* ]]; }
mkdir -p "$out"
[[ -f $bundle/bin.tar.xz && ! -d $bundle/bin ]] && tar -C "$bundle" -xJf "$bundle/bin.tar.xz"
"$bundle/run" build-server/tests/vp_make_clip > /dev/null 2>&1  # unpacks the bundle's libraries
libs=/tmp/gpu-bundle-lib-$(cat "$bundle/lib.sum")
py=${PYTHON:-python3}
site=/tmp/vp-python-site
rm -rf "$site" && mkdir -p "$site/vidproc"
cp app/python/vidproc/*.py "$site/vidproc/"
suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
echo "python: $("$py" --version) at $(command -v "$py"), pybind11 $("$py" -m pybind11 --version 2>&1)"
cuda=${CUDA_HOME:-/usr/local/cuda}
# shellcheck disable=SC2046  # pybind11 --includes is a list of flags
if ! g++ -O2 -std=c++17 -shared -fPIC -fvisibility=hidden app/python/module.cpp $("$py" -m pybind11 --includes) \
    -I"$bundle/include" -I"$cuda/include" "$libs/libvidproc.so.0.1" -L"$cuda/lib64" -lcudart_static -ldl -lrt -lpthread \
    -Wl,-rpath,"$libs" -o "$site/vidproc/_vidproc$suffix" > "$out/build.log" 2>&1; then
  echo "python: extension build failed"; tail -30 "$out/build.log"; exit 1
fi
export PYTHONPATH=$site LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PYTHONUNBUFFERED=1
export VP_VIDPROC="$(pwd)/$bundle/run build-server/vidproc" VP_MAKE_CLIP="$(pwd)/$bundle/run build-server/tests/vp_make_clip"
if has tests; then
  "$py" -m pytest -q -p no:cacheprovider tests/python 2>&1 | tee "$out/pytest.log" | tail -25
fi
if has bench; then
  # Decode + filter of a 4K HEVC clip: the program's rate, then vidproc.open's from Python.
  clip=/tmp/vp-4k-hevc.mkv
  [[ -f $clip ]] || "$bundle/run" build-server/tests/vp_make_clip $clip 3840 2160 ${VP_DECODE_FRAMES:-480} libx265 yuv420p 30 > /dev/null
  for rep in 1 2; do
    "$bundle/run" build-server/vidproc $clip --headless --no-progress --log-level warn --vf kmeans=k=8 \
      --stats-json "$out/cli-decode-$rep.json" > "$out/cli-decode-$rep.txt" 2>&1
    echo "cli decode + kmeans=k=8 ($rep): $(grep -E '^rate|^decode' "$out/cli-decode-$rep.txt" | tr '\n' ' ')"
  done
  VP_DECODE_CLIP=$clip "$py" tests/bench/peers/python_api.py 2>&1 | tee "$out/python_api.txt"
fi
