// A small device-to-device copy done by the SMs instead of a copy engine.
//
// Why: copy engines run transfers in submission order, so a few hundred bytes
// copied with cudaMemcpyAsync can wait behind a frame's multi-megabyte download
// issued earlier by another stream. The pipeline hands K-means centres from one
// frame to the next this way without waiting for any download.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace vp {

// Copies `bytes` (< 64 KiB, both pointers 16-byte aligned) on `stream`; checks the launch.
void copySmallOnDevice(void* dst, const void* src, size_t bytes, cudaStream_t stream);

}  // namespace vp
