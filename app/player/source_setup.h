// From the options to the input: the source's options, its name in logs, and the host
// memory its frames are decoded into.
#pragma once

#include "gpu/processor.h"
#include "io/frame_queue.h"
#include "io/source.h"

#include <string>

namespace vp {

struct Options;

// Host memory for decoded frames: pinned (page-locked) for the CUDA backend so the
// uploads are asynchronous, plain otherwise.
HostAllocator frameAllocator(const Processor& processor);
SourceOptions sourceOptionsFrom(const Options& options);
// What to call the input in logs, the summary and the window title.
std::string inputDisplayName(const Options& options);

}  // namespace vp
