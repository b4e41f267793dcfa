// Reading an input from a byte buffer instead of a file: a custom AVIOContext
// with read and seek over memory the context shares ownership of. Used by
// FfmpegSource when SourceOptions::memory is set (the fuzz target, tests).
#pragma once

#include "io/av_util.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace vp::av {

struct AvioDeleter {
  void operator()(AVIOContext* c) const;  // frees the context and its buffer
};
using AvioPtr = std::unique_ptr<AVIOContext, AvioDeleter>;

// A read-only, seekable AVIOContext over `bytes`. Set it as AVFormatContext::pb
// with AVFMT_FLAG_CUSTOM_IO; it must outlive the format context.
AvioPtr openMemoryInput(std::shared_ptr<const std::vector<uint8_t>> bytes);

}  // namespace vp::av
