// The -o file: an EncoderSink opened at the first frame (whose size it takes), and the
// time each write took (the Encode stage).
#pragma once

#include "gpu/processor.h"
#include "io/output/encoder_sink.h"

#include <memory>

namespace vp {

class FileOutput {
 public:
  // Nothing is opened yet; `fps` is the nominal rate (30 when the input has none).
  // With an audio track (options.audio.track), the file gets an audio stream: the
  // source hands the track's packets to audioSink(), the encoder thread muxes them.
  FileOutput(EncoderOptions options, double fps);
  // Where the source's demuxer puts the audio packets; null without an audio track.
  AudioPacketSink* audioSink() { return audio_.get(); }
  // Writes one picture (the processed frame, or what is shown) at `ptsUs`, decoded after seek `serial` (a new serial continues the
  // file where it is: EncoderSink::write); returns the milliseconds it took (throws
  // EncoderError).
  double write(const RgbPicture& picture, int64_t ptsUs, uint32_t serial);
  // Finalises the file (renames it into place); nothing when no frame came. `cut`: the
  // run stopped early (--frames, Ctrl-C, quit), so the audio ends with the last frame.
  void finish(bool cut = false);

 private:
  EncoderOptions options_;
  std::unique_ptr<AudioPacketQueue> audio_;  // outlives encoder_, whose thread reads it
  std::unique_ptr<EncoderSink> encoder_;     // opened by the first write()
};

}  // namespace vp
