// One fuzz input through vidproc's input side: bytes -> in-memory source ->
// at most kMaxFrames decoded frames -> the CPU backend (convert, K-means, box
// blur with small parameters) -> invariants of every output. Shared by the
// libFuzzer target (vp_fuzz) and the plain replay driver (vp_fuzz_replay).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vp::fuzz {

constexpr int kMaxFrames = 6;                // frames processed per input
constexpr int64_t kMaxPixels = 256 * 256;    // larger frames are refused by the source
constexpr size_t kMaxAllocBytes = 64 << 20;  // libav's largest single allocation

// Once per process: quiet logs, one OpenMP thread, libav's allocation cap.
void initialize();

// Runs one input. Inputs that are not videos are fine (the source refuses
// them); a broken invariant prints what broke and aborts.
void runOne(const uint8_t* data, size_t size);

}  // namespace vp::fuzz
