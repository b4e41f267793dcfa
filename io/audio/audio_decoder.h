// Window playback's audio decode thread: the track's packets (an AudioPacketQueue the
// source fills) decoded and resampled with libswresample to what the audio device takes
// (interleaved float, the device's rate and channels in SDL2's speaker order: a 5.1 or
// 7.1 track on a stereo device is downmixed, on a 5.1 / 7.1 device kept), into a short
// buffer of timed chunks the device callback reads (read()).
//
// Threads: the caller's (start, seek, stop), the decode thread (run), the device's
// callback (read). Seeks use the source's serials: packets of an older serial are
// dropped, the decoder is flushed at the first packet of the new one, and samples before
// the seek target are skipped. Packets of a newer serial than seek() has announced (the
// source has sought, the player has not told this decoder yet) wait for it, up to 1 s.
// The resampler is rebuilt when the decoded format, layout or rate changes.
#pragma once

#include "io/audio/audio_stream.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace vp {

class AudioDecoder {
 public:
  // Opens the track's decoder; throws std::runtime_error ("no decoder for ...").
  AudioDecoder(const AudioTrackInfo& track, int deviceRate, int deviceChannels);
  ~AudioDecoder();  // stops and joins
  AudioDecoder(const AudioDecoder&) = delete;
  AudioDecoder& operator=(const AudioDecoder&) = delete;

  AudioPacketSink& sink() { return packets_; }  // hand to Source::setAudioSink before start
  void start();
  void stop();

  // Device thread: up to `frames` frames of interleaved float samples of the current
  // serial; returns the frames written. `firstUs`: session time of the first one.
  int read(float* out, int frames, int64_t& firstUs, uint32_t& serial);
  // A seek to targetUs made the source's serial `serial`: everything older is dropped now.
  void seek(uint32_t serial, int64_t targetUs);
  int64_t bufferedUs() const;  // decoded, not yet read
  int64_t damaged() const { return damaged_.load(); }

 private:
  struct Chunk {
    std::vector<float> samples;  // interleaved
    size_t read = 0;             // frames already read
    int64_t ptsUs = 0;           // session time of samples[0]
    uint32_t serial = 0;
  };
  struct Codec;  // the libav state, decode thread only

  void run();
  void decode(const AudioPacket& packet);
  void output(Chunk&& chunk);

  const int rate_, channels_;
  std::unique_ptr<Codec> codec_;
  AudioPacketQueue packets_;
  std::thread thread_;
  std::atomic<bool> abort_{false};
  std::atomic<int64_t> damaged_{0};

  mutable std::mutex mutex_;  // guards chunks_, bufferedFrames_, serial_, skipBeforeUs_
  std::condition_variable room_;  // the decode thread waits for room in chunks_
  std::deque<Chunk> chunks_;
  int64_t bufferedFrames_ = 0;
  uint32_t serial_ = 0;        // the serial wanted (the latest seek)
  int64_t skipBeforeUs_ = INT64_MIN;  // after a seek: samples before the target are dropped
};

}  // namespace vp
