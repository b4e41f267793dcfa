// The audio stream of an output file, written on the encoder's muxing thread: packets of
// the input's track stream-copied when the container takes the codec, else transcoded
// (io/audio/audio_transcoder.h). Internal to io/ (EncoderSink uses it).
//
// Output time: where a packet lands in the file, on the video's axis. It is the packet's
// session time plus the audio delay (--audio-delay: positive = audio later) plus the
// shift of its segment. A segment is the run of one seek serial: after a seek the video
// goes on from where the file is, so EncoderSink shifts that serial's frames, and
// startSegment() gives the audio the same shift. Every time below is output time.
#pragma once

#include "io/audio/audio_stream.h"
#include "io/audio/audio_transcoder.h"
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

  // Muxes the queued packets of the current segment that start before untilUs: called
  // after each video frame, so audio follows the video and the muxer interleaves the two.
  // Packets of older serials are dropped; newer ones wait for their segment.
  void writeUntil(int64_t untilUs);
  // The video goes on with the frames of seek serial `serial`, shifted by shiftUs (output =
  // session time + shiftUs). The current segment's audio is written up to endUs (the end
  // of the video written so far; INT64_MIN: nothing) and the rest of it dropped; the new
  // serial's audio is shifted like its video.
  void startSegment(uint32_t serial, int64_t shiftUs, int64_t endUs);
  // Writes what is left: everything when endUs is INT64_MAX (the input ended), else only
  // audio starting before endUs (the end of the last video frame: --frames, Ctrl-C, quit).
  void finish(int64_t endUs);

  int64_t packetsWritten() const { return written_; }
  int64_t damaged() const { return damaged_; }

 private:
  bool takeNext(int64_t untilUs, AudioPacket& out);  // the next current-segment packet before untilUs
  void write(const AudioPacket& packet, int64_t endUs);
  void copy(const AudioPacket& packet);
  void mux(AVPacket* packet);  // in the stream's time base

  AVFormatContext* oc_;
  AVStream* stream_ = nullptr;
  AudioPacketQueue& queue_;
  std::unique_ptr<AudioTranscoder> transcoder_;  // null: stream copy
  int64_t lastDts_ = INT64_MIN;                  // stream time base
  int64_t lastEndUs_ = INT64_MIN;                // copy: end of the last packet written
  const int64_t delayUs_;                        // --audio-delay
  uint32_t serial_ = 0;                          // seek serial of the current segment
  int64_t shiftUs_ = 0;                          // the current segment's shift
  // Audio before the video's first frame (time < 0): kept where the container shifts it
  // with an edit list (MP4/MOV), dropped elsewhere, where the muxer would otherwise
  // shift both streams and the video would no longer start at 0.
  bool keepNegative_ = false;
  int64_t written_ = 0, damaged_ = 0, dropped_ = 0;
};

}  // namespace vp
