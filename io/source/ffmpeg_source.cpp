#include "io/source/ffmpeg_source.h"

#include <stdexcept>

namespace vp {

std::unique_ptr<Source> openSource(const SourceOptions& options) {
  return std::make_unique<FfmpegSource>(options);
}

SourceOptions defaultSourceOptions() {
  // Soft radial colour gradients that drift, with a moving test card on top:
  // smooth regions plus hard edges and saturated bars, so K-means segments it
  // visibly and blur shows. 20 s, so a headless run ends by itself. The
  // gradients are drawn at half size and scaled up (smooth, so it looks the
  // same): ~2x cheaper, ~190 fps on 2 cores.
  SourceOptions o;
  o.format = "lavfi";
  o.url =
      "gradients=s=640x360:r=30:d=20:speed=0.02:type=radial:n=6:"
      "c0=0x1e3a8a:c1=0x06b6d4:c2=0xfacc15:c3=0xef4444:c4=0xa855f7:c5=0x22c55e,"
      "scale=1280x720:flags=bilinear[bg];"
      "testsrc2=s=400x224:r=30:d=20[fg];"
      "[bg][fg]overlay=x='(W-w)/2+360*sin(0.5*t)':y='(H-h)/2+200*cos(0.7*t)':shortest=1,format=yuv420p[out0]";
  return o;
}

FfmpegSource::FfmpegSource(const SourceOptions& options)
    : control_(options.url),
      demuxer_(options, control_),
      decoder_(options, control_, *demuxer_.videoStream(), demuxer_.device(), demuxer_.live(), demuxer_.seekable()) {}

FfmpegSource::~FfmpegSource() { stop(); }

void FfmpegSource::start(FrameQueue& queue) {
  if (queue_) throw std::logic_error("Source::start: already started");
  queue_ = &queue;
  control_.startClock();
  videoThread_ = std::thread([this] { decoder_.run(packets_, *queue_); });
  demuxThread_ = std::thread([this] { demuxer_.run(packets_, audioSink_); });
}

void FfmpegSource::stop() {
  control_.abort();
  if (queue_) queue_->abort();
  packets_.abort();
  if (demuxThread_.joinable()) demuxThread_.join();
  if (videoThread_.joinable()) videoThread_.join();
}

}  // namespace vp
