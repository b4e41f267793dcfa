// Multichannel sound (5.1, 7.1): -o keeps the channels, copied or transcoded, each
// channel where it was (checked by its level, read with FFmpeg's libraries); window
// playback's decoder and resampler (io/audio/audio_decoder.h) downmix them to a stereo device
// with every speaker on its side, and lay them out in SDL2's speaker order on a
// multichannel device.
#include "io/audio/audio_decoder.h"
#include "io/source.h"
#include "support/audio_clips.h"
#include "support/clips.h"
#include "support/run_program.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace vp {
namespace {

using test::ChannelSignal;

class AudioLayouts : public ::testing::Test {
 protected:
  std::string clip(const std::string& container, int channels, ChannelSignal signal) {
    const std::string path = dir_.file("in" + std::to_string(channels) + (signal == ChannelSignal::Levels ? "l." : "t.") +
                                       container);
    test::makeMultichannelClip(container, channels, signal, path);
    return path;
  }
  test::TempDir dir_;
};

// Every case keeps the channel count and each channel's level (within 1 dB: AAC's loss),
// so no channel was dropped, duplicated or moved.
TEST_F(AudioLayouts, FilesKeepFiveOneAndSevenOne) {
  // The clips are made in-process; the outputs' layouts and levels are read with FFmpeg's
  // libraries (support/media_probe.h), not the project's io/.
  struct Case {
    const char* in;     // container of the input: mp4 = AAC, mkv = PCM
    const char* out;    // output file's extension
    const char* codec;  // --audio-codec
    const char* kept;   // the codec the output should have
  };
  for (const int channels : {6, 8}) {
    const std::string mp4 = clip("mp4", channels, ChannelSignal::Levels);
    const std::string mkv = clip("mkv", channels, ChannelSignal::Levels);
    for (const Case& c : {Case{"mp4", "mp4", "copy", "aac"}, Case{"mkv", "mkv", "copy", "pcm_s16le"},
                          Case{"mkv", "mp4", "", "aac"}, Case{"mp4", "mkv", "aac", "aac"}}) {
      const std::string in = std::string(c.in) == "mp4" ? mp4 : mkv;
      const std::string name = std::to_string(channels) + "ch_" + c.in + "_" + (*c.codec ? c.codec : "default") + "." + c.out;
      const std::string out = dir_.file(name);
      std::vector<std::string> args = {"--headless", "--no-progress", "--backend", test::backend(), "-y", in,
                                       "--mode", "none", "-o", out};
      if (*c.codec) args.insert(args.end(), {"--audio-codec", c.codec});
      const test::ProgramRun r = test::runProgram(test::vidproc(), args, dir_.path(), 120);
      ASSERT_EQ(r.exitCode, 0) << name << ": " << r.err;
      const test::AudioFormat f = test::audioFormat(out);
      EXPECT_EQ(f.channels, channels) << name;
      EXPECT_EQ(f.codec, c.kept) << name;
      if (f.codec == "aac") {
        EXPECT_EQ(f.layout, test::clipLayoutName(channels)) << name;
      }
      const std::vector<double> want = test::channelLevels(in), got = test::channelLevels(out);
      ASSERT_EQ(want.size(), size_t(channels)) << name;
      ASSERT_EQ(got.size(), size_t(channels)) << name;
      for (int ch = 0; ch < channels; ++ch) EXPECT_NEAR(got[size_t(ch)], want[size_t(ch)], 1.0) << name << " channel " << ch;
    }
  }
}

// The decoded, resampled sound of `path` for a device of 48 kHz and `deviceChannels`,
// from the session time of its first sample on: the real source feeds the decoder, and
// a thread takes the video frames as a player would.
std::vector<float> playedSamples(const std::string& path, int deviceChannels, double seconds) {
  SourceOptions o;
  o.url = path;
  o.audio = true;
  FrameQueue queue(4, HostAllocator::plain());  // outlives the source's decode thread
  std::unique_ptr<Source> source = openSource(o);
  const AudioTrackInfo track = source->audioTrack();
  if (!track) throw std::runtime_error(path + ": no audio track");
  AudioDecoder decoder(track, 48000, deviceChannels);
  source->setAudioSink(&decoder.sink());
  decoder.start();
  source->start(queue);
  std::atomic<bool> done{false};
  std::thread video([&] {
    while (HostFrame* f = queue.peekReadable()) {
      const bool end = f->info.endOfStream;
      queue.pop();
      if (end || done) break;
    }
  });
  std::vector<float> out;
  const size_t wanted = size_t(seconds * 48000) * size_t(deviceChannels);
  std::vector<float> buffer(960 * size_t(deviceChannels));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (out.size() < wanted && std::chrono::steady_clock::now() < deadline) {
    int64_t firstUs = 0;
    uint32_t serial = 0;
    const int n = decoder.read(buffer.data(), 960, firstUs, serial);
    if (n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    out.insert(out.end(), buffer.begin(), buffer.begin() + ptrdiff_t(n) * deviceChannels);
  }
  done = true;
  source->stop();
  video.join();
  decoder.stop();
  return out;
}

// RMS of channel `ch` of interleaved `samples` over [from, to) seconds.
double rms(const std::vector<float>& samples, int channels, int ch, double from, double to) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = size_t(from * 48000); i < size_t(to * 48000) && (i + 1) * size_t(channels) <= samples.size(); ++i, ++n)
    sum += double(samples[i * size_t(channels) + size_t(ch)]) * samples[i * size_t(channels) + size_t(ch)];
  return n ? std::sqrt(sum / double(n)) : 0;
}

// Which side of a stereo pair a speaker belongs to (-1 left, +1 right, 0 both).
int sideOf(const std::string& name) {
  if (name == "FL" || name == "BL" || name == "SL") return -1;
  if (name == "FR" || name == "BR" || name == "SR") return 1;
  return 0;
}

// The speakers of a clip's layout (FFmpeg's order for that layout name).
std::vector<std::string> speakers(int channels) {
  if (channels == 4) return {"FL", "FR", "FC", "BC"};  // Matroska PCM: read as FFmpeg's default 4.0
  if (channels == 6) return {"FL", "FR", "FC", "LFE", "BL", "BR"};
  return {"FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"};
}

// 5.1 and 7.1, AAC (layout stored) and Matroska PCM (layout assumed), on a stereo
// device: each speaker's turn is heard on its side only, the centre on both.
TEST_F(AudioLayouts, PlaybackDownmixesToStereo) {
  for (const char* container : {"mp4", "mkv"})
    for (const int channels : {6, 8}) {
      const std::string in = clip(container, channels, ChannelSignal::Turns);
      const std::vector<float> s = playedSamples(in, 2, 0.25 * channels);
      ASSERT_GE(s.size(), size_t(0.25 * channels * 48000) * 2) << in;
      const std::vector<std::string> names = speakers(channels);
      for (int i = 0; i < channels; ++i) {
        const double left = rms(s, 2, 0, 0.25 * i + 0.05, 0.25 * i + 0.15);
        const double right = rms(s, 2, 1, 0.25 * i + 0.05, 0.25 * i + 0.15);
        const std::string what = std::string(container) + " " + std::to_string(channels) + " ch, " + names[size_t(i)];
        if (names[size_t(i)] == "LFE") continue;  // libswresample leaves LFE out of a stereo mix by default
        switch (sideOf(names[size_t(i)])) {
          case -1: EXPECT_GT(left, 0.05) << what; EXPECT_LT(right, left / 30) << what; break;
          case 1: EXPECT_GT(right, 0.05) << what; EXPECT_LT(left, right / 30) << what; break;
          default: EXPECT_GT(left, 0.05) << what; EXPECT_NEAR(left, right, 0.05 * left) << what;
        }
      }
    }
}

// On a device with as many channels, each speaker comes out of its own channel in
// SDL2's order: 7.1 as is; 4 channels are SDL's quad (FL FR BL BR), so a 4.0 track's
// centre goes to the front pair and its back centre to the back pair.
TEST_F(AudioLayouts, MultichannelDevicesGetSdlSpeakerOrder) {
  {
    const std::string in = clip("mkv", 8, ChannelSignal::Turns);
    const std::vector<float> s = playedSamples(in, 8, 2.0);
    for (int i = 0; i < 8; ++i)
      for (int out = 0; out < 8; ++out) {
        const double level = rms(s, 8, out, 0.25 * i + 0.05, 0.25 * i + 0.15);
        if (out == i) EXPECT_GT(level, 0.2) << "7.1 speaker " << i;
        else EXPECT_LT(level, 0.01) << "7.1 speaker " << i << " leaks into channel " << out;
      }
  }
  const std::string in = clip("mkv", 4, ChannelSignal::Turns);
  const std::vector<float> s = playedSamples(in, 4, 1.0);
  // Speaker (FFmpeg 4.0 order) -> the SDL quad channels it must reach.
  const std::vector<std::vector<int>> reach = {{0}, {1}, {0, 1}, {2, 3}};
  for (int i = 0; i < 4; ++i)
    for (int out = 0; out < 4; ++out) {
      const double level = rms(s, 4, out, 0.25 * i + 0.05, 0.25 * i + 0.15);
      const bool wanted = std::find(reach[size_t(i)].begin(), reach[size_t(i)].end(), out) != reach[size_t(i)].end();
      if (wanted) EXPECT_GT(level, 0.1) << "4.0 speaker " << i << " in quad channel " << out;
      else EXPECT_LT(level, 0.01) << "4.0 speaker " << i << " leaks into quad channel " << out;
    }
}

}  // namespace
}  // namespace vp
