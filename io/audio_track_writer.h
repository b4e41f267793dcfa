// The audio stream of an output file, written on the encoder's muxing thread: packets of
// the input's track stream-copied when the container takes the codec, else transcoded
// (io/audio_transcoder.h). Internal to io/ (EncoderSink uses it).
#pragma once

#include "io/audio_stream.h"
#include "io/audio_transcoder.h"
#include "io/av_util.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace vp {

struct EncoderAudio;

class AudioTrackWriter {
 public:
  // Adds the output stream to `oc` (before its header is written) and logs the one line
  // saying what happens to the audio. Throws std::runtime_error with a short reason (the
  // caller names the file) when the choice cannot be honoured (--audio-codec copy into a
  // container that cannot hold the codec, an unknown encoder).
  AudioTrackWriter(AVFormatContext* oc, const EncoderAudio& audio);
  ~AudioTrackWriter();

  // Muxes the queued packets that start before untilUs (session time): called after each
  // video frame, so audio follows the video and the muxer interleaves the two.
  void writeUntil(int64_t untilUs);
  // Writes what is left: everything when endUs is INT64_MAX (the input ended), else only
  // audio starting before endUs (the end of the last video frame: --frames, Ctrl-C, quit).
  void finish(int64_t endUs);

  int64_t packetsWritten() const { return written_; }
  int64_t damaged() const { return damaged_; }

 private:
  void copy(const AudioPacket& packet);
  void mux(AVPacket* packet);  // in the stream's time base

  AVFormatContext* oc_;
  AVStream* stream_ = nullptr;
  AudioPacketQueue& queue_;
  std::unique_ptr<AudioTranscoder> transcoder_;  // null: stream copy
  int64_t lastDts_ = INT64_MIN;                  // stream time base
  // Audio before the video's first frame (time < 0): kept where the container shifts it
  // with an edit list (MP4/MOV), dropped elsewhere, where the muxer would otherwise
  // shift both streams and the video would no longer start at 0.
  bool keepNegative_ = false;
  int64_t written_ = 0, damaged_ = 0, dropped_ = 0;
};

}  // namespace vp
