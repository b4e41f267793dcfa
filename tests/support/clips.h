// Test clips made at run time: small videos encoded with libavcodec into a
// temporary folder, damaged copies and other bad inputs, and a helper that
// decodes a file through openSource. Used by io/'s tests and the end-to-end tests.
#pragma once

#include "gpu/image.h"
#include "io/source.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vp::test {

// Ends the test program (exit code 3, with a message) if not destroyed within
// `seconds`: a deadlock fails fast instead of hanging the suite.
class Watchdog {
 public:
  Watchdog(double seconds, std::string what);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cond_;
  bool done_ = false;
  std::thread thread_;
};

// A unique folder (mkdtemp under $TMPDIR or /tmp), removed with its contents
// when destroyed.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// What a clip's frames show.
enum class Picture {
  Natural,  // makeNatural, its phase moving with the frame index
  Black,
  Flashes,  // black, white for 2 frames from 0.4 s into every second (frames 10 and 11 of
            // every 25 at 25 fps): with Sound::Beeps, a mark for audio-video sync
  Noise,    // Natural with strong per-pixel noise, new every frame: large video packets
};

// What a clip's sound holds, per channel, at time t of the audio's own clock.
enum class Sound {
  Beeps,    // 50 ms of 1 kHz at 0.8 from 0.4 s into every second of the video's clock (so
            // on each flash, and in a lead before the video too), silence between; all channels
  Sine,     // `frequency` Hz at `amplitude` throughout, all channels
  Silence,
  Levels,   // channel c: 100 Hz at 0.05 (c + 1) throughout, so its level names it
  Turns,    // channel c alone: 440 Hz at 0.5 in [0.25 c, 0.25 c + 0.2) s, else silence
};

// A clip's audio stream, encoded with libavcodec beside the video.
struct AudioSpec {
  std::string codec;            // "" = no audio; aac, ac3, libmp3lame, pcm_s16le, flac, ... (in
                                // the encoder's first sample format)
  int sampleRate = 48000;
  std::string layout = "mono";  // FFmpeg's name: mono, stereo, quad, 5.1, 7.1, ... (Matroska
                                // stores none for PCM: readers assume the count's default)
  Sound sound = Sound::Beeps;
  double frequency = 440;       // Sine
  double amplitude = 0.125;     // Sine (the level of FFmpeg's sine source)
  double seconds = -1;          // length; < 0: the video's (frames / fps) plus leadS
  double leadS = 0;             // the audio starts this long before the video, whose timestamps
                                // start at leadS
  int64_t bitRate = 0;          // bits per second; 0: the encoder's default
};

struct ClipSpec {
  int width = 64;                   // pixels
  int height = 48;
  int frames = 10;
  int fps = 25;                     // frames per second; frame i has pts i/fps
  std::string codec = "ffv1";       // libx264, ffv1, mjpeg, rawvideo, mpeg4, ...
  std::string pixFmt = "yuv420p";   // libav name; mjpeg uses the yuvj* twin of yuv*p
  uint64_t seed = 1;                // picture content (makeNatural)
  int changeAt = -1;                // frames from this index on have the changed size
  int changedWidth = 0;             // (the encoder is reopened: use mjpeg, or libx264 in .ts)
  int changedHeight = 0;
  int gop = 0;                      // keyframe interval, 0 = the codec's default
  int crf = 12;                     // libx264 / libx265 quality
  std::string preset = "ultrafast"; // libx264 / libx265 preset (x264 ultrafast: no B-frames)
  int rotation = 0;                 // clockwise degrees a player turns the picture: a display
                                    // matrix on the stream (.mp4/.mov keep it)
  // Colour tags written into the stream (libavutil's AVColorSpace, AVColorTransferCharacteristic,
  // AVColorPrimaries values; -1: BT.601 matrix, the rest unspecified). The pictures are
  // still made with BT.601: the tags say how a player is to read them.
  int colorspace = -1;
  int colorTrc = -1;
  int colorPrimaries = -1;
  int colorRange = -1;              // AVColorRange tag; -1: by pixFmt (full for yuvj* and gray,
                                    // else limited), 0: unspecified
  bool interlaced = false;          // interlaced coding, top field first (libx264: PAFF/MBAFF)
  std::vector<double> times;        // frame i's pts in seconds (ms precision); empty: i / fps
  // Frame i's pixels in the encoder's pixel format, planes packed without padding (as
  // clipFrameRaw gives them), instead of `picture`'s: when set, the clip holds exactly these.
  std::function<std::vector<uint8_t>(int)> rawFrames;
  Picture picture = Picture::Natural;
  // > 0: a scene cut every sceneEvery frames, each scene its own seed, calm (a quarter of
  // the contrast) and noisy (Noise's +-60 levels) in turn, so K-means' cost per pixel
  // jumps many times over at each cut into a noisy scene.
  int sceneEvery = 0;
  AudioSpec audio;                  // no audio unless audio.codec is set
};

// H.264 High 4:4:4 Predictive, 96x64, 6 frames: a profile NVDEC does not decode.
ClipSpec high444Spec();

// Size of frame i (the changed size from changeAt on).
void clipFrameSize(const ClipSpec& spec, int i, int& width, int& height);
// The RGBA picture of frame i (spec.picture at the frame's size).
HostImage clipFrameRgba(const ClipSpec& spec, int i);
// Sample `index` (from the audio's start) of `channel` of the clip's sound, in [-1, 1].
float clipAudioSample(const AudioSpec& audio, int channel, int64_t index);
// Frame i exactly as the encoder receives it: the RGBA picture converted to the
// encoder's pixel format with swscale (BT.601; limited range for yuv*, full for
// yuvj* and gray), planes tightly packed (the packing of frameLayout for vp's
// native formats). `pixFmt` overrides spec.pixFmt when not empty.
std::vector<uint8_t> clipFrameRaw(const ClipSpec& spec, int i, const std::string& pixFmt = "");
// Encodes the clip into `path` (container from the extension: .mkv .mp4 .avi .nut
// .ts ...), with spec.audio's stream when it has a codec; returns `path`. Throws
// std::runtime_error.
std::string makeClip(const std::string& path, const ClipSpec& spec);

// Bad inputs. Each returns the path it wrote.
std::vector<uint8_t> readFileBytes(const std::string& path);
void writeFileBytes(const std::string& path, const std::vector<uint8_t>& bytes);
// The first (keepHead) or last `fraction` of `src`'s bytes.
std::string truncatedCopy(const std::string& src, const std::string& dst, double fraction, bool keepHead);
// `src` with `flips` random bits flipped, leaving the first `skipBytes` (headers) intact.
std::string bitFlippedCopy(const std::string& src, const std::string& dst, int flips, uint64_t seed,
                           size_t skipBytes = 0);
// `src` remuxed into `dst` (container from the extension) with every audio packet damaged
// by FFmpeg's noise bitstream filter (about one byte in `amount` overwritten), the video
// packets untouched: as ffmpeg -i SRC -c copy -bsf:a noise=amount=AMOUNT DST.
std::string noisyAudioCopy(const std::string& src, const std::string& dst, int amount = 8);
std::string randomBytesFile(const std::string& path, size_t bytes, uint64_t seed);
std::string textFile(const std::string& path, const std::string& text = "not a video, just some notes\n");
// A sine tone with no video: .wav (pcm_s16le) or .mka (flac), 8 kHz mono.
std::string makeAudioOnly(const std::string& path, double seconds = 0.5);
// `audio` with no video (its seconds: the length, 1 s when < 0).
std::string makeAudioOnly(const std::string& path, const AudioSpec& audio);

// A Matroska file whose video codec this libavcodec cannot decode (random
// packets of the first such codec the muxer takes); returns the codec's name,
// or "" when every codec Matroska holds is decodable here (nothing written).
std::string makeUndecodable(const std::string& path);

// A Matroska file whose MJPEG stream claims to be width x height, with a few
// junk packets: a damaged or hostile header announcing an absurd picture size.
std::string makeClaimedSize(const std::string& path, int width, int height);

// Everything a source produced, read through openSource + a FrameQueue.
struct DecodedFrame {
  FrameInfo info;
  std::vector<uint8_t> data;  // layout.bytes of pixels (empty unless keepPixels)
};
// Plane 0 of a decoded packed frame without row padding: width * bytesPerPixel bytes
// per row (3 for the RGB24 the processors, PNGs and rawvideo outputs hold).
std::vector<uint8_t> packedRows(const DecodedFrame& frame, int bytesPerPixel);
struct DecodedClip {
  SourceInfo info;
  std::vector<DecodedFrame> frames;  // without the endOfStream marker
  bool endOfStream = false;          // the marker arrived
  SourceStats stats;
  std::string fatalError;
};
// Decodes `options` (or the file `path`) until the endOfStream marker, maxFrames
// frames, or timeoutS seconds. Throws SourceError when the input cannot be opened.
DecodedClip decodeAll(const SourceOptions& options, bool keepPixels = true, int maxFrames = 100000,
                      double timeoutS = 30);
DecodedClip decodeAll(const std::string& path, bool keepPixels = true, int maxFrames = 100000,
                      double timeoutS = 30);

}  // namespace vp::test
