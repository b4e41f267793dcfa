// Internal to the clip makers: the audio stream of a clip being written (clips.cpp's
// makeClip, makeAudioOnly). Tests use clips.h.
#pragma once

#include "io/av_util.h"
#include "support/clips.h"

#include <cstdint>

namespace vp::test {

// An encoder for AudioSpec's sound and its stream in a file being written: created before
// the file's header, fed in step with the video so the muxer interleaves little.
class ClipAudioTrack {
 public:
  // Adds the stream to `oc` with its encoder open; `videoSeconds`: the length of the video
  // beside it (the default length).
  ClipAudioTrack(AVFormatContext* oc, const AudioSpec& spec, double videoSeconds);
  ClipAudioTrack(const ClipAudioTrack&) = delete;
  ClipAudioTrack& operator=(const ClipAudioTrack&) = delete;

  // Encodes and muxes the sound up to `seconds` of the audio's own clock (at most its length).
  void writeUntil(double seconds);
  // The rest of the sound, then the encoder's delayed packets.
  void finish();

 private:
  AVFormatContext* oc_;
  AudioSpec spec_;
  av::CodecPtr enc_;
  AVStream* st_ = nullptr;
  int64_t total_ = 0;  // samples
  int64_t done_ = 0;
  int chunk_ = 1024;   // samples per frame sent
};

}  // namespace vp::test
