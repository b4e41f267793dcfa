// The window player's audio decoder across a seek whose announcement comes late: the
// source has sought (its packets of the new serial are queued and flowing) before the
// player's seek() reaches the decoder, as on a loaded machine where the main thread is
// held up between the two calls. The sound after the seek must still start at the
// target, with the flash clip's beeps where they belong.
#include "io/audio/audio_decoder.h"
#include "io/source.h"
#include "support/audio_clips.h"
#include "support/clips.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace vp {
namespace {

constexpr int kRate = 48000;

TEST(AudioDecoderSeek, LateAnnouncedSeekStartsTheSoundAtTheTarget) {
  test::TempDir dir;
  const std::string clip = dir.file("clip.mp4");
  test::makeFlashBeepClip("mp4", clip, 6);  // beeps at 0.4, 1.4, ... 5.4 s
  SourceOptions o;
  o.url = clip;
  o.audio = true;
  FrameQueue queue(4, HostAllocator::plain());  // outlives the source's decode thread
  std::unique_ptr<Source> source = openSource(o);
  const AudioTrackInfo track = source->audioTrack();
  ASSERT_TRUE(track);
  AudioDecoder decoder(track, kRate, 1);
  source->setAudioSink(&decoder.sink());
  decoder.start();
  source->start(queue);
  std::atomic<bool> done{false};
  std::thread video([&] {  // takes the frames as a player would
    while (queue.peekReadable() != nullptr) {
      queue.pop();
      if (done) break;
    }
  });
  std::vector<float> buffer(960);
  int64_t firstUs = 0;
  uint32_t serial = 0;
  // Some sound before the seek, as a playing window has.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (decoder.read(buffer.data(), 960, firstUs, serial) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));

  const int64_t targetUs = 3'000'000;
  ASSERT_TRUE(source->seek(targetUs));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the player's seek() held up
  decoder.seek(source->serial(), targetUs);

  // The sound of the new serial: its first sample at the target, then 1.4 s of it.
  std::vector<float> after;
  int64_t startUs = INT64_MIN;
  while (after.size() < size_t(1.4 * kRate) && std::chrono::steady_clock::now() < deadline) {
    const int n = decoder.read(buffer.data(), 960, firstUs, serial);
    if (n == 0 || serial != source->serial()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    if (startUs == INT64_MIN) startUs = firstUs;
    after.insert(after.end(), buffer.begin(), buffer.begin() + n);
  }
  done = true;
  source->stop();
  video.join();
  decoder.stop();
  ASSERT_NE(startUs, INT64_MIN) << "no sound after the seek";
  EXPECT_NEAR(double(startUs - targetUs) * 1e-3, 0.0, 1.0) << "the sound after the seek starts at " << startUs << " us";
  // The beep at 3.4 s, 0.4 s into what was read: the samples are the target's.
  size_t onset = 0;
  while (onset < after.size() && std::fabs(after[onset]) < 0.05f) ++onset;
  ASSERT_LT(onset, after.size()) << "no beep after the seek";
  EXPECT_NEAR(double(onset) / kRate, 0.4, 0.005) << "the beep at 3.4 s";
}

}  // namespace
}  // namespace vp
