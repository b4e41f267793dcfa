// The -o file: an EncoderSink opened at the first frame (whose size it takes), and the
// time each write took (the Encode stage).
#pragma once

#include "gpu/processor.h"
#include "io/encoder_sink.h"

#include <memory>

namespace vp {

class FileOutput {
 public:
  // Nothing is opened yet; `fps` is the nominal rate (30 when the input has none).
  FileOutput(EncoderOptions options, double fps);
  // Writes one processed frame; returns the milliseconds it took (throws EncoderError).
  double write(const OutputFrame& frame);
  // Finalises the file (renames it into place); nothing when no frame came.
  void finish();

 private:
  EncoderOptions options_;
  std::unique_ptr<EncoderSink> encoder_;  // opened by the first write()
};

}  // namespace vp
