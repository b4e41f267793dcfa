#!/usr/bin/env bash
# Adds another commit's headless vp_bench, vp_tests and vidproc to a device bundle made by
# scripts/gpu_bundle.sh, as bin/base/vp_bench, bin/base/vp_tests and bin/base/vidproc, so that on the device
# ".gpu/run base/vp_bench" (scripts/bench_ab.sh) and ".gpu/run base/vidproc"
# (scripts/pipeline_ab.sh) run it beside the bundle's own build:
#   scripts/gpu_bundle_base.sh COMMIT [OUT]     (OUT default .gpu)
# VP_BASE_BINS="vp_bench" adds only those (the carried tree must stay under 64 MiB).
# Builds in a git worktree under /tmp (kept: a second run is incremental). The base
# binaries use the libraries the bundle already carries.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
(($#)) || { sed -n 2,8p "$0"; exit 2; }
commit=$(git -C "$root" rev-parse --verify "$1^{commit}")
out=$(cd "${2:-.gpu}" && pwd)
[[ -f $out/bin.tar.xz ]] || { echo "gpu_bundle_base: no $out/bin.tar.xz; run scripts/gpu_bundle.sh first" >&2; exit 1; }
bins=${VP_BASE_BINS:-vp_bench vp_tests vidproc}
tree=/tmp/vp-base-worktree
if [[ -d $tree ]]; then
  git -C "$tree" checkout -q --detach "$commit"
else
  git -C "$root" worktree prune  # a worktree of an earlier machine's /tmp is still registered
  git -C "$root" worktree add -q --detach "$tree" "$commit"
fi
BUILD_DIR=$tree/build-server VP_CMAKE_ARGS="-DVP_WITH_WINDOW=OFF -DVP_WITH_DEVICES=OFF" \
  VP_CUDA_ARCHS=${VP_CUDA_ARCHS:-90} "$tree/scripts/build.sh" $bins
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
tar -C "$staging" -xJf "$out/bin.tar.xz"
rm -rf "$staging/bin/base" && mkdir -p "$staging/bin/base"
for b in $bins; do cp "$tree/build-server/$([[ $b == vidproc ]] || echo tests/)$b" "$staging/bin/base/"; done
XZ_OPT='-9 -T1' tar -C "$staging" -cJf "$out/bin.tar.xz" bin  # one block, as gpu_bundle.sh: both builds share most bytes
echo "added $(git -C "$root" log --oneline -1 "$commit") as base/ to $out/bin.tar.xz"
du -sh "$out"
