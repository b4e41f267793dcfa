// Decodes an input audio track and re-encodes it for an output file (e.g. PCM into MP4
// -> AAC): decoder -> libswresample -> sample FIFO -> encoder, on the muxing thread.
// Internal to io/ (uses libav types).
#pragma once

#include "io/audio/audio_stream.h"
#include "io/av_util.h"

extern "C" {
#include <libavutil/audio_fifo.h>
#include <libswresample/swresample.h>
}

#include <cstdint>
#include <functional>
#include <string>

namespace vp {

struct SwrDeleter {
  void operator()(SwrContext* s) const { swr_free(&s); }
};
struct AudioFifoDeleter {
  void operator()(AVAudioFifo* f) const { av_audio_fifo_free(f); }
};

class AudioTranscoder {
 public:
  // Opens the track's decoder and `encoder` for `oc`'s container; throws std::runtime_error
  // with a short reason. `write` receives each encoded packet in the encoder's time base.
  // Samples before startUs (session time; INT64_MIN: none) are dropped.
  AudioTranscoder(const AudioTrackInfo& track, const AVCodec* encoder, const AVFormatContext* oc, int64_t startUs,
                  std::function<void(AVPacket*)> write);
  ~AudioTranscoder() { av_channel_layout_uninit(&swrLayout_); }
  AudioTranscoder(const AudioTranscoder&) = delete;
  AudioTranscoder& operator=(const AudioTranscoder&) = delete;
  const AVCodecContext& encoder() const { return *enc_; }

  // Decodes one packet and encodes what is ready. Samples after endUs (session time) are
  // dropped. Returns false for a damaged packet (skipped).
  bool add(const AudioPacket& packet, int64_t endUs);
  // A seek: drains the decoder into the FIFO up to endUs and resets it, so the next
  // packets decode afresh (no state carried across the jump).
  void endSegment(int64_t endUs);
  // Drains the decoder, encodes what is left up to endUs, flushes the encoder.
  void finish(int64_t endUs);

 private:
  bool receiveDecoded(int64_t endUs);
  void queueSamples(const AVFrame& frame, int64_t timeUs, int64_t endUs);
  void encodeFrames(bool flush, int64_t endPts = INT64_MAX);
  void encode(const AVFrame* frame);
  void configureResampler(const AVFrame& frame);

  av::CodecPtr dec_;
  av::CodecPtr enc_;
  std::unique_ptr<SwrContext, SwrDeleter> swr_;
  std::unique_ptr<AVAudioFifo, AudioFifoDeleter> fifo_;
  av::FramePtr decoded_;
  av::FramePtr chunk_;   // one encoder frame
  av::PacketPtr packet_;
  std::function<void(AVPacket*)> write_;
  int frameSize_ = 1024;  // samples per encoder frame
  // The resampler's input, to rebuild it when the decoded format changes.
  int swrFormat_ = -1, swrRate_ = 0;
  AVChannelLayout swrLayout_{};
  int64_t startUs_ = INT64_MIN;  // nothing before it
  int64_t offsetUs_ = 0;        // session time = decoded frame time (track time base) + this
  bool haveBase_ = false;
  int64_t basePts_ = 0;         // encoder time base (1/rate): time of the FIFO's first sample
  int64_t lastDecodedUs_ = INT64_MIN;
};

}  // namespace vp
