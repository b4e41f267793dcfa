// Encodes the processed RGB24 frames into a video file, on its own thread.
//
// write() copies the frame into one of a few preallocated slots and returns;
// the encoder thread converts (swscale: RGB24 -> the encoder's format, scaling
// frames of another size to the first size), encodes and muxes. The output is
// written under a temporary name in the same folder ("out.mp4.part") and
// renamed by finish(), so an existing file is never half-overwritten and an
// interrupted run leaves no misleading file.
#pragma once

#include "io/audio/audio_stream.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace vp {

// What went wrong, in one line naming the file, fit to print as is.
class EncoderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input's audio for the file (io/audio/audio_track_writer.h).
struct EncoderAudio {
  AudioPacketQueue* packets = nullptr;  // the demuxed track's packets; null: no audio stream
  AudioTrackInfo track;
  std::string codec;  // "" = copy when the container takes it, else transcode (AAC); "copy"; an encoder name
  int64_t delayUs = 0;  // audio later than the video by this much (--audio-delay; negative: earlier)
};

struct EncoderOptions {
  std::string path;                 // output file; the container follows the extension
  std::string codec;                // "" = by extension: libx264 (.mp4 .mkv .mov .m4v), mpeg4 (.avi), ffv1 (.nut);
                                    // "ffv1" = lossless RGB (bgr0), "rawvideo" = RGB24 as is, or any encoder name
  bool overwrite = false;           // replace an existing file (-y)
  int width = 0;                    // encoded size, pixels (> 0); 4:2:0 codecs round odd sizes down to even
  int height = 0;
  double fps = 30;                  // nominal rate (rate control, container hints); timing comes from ptsUs
  std::string preset = "veryfast"; // libx264 speed/size trade-off
  int crf = 18;                     // libx264 constant quality (0 lossless .. 51 worst)
  int threads = 0;                  // encoder threads, 0 = automatic
  int queueFrames = 4;              // frames write() may run ahead of the encoder
  bool faststart = false;           // mp4/mov: moov atom first (rewrites the file at finish)
  EncoderAudio audio;               // muxed on the encoder thread, following the video
};

class EncoderSink {
 public:
  // Creates the temporary file, opens the encoder and writes the header; throws
  // EncoderError ("'out.mp4' exists (use -y to overwrite)", "cannot write ...").
  static std::unique_ptr<EncoderSink> open(const EncoderOptions& options);
  // Calls finish() if it was not called; never throws (logs instead).
  ~EncoderSink();
  EncoderSink(const EncoderSink&) = delete;
  EncoderSink& operator=(const EncoderSink&) = delete;

  // Queues one packed RGB24 frame (`pitch` bytes between rows) shown at `ptsUs`
  // (microseconds, session time) that the source decoded after seek `serial`. Blocks
  // only while the queue is full. Throws EncoderError if encoding has failed, or after
  // finish().
  // Timing: the file's timestamps are made strictly increasing; when the serial changes
  // (a seek), the file goes on from where it is: that serial's frames and audio are
  // shifted so its first frame follows the last one written (like a --loop pass).
  void write(const uint8_t* rgb, size_t pitch, int width, int height, int64_t ptsUs, uint32_t serial = 0);
  // Encodes what is queued, flushes the encoder, writes the trailer and renames
  // the temporary file to the final path. Safe to call twice; throws EncoderError.
  void finish();
  // The run was cut (--frames, Ctrl-C, quit): finish() ends the audio with the last video
  // frame instead of writing all the audio demuxed.
  void endAudioWithVideo();

  int64_t framesWritten() const;  // frames encoded so far
  const std::string& path() const;

  struct Impl;

 private:
  explicit EncoderSink(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vp
