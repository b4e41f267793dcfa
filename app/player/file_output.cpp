#include "app/player/file_output.h"

#include <chrono>

namespace vp {

FileOutput::FileOutput(EncoderOptions options, double fps) : options_(std::move(options)) {
  options_.fps = fps > 0 ? fps : 30.0;
  if (options_.audio.track) {
    audio_ = std::make_unique<AudioPacketQueue>();
    options_.audio.packets = audio_.get();
  }
}

double FileOutput::write(const RgbPicture& f, int64_t ptsUs, uint32_t serial) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!encoder_) {
    options_.width = f.width;
    options_.height = f.height;
    encoder_ = EncoderSink::open(options_);
  }
  encoder_->write(f.rgb, f.pitch, f.width, f.height, ptsUs, serial);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void FileOutput::finish(bool cut) {
  if (!encoder_) return;
  if (cut) encoder_->endAudioWithVideo();
  encoder_->finish();
}

}  // namespace vp
