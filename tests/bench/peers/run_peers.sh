#!/usr/bin/env bash
# The peers of the filter benchmarks, on the GPU machine (NPP and PyTorch are there, not on
# a Debian build machine): builds npp_filters.cu with the machine's nvcc and runs it, then
# torch_filters.py. Output: one line per case; docs/benchmarks.md puts them beside
# vp_bench's BM_GaussGpu, BM_MedianGpu and BM_EdgesGpu.
#   tests/bench/peers/run_peers.sh [BUILD_DIR]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-/tmp/vp-peers}
mkdir -p "$build"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if "$nvcc" -O2 -std=c++17 -arch=sm_90 "$here/npp_filters.cu" -o "$build/npp_filters" -lnppif -lnppicc -lnppc 2> "$build/nvcc.log"; then
  "$build/npp_filters"
else
  echo "npp: build failed"; tail -20 "$build/nvcc.log"
fi
python3 "$here/torch_filters.py" || echo "torch: failed"
