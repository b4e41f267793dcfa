// Internal to the clip makers (clips.cpp, clips_audio.cpp): their errors, the output
// file and the muxing of an encoder's packets. Tests use clips.h.
#pragma once

#include "io/av_util.h"

#include <cstdint>
#include <memory>
#include <string>

namespace vp::test::mux {

// Throws std::runtime_error("clips: what (libav's text for err)").
[[noreturn]] void fail(const std::string& what, int err = 0);
// fail(what, r) when r is a libav error.
void check(int r, const std::string& what);

struct OutputCloser {
  void operator()(AVFormatContext* c) const;
};
using OutputPtr = std::unique_ptr<AVFormatContext, OutputCloser>;

// An output context for `path`, its container chosen by the extension (not yet opened).
OutputPtr openOutput(const std::string& path);

// Sends `frame` (null: flush) to `enc` and muxes the packets that come out into `st`,
// their timestamps `offsetUs` later (a stream that starts after the others).
void writePackets(AVCodecContext* enc, const AVFrame* frame, AVFormatContext* oc, AVStream* st,
                  int64_t offsetUs = 0);

}  // namespace vp::test::mux
