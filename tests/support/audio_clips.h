// Clips with a short beep exactly at each white flash, and the measurements that check a
// file keeps them together: flash and beep onsets, per-packet hashes, stream ends. The
// clips are made in-process (makeClip, libavcodec's encoders: no ffmpeg program needed);
// the measurements read files with FFmpeg's libraries directly (support/media_probe.h: an
// outside reference, not the project's io/, and no ffmpeg / ffprobe program needed),
// computing what the ffprobe commands named beside each one report.
#pragma once

#include <string>
#include <vector>

namespace vp::test {

// 25 fps, 160x120, black with a 2-frame white flash at 0.4, 1.4, 2.4, 3.4 s (Picture::Flashes);
// a 50 ms 1 kHz beep (48 kHz mono, Sound::Beeps) starting at each flash. `container`: "mp4" (H.264 + AAC),
// "mkv" (H.264 + PCM), "avi" (MPEG-4 + MP3), "ac3.avi" (MPEG-4 + AC-3), "ts" (HEVC with
// B-frames, a keyframe every second, + AAC) or "early.mkv" (H.264 + AAC; the audio starts
// 0.6 s before the video, with an extra beep in that lead). Written to `path`.
void makeFlashBeepClip(const std::string& container, const std::string& path, double seconds = 4);

constexpr double kClipFps = 25;

// Presentation times (s) where a flash starts (mean luma crosses 100: movie,signalstats) /
// a beep starts (the 1 ms peak level crosses -20 dBFS: amovie,aresample=48000,
// asetnsamples=48,astats), edit lists and priming applied as players do.
std::vector<double> flashOnsets(const std::string& path);
std::vector<double> beepOnsets(const std::string& path);

// The largest |beep - flash - offset| over the flashes, each with the beep nearest to
// flash + offset (seconds; offset: where the beeps should be, e.g. an --audio-delay);
// +inf without beeps.
double worstFlashBeepGap(const std::vector<double>& flashes, const std::vector<double>& beeps, double offset = 0);

// The first audio stream's packets in file order: start and duration (s), as ffprobe's
// pts_time and duration_time (packets without either left out).
struct PacketTime {
  double pts = 0, duration = 0;
};
std::vector<PacketTime> audioPacketTimes(const std::string& path);

// MD5 of each packet of the first audio stream, in order ("MD5:<hex>", as ffprobe's data_hash).
std::vector<std::string> audioPacketHashes(const std::string& path);

// Multichannel audio beside 25 fps black video (160x120), 48 kHz, `seconds` long.
// `channels`: 4 (quad), 6 (5.1) or 8 (7.1). `container`: "mp4" (H.264 + AAC) or "mkv"
// (H.264 + PCM s16; Matroska stores no layout, so readers assume the default one).
// Levels: channel i carries a 100 Hz tone of amplitude 0.05 (i + 1) throughout, so its
// level names it. Turns: channel i alone sounds (440 Hz, 0.5) in [0.25 i, 0.25 i + 0.2) s.
enum class ChannelSignal { Levels, Turns };
void makeMultichannelClip(const std::string& container, int channels, ChannelSignal signal, const std::string& path,
                          double seconds = 2);
// FFmpeg's name of the layout makeMultichannelClip gives that many channels ("5.1").
std::string clipLayoutName(int channels);

// The first audio stream: its channel count, layout as ffprobe names it ("5.1",
// "unknown" when the container stores none) and codec.
struct AudioFormat {
  int channels = 0;
  std::string layout, codec;
};
AudioFormat audioFormat(const std::string& path);
// RMS level (dBFS) of each channel of the best audio stream over the whole file (astats'
// RMS_level).
std::vector<double> channelLevels(const std::string& path);

// From the packets' timestamps (all streams, pts_time as ffprobe prints it).
struct StreamEnds {
  double videoEnd = 0;  // last video pts + one frame at kClipFps
  double audioEnd = 0;  // last audio pts + its duration
  int audioStreams = 0;
  std::string audioCodec;
};
StreamEnds streamEnds(const std::string& path);

}  // namespace vp::test
