#include "support/audio_clips.h"

#include "support/clips.h"
#include "support/media_probe.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vp::test {
namespace {

// 160x120 at 25 fps, H.264 as the ffmpeg program encodes it by default (preset medium,
// crf 23: B-frames), a keyframe every second; mono 48 kHz.
ClipSpec avClip(double seconds, Picture picture, const std::string& audioCodec) {
  ClipSpec s;
  s.width = 160;
  s.height = 120;
  s.fps = int(kClipFps);
  s.frames = int(std::lround(seconds * kClipFps));
  s.picture = picture;
  s.codec = "libx264";
  s.preset = "medium";
  s.crf = 23;
  s.gop = 25;
  s.audio.codec = audioCodec;
  return s;
}

// One measured value at a presentation time (ffprobe's pts_time and a filter's tag).
struct Reading {
  bool hasPts = false;
  double time = 0, value = 0;
};

// Times where the readings rise above `threshold` (those without a time do not count).
std::vector<double> rises(const std::vector<Reading>& readings, double threshold) {
  std::vector<double> out;
  bool above = false;
  for (const Reading& r : readings) {
    if (!r.hasPts) continue;
    const bool now = r.value > threshold;
    if (now && !above) out.push_back(r.time);
    above = now;
  }
  return out;
}

double dBFS(double level) { return level > 0 ? 20 * std::log10(level) : -std::numeric_limits<double>::infinity(); }

// The first audio stream's index (ffprobe's -select_streams a:0), -1 without one.
int firstAudio(const std::vector<probe::Stream>& streams) {
  for (const probe::Stream& s : streams)
    if (s.type == "audio") return s.index;
  return -1;
}

}  // namespace

void makeFlashBeepClip(const std::string& container, const std::string& path, double seconds) {
  ClipSpec s = avClip(seconds, Picture::Flashes, "aac");
  s.audio.sound = Sound::Beeps;
  if (container == "mkv") {
    s.audio.codec = "pcm_s16le";
  } else if (container == "avi" || container == "ac3.avi") {
    s.codec = "mpeg4";
    s.gop = 0;
    s.audio.codec = container == "avi" ? "libmp3lame" : "ac3";
  } else if (container == "ts") {  // a camera's transport stream: HEVC with B-frames, AAC
    s.codec = "libx265";
    s.preset = "medium";
    s.crf = 28;
  } else if (container == "early.mkv") {  // the video from 0.6 s: its flashes at 1.0, 2.0 ... s
    s.audio.leadS = 0.6;
  } else if (container != "mp4") {
    throw std::invalid_argument("makeFlashBeepClip: unknown container " + container);
  }
  makeClip(path, s);
}

std::string clipLayoutName(int channels) {
  switch (channels) {
    case 4: return "quad";
    case 6: return "5.1";
    case 8: return "7.1";
    default: throw std::invalid_argument("makeMultichannelClip: 4, 6 or 8 channels");
  }
}

void makeMultichannelClip(const std::string& container, int channels, ChannelSignal signal, const std::string& path,
                          double seconds) {
  ClipSpec s = avClip(seconds, Picture::Black, "aac");
  s.audio.layout = clipLayoutName(channels);
  s.audio.sound = signal == ChannelSignal::Levels ? Sound::Levels : Sound::Turns;
  if (container == "mp4") s.audio.bitRate = 512000;
  else if (container == "mkv") s.audio.codec = "pcm_s16le";
  else throw std::invalid_argument("makeMultichannelClip: unknown container " + container);
  makeClip(path, s);
}

AudioFormat audioFormat(const std::string& path) {
  const std::vector<probe::Stream> streams = probe::streams(path);
  AudioFormat f;
  const int a = firstAudio(streams);
  if (a < 0) return f;
  f.channels = streams[size_t(a)].channels;
  f.layout = streams[size_t(a)].layout;
  f.codec = streams[size_t(a)].codec;
  return f;
}

// As astats' RMS_level over the whole file (amovie=PATH,astats=reset=0).
std::vector<double> channelLevels(const std::string& path) {
  const probe::DecodedAudio audio = probe::decodeAudio(path);
  std::vector<double> squares(size_t(audio.channels), 0.0);
  int64_t count = 0;
  for (const probe::AudioFrame& f : audio.frames) {
    for (size_t i = 0; i < f.samples.size(); ++i) squares[i % squares.size()] += double(f.samples[i]) * f.samples[i];
    count += int64_t(f.samples.size() / squares.size());
  }
  std::vector<double> out;
  for (double sq : squares) out.push_back(dBFS(count ? std::sqrt(sq / double(count)) : 0));
  return out;
}

// As movie=PATH,signalstats: each frame's mean luma (YAVG).
std::vector<double> flashOnsets(const std::string& path) {
  std::vector<Reading> r;
  for (const probe::LumaFrame& f : probe::videoLuma(path)) r.push_back({f.hasPts, f.pts, f.meanLuma});
  return rises(r, 100);
}

// As amovie=PATH,aresample=48000,asetnsamples=n=48:p=0,astats=reset=1: the peak of every
// channel over each 1 ms chunk. A chunk's time is that of its first sample, counted in
// the decoded frame holding it (so a jump between frames' timestamps shows as in FFmpeg).
std::vector<double> beepOnsets(const std::string& path) {
  constexpr int kRate = 48000, kChunk = 48;
  const probe::DecodedAudio audio = probe::decodeAudio(path, kRate);
  std::vector<Reading> r;
  const size_t ch = size_t(audio.channels);
  bool hasPts = false;
  int64_t framePts = 0, frameStart = 0, total = 0;  // in samples
  double peak = 0;
  int64_t chunkPts = 0;
  bool chunkHasPts = false;
  for (const probe::AudioFrame& f : audio.frames) {
    const int64_t n = int64_t(f.samples.size() / ch);
    if (f.hasPts) {  // else it goes on from the last frame's time
      hasPts = true;
      framePts = f.pts;
      frameStart = total;
    }
    for (int64_t i = 0; i < n; ++i, ++total) {
      if (total % kChunk == 0) {
        chunkHasPts = hasPts;
        chunkPts = framePts + (total - frameStart);
        peak = 0;
      }
      for (size_t c = 0; c < ch; ++c) peak = std::max(peak, double(std::fabs(f.samples[size_t(i) * ch + c])));
      if (total % kChunk == kChunk - 1) r.push_back({chunkHasPts, double(chunkPts) / kRate, dBFS(peak)});
    }
  }
  if (total % kChunk != 0) r.push_back({chunkHasPts, double(chunkPts) / kRate, dBFS(peak)});  // p=0: a short last one
  return rises(r, -20);
}

double worstFlashBeepGap(const std::vector<double>& flashes, const std::vector<double>& beeps, double offset) {
  double worst = flashes.empty() ? std::numeric_limits<double>::infinity() : 0;
  for (double f : flashes) {
    double best = std::numeric_limits<double>::infinity();
    for (double b : beeps) best = std::min(best, std::fabs(b - f - offset));
    worst = std::max(worst, best);
  }
  return worst;
}

std::vector<std::string> audioPacketHashes(const std::string& path) {
  const int a = firstAudio(probe::streams(path));
  std::vector<std::string> out;
  for (const probe::Packet& p : probe::packets(path))
    if (p.stream == a) out.push_back(p.md5);
  return out;
}

// Packets without a pts or a duration are left out, as ffprobe prints no pts_time /
// duration_time for them.
std::vector<PacketTime> audioPacketTimes(const std::string& path) {
  const int a = firstAudio(probe::streams(path));
  std::vector<PacketTime> out;
  for (const probe::Packet& p : probe::packets(path))
    if (p.stream == a && p.hasPts && p.duration != 0) out.push_back({p.pts, p.duration});
  return out;
}

StreamEnds streamEnds(const std::string& path) {
  StreamEnds e;
  for (const probe::Stream& s : probe::streams(path))
    if (s.type == "audio" && e.audioStreams++ == 0) e.audioCodec = s.codec;
  e.videoEnd = e.audioEnd = -1e9;
  for (const probe::Packet& p : probe::packets(path)) {
    if (!p.hasPts) continue;
    if (p.type == "video") e.videoEnd = std::max(e.videoEnd, p.pts + 1 / kClipFps);
    else if (p.type == "audio") e.audioEnd = std::max(e.audioEnd, p.pts + p.duration);
  }
  return e;
}

}  // namespace vp::test
