#include "support/audio_clips.h"

#include "support/ffmpeg_cli.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vp::test {
namespace {

std::string videoGraph(double seconds) {
  // Frames 10 and 11 of every 25 (0.40 and 0.44 s of each second) are white.
  return "color=black:s=160x120:r=25:d=" + std::to_string(seconds) +
         ",geq=lum='if(lt(mod(N+15,25),2),235,16)':cb=128:cr=128,format=yuv420p";
}

// A beep from `phase` seconds into every second, 50 ms of 1 kHz.
std::string audioGraph(double seconds, double phase) {
  return "aevalsrc='if(lt(mod(t+" + std::to_string(1 - phase) + ",1),0.05),0.8*sin(2*PI*1000*t),0)':s=48000:d=" +
         std::to_string(seconds);
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
  const std::string v = videoGraph(seconds);
  if (container == "early.mkv") {  // video delayed by 0.6 s: its flashes at 1.0, 2.0 ... s
    ffmpeg({"-f", "lavfi", "-i", audioGraph(seconds + 0.6, 0.0), "-itsoffset", "0.6", "-f", "lavfi", "-i", v, "-map",
            "1:v", "-map", "0:a", "-c:v", "libx264", "-g", "25", "-c:a", "aac", path});
    return;
  }
  const std::string a = audioGraph(seconds, 0.4);
  std::vector<std::string> args = {"-f", "lavfi", "-i", v, "-f", "lavfi", "-i", a};
  if (container == "mp4") args.insert(args.end(), {"-c:v", "libx264", "-g", "25", "-c:a", "aac"});
  else if (container == "mkv") args.insert(args.end(), {"-c:v", "libx264", "-g", "25", "-c:a", "pcm_s16le"});
  else if (container == "avi") args.insert(args.end(), {"-c:v", "mpeg4", "-q:v", "3", "-c:a", "libmp3lame"});
  else if (container == "ac3.avi") args.insert(args.end(), {"-c:v", "mpeg4", "-q:v", "3", "-c:a", "ac3"});
  else if (container == "ts")  // a camera's transport stream: HEVC with B-frames, AAC
    args.insert(args.end(), {"-c:v", "libx265", "-x265-params", "log-level=none:keyint=25", "-c:a", "aac"});
  else throw std::invalid_argument("makeFlashBeepClip: unknown container " + container);
  args.push_back(path);
  ffmpeg(args);
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
  std::string exprs;
  for (int i = 0; i < channels; ++i) {
    if (i) exprs += "|";
    if (signal == ChannelSignal::Levels)
      exprs += std::to_string(0.05 * (i + 1)) + "*sin(2*PI*100*t)";
    else
      exprs += "if(between(t," + std::to_string(0.25 * i) + "," + std::to_string(0.25 * i + 0.2) +
               "),0.5*sin(2*PI*440*t),0)";
  }
  const std::string d = std::to_string(seconds);
  const std::string a = "aevalsrc=exprs='" + exprs + "':c=" + clipLayoutName(channels) + ":s=48000:d=" + d;
  std::vector<std::string> args = {"-f", "lavfi", "-i", "color=black:s=160x120:r=25:d=" + d, "-f", "lavfi", "-i", a,
                                   "-c:v", "libx264", "-g", "25"};
  if (container == "mp4") args.insert(args.end(), {"-c:a", "aac", "-b:a", "512k"});
  else if (container == "mkv") args.insert(args.end(), {"-c:a", "pcm_s16le"});
  else throw std::invalid_argument("makeMultichannelClip: unknown container " + container);
  args.push_back(path);
  ffmpeg(args);
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
