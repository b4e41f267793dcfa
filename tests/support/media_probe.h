// An outside reference reader for vidproc's output files: streams, packets and decoded
// frames read with FFmpeg's libraries directly (libavformat, libavcodec, libswresample),
// the way ffprobe reads them, and not through the project's io/ (the code under test).
// Needs no ffmpeg / ffprobe program, so it also runs on the GPU machine.
//
// Times follow ffprobe's conventions: seconds = timestamp * the stream's time base, with
// no start time subtracted (ffprobe's pts_time, duration_time, start_time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vp::test::probe {

// One stream as ffprobe -show_streams describes it (after avformat_find_stream_info).
struct Stream {
  int index = 0;
  std::string type;      // "video", "audio", "subtitle", ... ("unknown")
  std::string codec;     // codec_name ("aac", "pcm_s16le"; "unknown" without a descriptor)
  int sampleRate = 0;    // audio
  int channels = 0;      // audio
  std::string layout;    // audio: "5.1", "mono", ...; "unknown" when the file stores none
  double startTime = 0;  // s; NaN when unknown
  double duration = 0;   // s; NaN when unknown
};
// Throws std::runtime_error when the file cannot be opened.
std::vector<Stream> streams(const std::string& path);

// One packet in file (demuxing) order, as ffprobe -show_packets -show_data_hash MD5.
struct Packet {
  int stream = 0;
  std::string type;  // its stream's type
  bool hasPts = false;
  double pts = 0;       // s
  double duration = 0;  // s; 0 when unknown (ffprobe then prints no duration_time)
  int size = 0;
  std::string md5;  // "MD5:<32 hex digits>" of the packet's data
};
std::vector<Packet> packets(const std::string& path);

// The best video stream (as the movie filter picks it) decoded: each frame's
// presentation time (best effort timestamp, s) and mean luma (0..255; signalstats'
// YAVG). Throws for pictures that are not 8-bit YUV or gray.
struct LumaFrame {
  bool hasPts = false;
  double pts = 0;
  double meanLuma = 0;
};
std::vector<LumaFrame> videoLuma(const std::string& path);

// The best audio stream (as the amovie filter picks it) decoded to interleaved float
// samples in [-1, 1] (integer formats / 2^(bits-1)), optionally resampled to `rate`
// as aresample=RATE does; the channels as stored (no remixing). Each frame keeps its
// own timestamp (best effort, in samples of the output rate), so gaps and overlaps
// between frames stay visible. Decoder priming and edit lists applied as players do.
struct AudioFrame {
  bool hasPts = false;
  int64_t pts = 0;             // in 1 / DecodedAudio::rate s
  std::vector<float> samples;  // frames * channels, interleaved
};
struct DecodedAudio {
  int rate = 0, channels = 0;
  std::vector<AudioFrame> frames;
};
// rate 0: the stream's own. Throws when the file has no audio stream.
DecodedAudio decodeAudio(const std::string& path, int rate = 0);

// Decodes every audio and video stream to its end; the number of packets and frames the
// decoders refused (0: the file plays without a decoding error). Throws when the file
// cannot be opened.
int decodeErrors(const std::string& path);

}  // namespace vp::test::probe
