// The input's audio in -o files, end to end through the real vidproc: clips with a beep
// at each white flash (support/audio_clips.h, made in-process), checked with FFmpeg's
// libraries as the outside reference (support/media_probe.h: no ffmpeg program needed).
#include "support/audio_clips.h"
#include "support/clips.h"
#include "support/media_probe.h"
#include "support/run_program.h"

#include <gtest/gtest.h>

#include <cmath>

namespace vp {
namespace {

using test::TempDir;

constexpr double kFrame = 1 / test::kClipFps;    // one video frame, s
constexpr double kAudioFrame = 1024.0 / 48000;  // one AAC frame (the longest here), s

// Clips and vidproc runs in a temporary folder.
class AudioFiles : public ::testing::Test {
 protected:
  std::string clip(const std::string& container, double seconds = 4) {
    const std::string path = dir_.file("in." + (container == "early.mkv" ? std::string("mkv") : container));
    test::makeFlashBeepClip(container, path, seconds);
    return path;
  }
  test::ProgramRun vidproc(std::vector<std::string> args, double timeoutS = 120) {
    std::vector<std::string> all = {"--headless", "--no-progress", "--backend", test::backend(), "-y"};
    all.insert(all.end(), args.begin(), args.end());
    return test::runProgram(test::vidproc(), all, dir_.path(), timeoutS);
  }
  TempDir dir_;
};

// Tests whose outputs are measured (flashes, beeps, packets, stream ends).
class AudioOutput : public AudioFiles {};

struct SyncCase {
  const char* container;
  const char* mode;
};

class AudioSync : public AudioOutput, public ::testing::WithParamInterface<SyncCase> {};

// Each beep's onset and its flash's first frame stay less than one video frame apart.
TEST_P(AudioSync, BeepsStayOnTheirFlashes) {
  const SyncCase c = GetParam();
  const std::string in = clip(c.container), out = dir_.file("out.mp4");
  const test::ProgramRun r = vidproc({in, "--mode", c.mode, "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_NE((r.out + r.err).find("audio: "), std::string::npos) << "one line says what happened to the audio:\n" << r.out;
  const test::StreamEnds ends = test::streamEnds(out);
  ASSERT_EQ(ends.audioStreams, 1);
  // MP4 takes AAC, MP3 and AC-3: copied; PCM is transcoded to AAC.
  const std::string inCodec = test::audioFormat(in).codec;
  EXPECT_EQ(test::audioFormat(out).codec, inCodec.rfind("pcm", 0) == 0 ? "aac" : inCodec);
  const auto flashes = test::flashOnsets(out), beeps = test::beepOnsets(out);
  ASSERT_GE(flashes.size(), 4u);
  ASSERT_GE(beeps.size(), 4u);
  EXPECT_LT(test::worstFlashBeepGap(flashes, beeps), kFrame) << "flash/beep gap";
  // The input's own relation, for the record in a failure message.
  const double inputGap = test::worstFlashBeepGap(test::flashOnsets(in), test::beepOnsets(in));
  RecordProperty("input_gap_ms", std::to_string(inputGap * 1e3));
  RecordProperty("output_gap_ms", std::to_string(test::worstFlashBeepGap(flashes, beeps) * 1e3));
}

INSTANTIATE_TEST_SUITE_P(Clips, AudioSync,
                         ::testing::Values(SyncCase{"mp4", "kmeans"}, SyncCase{"mp4", "blur"},
                                           SyncCase{"mkv", "kmeans"}, SyncCase{"mkv", "blur"},
                                           SyncCase{"avi", "kmeans"}, SyncCase{"avi", "blur"},
                                           SyncCase{"ac3.avi", "kmeans"},
                                           SyncCase{"early.mkv", "kmeans"}, SyncCase{"early.mkv", "blur"}),
                         [](const auto& info) {
                           std::string n = std::string(info.param.container) + "_" + info.param.mode;
                           for (char& ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

// Stream copy keeps every audio packet byte for byte.
TEST_F(AudioOutput, CopyKeepsPacketsByteIdentical) {
  for (const char* container : {"mp4", "avi", "early.mkv"}) {
    const std::string in = clip(container), out = dir_.file(std::string("copy_") + container + ".mp4");
    const test::ProgramRun r = vidproc({in, "--mode", "none", "--audio-codec", "copy", "-o", out});
    ASSERT_EQ(r.exitCode, 0) << container << ": " << r.err;
    EXPECT_NE((r.out + r.err).find("copied"), std::string::npos) << r.err;
    const auto a = test::audioPacketHashes(in), b = test::audioPacketHashes(out);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b) << container;
  }
}

// --audio-delay moves the file's audio against its video (positive: later), copied or
// transcoded: every beep lands `delay` after its flash, within one video frame.
TEST_F(AudioOutput, AudioDelayShiftsTheFilesAudio) {
  struct Case {
    const char* in;
    const char* out;
    const char* codec;
  };
  const std::string mp4 = clip("mp4"), mkv = clip("mkv");
  for (const Case& c : {Case{"mp4", "mp4", "copy"}, Case{"mkv", "mp4", "aac"}, Case{"mkv", "mkv", "copy"}})
    for (const double delay : {0.2, -0.12}) {
      const std::string in = std::string(c.in) == "mp4" ? mp4 : mkv;
      const std::string name = std::string(c.in) + "_" + c.codec + "_" + std::to_string(delay) + "." + c.out;
      const std::string out = dir_.file(name);
      const test::ProgramRun r =
          vidproc({in, "--mode", "blur", "--audio-codec", c.codec, "--audio-delay", std::to_string(delay), "-o", out});
      ASSERT_EQ(r.exitCode, 0) << name << ": " << r.err;
      const auto flashes = test::flashOnsets(out), beeps = test::beepOnsets(out);
      ASSERT_GE(flashes.size(), 4u) << name;
      const double gap = test::worstFlashBeepGap(flashes, beeps, delay);
      EXPECT_LT(gap, kFrame) << name << ": beeps are not " << delay << " s after their flashes";
      RecordProperty(name + "_offset_error_ms", std::to_string(gap * 1e3));
      // Copied packets keep their bytes: only their timestamps move.
      if (c.codec == std::string("copy") && delay > 0) {
        EXPECT_EQ(test::audioPacketHashes(in), test::audioPacketHashes(out)) << name;
      }
    }
}

// PCM cannot go into MP4 as is: AAC, and the line says so; --audio-codec copy refuses.
TEST_F(AudioOutput, PcmIntoMp4IsTranscodedToAac) {
  const std::string in = clip("mkv"), out = dir_.file("out.mp4");
  test::ProgramRun r = vidproc({in, "--mode", "none", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("transcoded to aac"), std::string::npos) << r.err;
  EXPECT_EQ(test::streamEnds(out).audioCodec, "aac");
  r = vidproc({in, "--mode", "none", "--audio-codec", "copy", "-o", dir_.file("refused.mp4")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE((r.out + r.err).find("cannot hold pcm_s16le"), std::string::npos) << r.err;
  // Matroska takes PCM: copied.
  r = vidproc({in, "--mode", "none", "-o", dir_.file("out.mkv")});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(test::streamEnds(dir_.file("out.mkv")).audioCodec, "pcm_s16le");
}

TEST_F(AudioOutput, NoAudioTrackAndNoneWriteNoAudio) {
  const std::string in = clip("mp4");
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--no-audio"}, std::vector<std::string>{"--audio-codec", "none"}}) {
    std::vector<std::string> args = {in, "--mode", "none", "-o", dir_.file("silent.mp4")};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::ProgramRun r = vidproc(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(test::streamEnds(dir_.file("silent.mp4")).audioStreams, 0);
  }
  const test::ProgramRun r = vidproc({in, "--audio-track", "1", "-o", dir_.file("x.mp4")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE((r.out + r.err).find("no audio track 1"), std::string::npos) << r.err;
}

// --frames N: the audio ends with the last video frame (copy: the packet that overlaps it).
TEST_F(AudioOutput, FramesEndsTheAudioWithTheVideo) {
  for (const char* container : {"mp4", "mkv"}) {
    const std::string in = clip(container), out = dir_.file(std::string("f_") + container + ".mp4");
    const test::ProgramRun r = vidproc({in, "--mode", "blur", "--frames", "37", "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const test::StreamEnds e = test::streamEnds(out);
    EXPECT_NEAR(e.videoEnd, 37 * kFrame, 1e-3);
    EXPECT_NEAR(e.audioEnd, e.videoEnd, kAudioFrame) << container;
  }
}

// --loop: both streams move on by the same amount each pass, so every flash keeps its beep.
TEST_F(AudioOutput, LoopKeepsBothStreamsTogether) {
  for (const char* container : {"mp4", "mkv"}) {
    const std::string in = clip(container), out = dir_.file(std::string("loop_") + container + ".mp4");
    const test::ProgramRun r = vidproc({in, "--mode", "none", "--loop", "--frames", "250", "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const test::StreamEnds e = test::streamEnds(out);
    EXPECT_NEAR(e.audioEnd, e.videoEnd, kAudioFrame) << container;
    const auto flashes = test::flashOnsets(out);
    EXPECT_EQ(flashes.size(), 10u) << "2.5 passes of 4 flashes";
    EXPECT_LT(test::worstFlashBeepGap(flashes, test::beepOnsets(out)), kFrame) << container;
  }
}

// Ctrl-C: the file is finalised with both streams, interleaved, ending together.
TEST_F(AudioOutput, InterruptLeavesAPlayableFileWithBothStreams) {
  const std::string in = clip("mkv"), out = dir_.file("int.mp4");
  // SIGINT after 2 s, as a user's Ctrl-C.
  const test::ProgramRun r = test::runProgram(test::vidproc(),
                                              {"--headless", "--no-progress", "-y", "--backend", test::backend(),
                                               "--mode", "none", "--loop", "-o", out, in},
                                              dir_.path(), 60, 2);
  ASSERT_EQ(r.exitCode, 130) << r.err;
  const test::StreamEnds e = test::streamEnds(out);
  ASSERT_EQ(e.audioStreams, 1);
  EXPECT_NEAR(e.audioEnd, e.videoEnd, kAudioFrame);
  EXPECT_EQ(test::probe::decodeErrors(out), 0) << "both streams decode without an error";
  EXPECT_LT(test::worstFlashBeepGap(test::flashOnsets(out), test::beepOnsets(out)), kFrame);
}

// Damaged audio packets (FFmpeg's noise bitstream filter) are counted and skipped; every
// video frame is still written.
TEST_F(AudioOutput, DamagedAudioPacketsAreSkipped) {
  const std::string in = clip("mp4"), damaged = dir_.file("damaged.mkv"), out = dir_.file("out.mp4");
  test::noisyAudioCopy(in, damaged, 8);
  const test::ProgramRun r = vidproc({damaged, "--mode", "none", "--audio-codec", "aac", "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_NE((r.out + r.err).find("damaged packets skipped"), std::string::npos) << r.out;
  const test::StreamEnds e = test::streamEnds(out);
  EXPECT_EQ(e.audioStreams, 1);
  EXPECT_NEAR(e.videoEnd, 4.0, 1e-3);
}

// An input with audio and no video stays the clear error it was (no ffmpeg program needed).
TEST_F(AudioFiles, AudioOnlyInputIsAnError) {
  test::AudioSpec aac;  // the flash clips' sound: 4 s of beeps, 48 kHz mono AAC
  aac.codec = "aac";
  aac.seconds = 4;
  const std::string audio = test::makeAudioOnly(dir_.file("audio.m4a"), aac);
  const test::ProgramRun r = vidproc({audio, "-o", dir_.file("x.mp4")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no video stream"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace vp
