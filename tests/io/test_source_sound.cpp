// FfmpegSource with an audio sink: the demuxer and the video decoder on two threads, the
// packet queues bounded together (ffplay's rule, io/source/video_packet_queue.h). A stalled
// video consumer (the GPU pipeline) must not starve the audio; stalled consumers on both
// sides stop the demuxer once each queue holds "enough"; the byte limit bounds the
// queues; seeks, --loop, the end of stream and stop() behave as without sound.
#include "io/source.h"
#include "support/audio_clips.h"
#include "support/clips.h"
#include "support/images.h"
#include "support/threads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace vp {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kClipUs = 8'000'000;

// Takes the sink's packets as they come (an audio decoder with room to spare), noting the
// latest session time they reach.
class AudioTaker {
 public:
  explicit AudioTaker(AudioPacketQueue& q) : q_(q), thread_([this] { run(); }) {}
  ~AudioTaker() {
    stop_ = true;
    thread_.join();
  }
  int64_t reachedUs() const { return reached_.load(); }

 private:
  void run() {
    AudioPacket p;
    while (!stop_)
      if (q_.pop(p, 20'000)) reached_ = std::max<int64_t>(reached_, audioPacketTimeUs(p) + audioPacketDurationUs(p));
  }

  AudioPacketQueue& q_;
  std::atomic<int64_t> reached_{INT64_MIN};
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: starts once the fields above exist
};

class SourceSound : public ::testing::Test {
 protected:
  std::unique_ptr<Source> open(const std::string& path, int64_t maxBytes = 0, bool loop = false) {
    SourceOptions o;
    o.url = path;
    o.audio = true;
    o.loop = loop;
    if (maxBytes > 0) o.maxQueuedBytes = maxBytes;
    std::unique_ptr<Source> s = openSource(o);
    EXPECT_TRUE(bool(s->audioTrack()));
    s->setAudioSink(&audio_);
    return s;
  }
  // Pops every frame up to the end-of-stream marker; returns how many there were.
  static int drain(FrameQueue& q) {
    int n = 0;
    while (HostFrame* f = q.peekReadable()) {
      const bool end = f->info.endOfStream;
      q.pop();
      if (end) break;
      ++n;
    }
    return n;
  }
  test::TempDir dir_;
  AudioPacketQueue audio_;  // outlives the sources (declared before them in each test)
};

// Waits up to `timeout` for `done`.
template <class F>
bool eventually(F done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  return done();
}

// The video consumer takes nothing for a while: the audio of the whole 8 s clip still
// reaches the audio consumer (its packets are tiny next to the 15 MB limit), while the
// video decoder has filled the 3-frame queue and waits.
TEST_F(SourceSound, AudioKeepsFlowingWhileTheVideoIsStalled) {
  test::Watchdog dog(60, "audio flow");
  const std::string path = dir_.file("beeps.mp4");
  test::makeFlashBeepClip("mp4", path, 8);
  FrameQueue q(3, HostAllocator::plain());
  AudioTaker taker(audio_);
  std::unique_ptr<Source> src = open(path);
  src->start(q);
  EXPECT_TRUE(eventually([&] { return taker.reachedUs() >= kClipUs - 100'000; }, 5s))
      << "the audio stopped at " << taker.reachedUs() / 1e3 << " ms behind a stalled video consumer";
  EXPECT_LE(src->stats().framesDecoded, 3) << "the video consumer took nothing";
  RecordProperty("audio_reached_ms", std::to_string(taker.reachedUs() / 1000));
  EXPECT_EQ(drain(q), 200);  // then every frame still comes
  src->stop();
}

// Neither consumer takes anything: the demuxer stops once both queues hold more than 25
// packets and a second, with the audio far from the end of the clip.
TEST_F(SourceSound, StalledConsumersStopTheDemuxerOnceBothHaveEnough) {
  test::Watchdog dog(60, "both stalled");
  const std::string path = dir_.file("beeps.mp4");
  test::makeFlashBeepClip("mp4", path, 8);
  FrameQueue q(3, HostAllocator::plain());
  std::unique_ptr<Source> src = open(path);
  src->start(q);
  std::this_thread::sleep_for(1500ms);  // ample time to demux all 8 s were it not stopped
  const PacketQueueLevel level = audio_.level();
  EXPECT_GT(level.packets, 25);
  EXPECT_GT(level.durationUs, 1'000'000) << "the audio queue holds enough";
  EXPECT_LT(level.durationUs, 3'000'000) << "the demuxer should have stopped near a second ahead";
  RecordProperty("audio_queued_ms", std::to_string(level.durationUs / 1000));
  EXPECT_EQ(drain(q), 200);
  src->stop();
}

// A clip with large video packets and a small byte limit: behind a stalled video
// consumer, the audio gets only as far as the limit lets the demuxer read; afterwards
// everything arrives.
TEST_F(SourceSound, ByteLimitBoundsTheQueues) {
  test::Watchdog dog(60, "byte limit");
  const std::string path = dir_.file("noise.mp4");
  test::ClipSpec spec;  // 8 s of 320x240 with fresh noise every frame, nearly lossless; a sine in AAC
  spec.width = 320;
  spec.height = 240;
  spec.fps = 25;
  spec.frames = 200;
  spec.picture = test::Picture::Noise;
  spec.codec = "libx264";
  spec.crf = 10;
  spec.gop = 25;
  spec.audio.codec = "aac";
  spec.audio.sound = test::Sound::Sine;
  test::makeClip(path, spec);
  FrameQueue q(3, HostAllocator::plain());
  AudioTaker taker(audio_);
  std::unique_ptr<Source> src = open(path, 300'000);
  src->start(q);
  std::this_thread::sleep_for(1500ms);
  const int64_t reached = taker.reachedUs();
  EXPECT_GT(reached, 0) << "some audio flows";
  EXPECT_LT(reached, 4'000'000) << "300 KB of these video packets are well under 4 s";
  EXPECT_EQ(drain(q), 200);
  EXPECT_TRUE(eventually([&] { return taker.reachedUs() >= kClipUs - 100'000; }, 5s));
  RecordProperty("audio_ahead_at_300KB_ms", std::to_string(reached / 1000));
  src->stop();
}

// --loop with sound: the video's timestamps keep increasing pass after pass, and each
// pass's audio is offset by where the previous pass's video ended.
TEST_F(SourceSound, LoopOffsetsVideoAndAudioAlike) {
  test::Watchdog dog(60, "loop");
  const std::string path = dir_.file("beeps.mkv");
  test::makeFlashBeepClip("mkv", path, 2);
  FrameQueue q(3, HostAllocator::plain());
  AudioTaker taker(audio_);
  std::unique_ptr<Source> src = open(path, 0, true);
  src->start(q);
  int64_t last = -1;
  for (int i = 0; i < 125; ++i) {  // 2.5 passes of 50 frames
    HostFrame* f = q.peekReadable();
    ASSERT_NE(f, nullptr);
    ASSERT_FALSE(f->info.endOfStream);
    EXPECT_NEAR(double(f->info.ptsUs), i * 40'000.0, 1.0) << "frame " << i;
    EXPECT_GT(f->info.ptsUs, last);
    last = f->info.ptsUs;
    q.pop();
  }
  EXPECT_TRUE(eventually([&] { return taker.reachedUs() >= 4'000'000; }, 5s)) << taker.reachedUs();
  src->stop();
}

// Seeks with sound land on their target with the new serial, also after the end of
// the stream; audio packets read after a seek carry its serial and start near it. In
// MPEG-TS (no index) too: the target frame is a flash (decoded from a keyframe, not
// from wherever the timestamp search landed).
TEST_F(SourceSound, SeeksBumpTheSerialOfBothStreams) {
  test::Watchdog dog(90, "seek");
  for (const char* container : {"mp4", "ts"}) {
    SCOPED_TRACE(container);
    const bool ts = std::string(container) == "ts";
    const std::string path = dir_.file(std::string("beeps.") + container);
    test::makeFlashBeepClip(container, path, 4);
    FrameQueue q(3, HostAllocator::plain());
    std::unique_ptr<Source> src = open(path);
    src->start(q);
    for (const auto& [target, serial] : {std::pair{2'400'000, 1u}, std::pair{400'000, 2u}}) {
      ASSERT_TRUE(src->seek(target));
      HostFrame* f = nullptr;
      while ((f = q.peekReadable()) && f->info.serial != serial) q.pop();
      ASSERT_NE(f, nullptr);
      EXPECT_NEAR(double(f->info.ptsUs), target, 1.0);
      const PlaneLayout& y = f->info.layout.plane[0];
      int64_t luma = 0;
      for (int row = 0; row < f->info.layout.height; ++row)
        for (size_t x = 0; x < y.widthBytes; ++x) luma += f->data()[y.offset + size_t(row) * y.pitch + x];
      EXPECT_GT(luma / (int64_t(f->info.layout.height) * int64_t(y.widthBytes)), 200) << "the flash at the target";
      q.pop();
      AudioPacket p;  // the first audio packet read after the seek (older ones go)
      ASSERT_TRUE(eventually(
          [&] {
            while (audio_.pop(p))
              if (p.serial == serial) return true;
            return false;
          },
          5s));
      EXPECT_LE(audioPacketTimeUs(p), target) << "from the keyframe before the target";
      // A keyframe every second; MPEG-TS lands by DTS and muxes the audio ahead.
      EXPECT_GT(audioPacketTimeUs(p), target - (ts ? 2'600'000 : 1'100'000));
    }
    drain(q);  // to the end of the stream
    ASSERT_TRUE(src->seek(1'000'000));  // after the end of the stream
    HostFrame* f = nullptr;
    while ((f = q.peekReadable()) && f->info.serial != 3u) q.pop();
    ASSERT_NE(f, nullptr);
    EXPECT_NEAR(double(f->info.ptsUs), 1'000'000, 1.0);
    src->stop();
  }
}

TEST_F(SourceSound, StopAtRandomMomentsNeverHangs) {
  test::Watchdog dog(60, "stop with sound");
  const std::string path = dir_.file("beeps.mp4");
  test::makeFlashBeepClip("mp4", path, 2);
  test::SplitMix64 rng(11);
  for (int round = 0; round < 25; ++round) {
    AudioPacketQueue audio;
    FrameQueue q(1 + int(rng.next() % 3), HostAllocator::plain());
    SourceOptions o;
    o.url = path;
    o.audio = true;
    o.loop = round % 3 == 0;
    std::unique_ptr<Source> src = openSource(o);
    src->setAudioSink(&audio);
    src->start(q);
    const int consume = int(rng.next() % 60);
    for (int i = 0; i < consume; ++i) {
      if (q.tryPeekReadable()) q.pop();
      if (rng.next() % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rng.next() % 500));
    }
    if (round % 5 == 1) src->seek(int64_t(rng.next() % 2'000'000));
    if (round % 2) src->stop();
  }
}

}  // namespace
}  // namespace vp
