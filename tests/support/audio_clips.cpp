#include "support/audio_clips.h"

#include "support/clips.h"
#include "support/ffmpeg_cli.h"

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

// Times where `values` (one per frame) rise above `threshold`.
std::vector<double> rises(const nlohmann::json& frames, const char* tag, double threshold) {
  std::vector<double> out;
  bool above = false;
  for (const auto& f : frames) {
    if (!f.contains("tags") || !f["tags"].contains(tag) || !f.contains("pts_time")) continue;
    const std::string text = f["tags"][tag];
    const double v = text == "-inf" ? -std::numeric_limits<double>::infinity() : std::stod(text);
    const bool now = v > threshold;
    if (now && !above) out.push_back(std::stod(f["pts_time"].get<std::string>()));
    above = now;
  }
  return out;
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
  const auto j = ffprobe(path, {"-select_streams", "a:0", "-show_entries", "stream=codec_name,channels,channel_layout"});
  AudioFormat f;
  if (j["streams"].empty()) return f;
  const auto& s = j["streams"][0];
  f.channels = s.value("channels", 0);
  f.layout = s.value("channel_layout", std::string("unknown"));
  f.codec = s.value("codec_name", std::string());
  return f;
}

std::vector<double> channelLevels(const std::string& path) {
  const auto j = ffprobe("amovie=" + path + ",astats=metadata=1:reset=0",
                         {"-f", "lavfi", "-show_entries", "frame_tags"});
  std::vector<double> out;
  if (j["frames"].empty()) return out;
  const auto& tags = j["frames"].back()["tags"];  // reset=0: the last frame has the whole file's levels
  for (int c = 1; tags.contains("lavfi.astats." + std::to_string(c) + ".RMS_level"); ++c)
    out.push_back(std::stod(tags["lavfi.astats." + std::to_string(c) + ".RMS_level"].get<std::string>()));
  return out;
}

std::vector<double> flashOnsets(const std::string& path) {
  const auto j = ffprobe("movie=" + path + ",signalstats",
                         {"-f", "lavfi", "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG"});
  return rises(j["frames"], "lavfi.signalstats.YAVG", 100);
}

std::vector<double> beepOnsets(const std::string& path) {
  const auto j = ffprobe("amovie=" + path + ",aresample=48000,asetnsamples=n=48:p=0,astats=metadata=1:reset=1",
                         {"-f", "lavfi", "-show_entries", "frame=pts_time:frame_tags=lavfi.astats.Overall.Peak_level"});
  return rises(j["frames"], "lavfi.astats.Overall.Peak_level", -20);
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
  const auto j = ffprobe(path, {"-select_streams", "a:0", "-show_data_hash", "MD5", "-show_entries", "packet=data_hash"});
  std::vector<std::string> out;
  for (const auto& p : j["packets"])
    if (p.contains("data_hash")) out.push_back(p["data_hash"]);
  return out;
}

std::vector<PacketTime> audioPacketTimes(const std::string& path) {
  const auto j = ffprobe(path, {"-select_streams", "a:0", "-show_entries", "packet=pts_time,duration_time"});
  std::vector<PacketTime> out;
  for (const auto& p : j["packets"])
    if (p.contains("pts_time") && p.contains("duration_time"))
      out.push_back({std::stod(p["pts_time"].get<std::string>()), std::stod(p["duration_time"].get<std::string>())});
  return out;
}

StreamEnds streamEnds(const std::string& path) {
  StreamEnds e;
  const auto streams = ffprobe(path, {"-show_entries", "stream=codec_type,codec_name"});
  for (const auto& s : streams["streams"])
    if (s["codec_type"] == "audio") {
      if (e.audioStreams++ == 0) e.audioCodec = s["codec_name"];
    }
  const auto j = ffprobe(path, {"-show_entries", "packet=stream_index,codec_type,pts_time,duration_time"});
  const auto time = [](const nlohmann::json& p, const char* key) {
    return p.contains(key) ? std::stod(p[key].get<std::string>()) : 0.0;
  };
  e.videoEnd = e.audioEnd = -1e9;
  for (const auto& p : j["packets"]) {
    if (!p.contains("pts_time")) continue;
    if (p["codec_type"] == "video") e.videoEnd = std::max(e.videoEnd, time(p, "pts_time") + 1 / kClipFps);
    else if (p["codec_type"] == "audio")
      e.audioEnd = std::max(e.audioEnd, time(p, "pts_time") + time(p, "duration_time"));
  }
  return e;
}

}  // namespace vp::test
