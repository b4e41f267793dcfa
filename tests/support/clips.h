// Test clips made at run time: small videos encoded with libavcodec into a
// temporary folder, damaged copies and other bad inputs, and a helper that
// decodes a file through openSource. Used by io/'s tests and the end-to-end tests.
#pragma once

#include "gpu/image.h"
#include "io/source.h"

#include <condition_variable>
#include <cstdint>
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
};

// H.264 High 4:4:4 Predictive, 96x64, 6 frames: a profile NVDEC does not decode.
ClipSpec high444Spec();

// Size of frame i (the changed size from changeAt on).
void clipFrameSize(const ClipSpec& spec, int i, int& width, int& height);
// The RGBA picture of frame i: makeNatural at the frame's size, phase moving with i.
HostImage clipFrameRgba(const ClipSpec& spec, int i);
// Frame i exactly as the encoder receives it: the RGBA picture converted to the
// encoder's pixel format with swscale (BT.601; limited range for yuv*, full for
// yuvj* and gray), planes tightly packed (the packing of frameLayout for vp's
// native formats). `pixFmt` overrides spec.pixFmt when not empty.
std::vector<uint8_t> clipFrameRaw(const ClipSpec& spec, int i, const std::string& pixFmt = "");
// Encodes the clip into `path` (container from the extension: .mkv .mp4 .avi .nut
// .ts ...); returns `path`. Throws std::runtime_error.
std::string makeClip(const std::string& path, const ClipSpec& spec);

// Bad inputs. Each returns the path it wrote.
std::vector<uint8_t> readFileBytes(const std::string& path);
void writeFileBytes(const std::string& path, const std::vector<uint8_t>& bytes);
// The first (keepHead) or last `fraction` of `src`'s bytes.
std::string truncatedCopy(const std::string& src, const std::string& dst, double fraction, bool keepHead);
// `src` with `flips` random bits flipped, leaving the first `skipBytes` (headers) intact.
std::string bitFlippedCopy(const std::string& src, const std::string& dst, int flips, uint64_t seed,
                           size_t skipBytes = 0);
std::string randomBytesFile(const std::string& path, size_t bytes, uint64_t seed);
std::string textFile(const std::string& path, const std::string& text = "not a video, just some notes\n");
// A sine tone with no video: .wav (pcm_s16le) or .mka (flac).
std::string makeAudioOnly(const std::string& path, double seconds = 0.5);

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
