#include "support/ffmpeg_cli.h"

#include "support/clips.h"
#include "support/run_program.h"

#include <stdexcept>

namespace vp::test {

bool haveFfmpegCli() {
  for (const char* tool : {"ffmpeg", "ffprobe"}) {
    try {
      const ProgramRun r = runProgram(tool, {"-version"}, "/tmp", 30);
      if (r.exitCode != 0) return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

void ffmpeg(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> all = {"-hide_banner", "-nostdin", "-loglevel", "error", "-y"};
  all.insert(all.end(), args.begin(), args.end());
  const ProgramRun r = runProgram("ffmpeg", all, cwd, 120);
  if (r.exitCode != 0) {
    std::string line = "ffmpeg";
    for (const std::string& a : all) line += " " + shellQuote(a);
    throw std::runtime_error(line + " failed (exit " + std::to_string(r.exitCode) + "): " + r.err);
  }
}

nlohmann::json ffprobe(const std::string& path, const std::vector<std::string>& args) {
  std::vector<std::string> all = {"-v", "error", "-of", "json"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back(path);
  const ProgramRun r = runProgram("ffprobe", all, "/tmp", 120);
  if (r.exitCode != 0) throw std::runtime_error("ffprobe " + path + " failed: " + r.err);
  return nlohmann::json::parse(r.out);
}

nlohmann::json probeVideoStream(const std::string& path) {
  const nlohmann::json j = ffprobe(path, {"-select_streams", "v:0", "-show_streams"});
  if (!j.contains("streams") || j["streams"].empty()) throw std::runtime_error("no video stream in " + path);
  return j["streams"][0];
}

std::vector<nlohmann::json> probeVideoFrames(const std::string& path) {
  const nlohmann::json j = ffprobe(path, {"-select_streams", "v:0", "-show_frames"});
  std::vector<nlohmann::json> frames;
  for (const auto& f : j["frames"]) frames.push_back(f);
  return frames;
}

size_t rawFrameBytes(const std::string& pixFmt, int width, int height) {
  const size_t w = size_t(width), h = size_t(height), cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (pixFmt == "yuv420p" || pixFmt == "yuvj420p") return w * h + 2 * cw * ch;
  if (pixFmt == "rgb24") return w * h * 3;
  if (pixFmt == "gray") return w * h;
  throw std::invalid_argument("rawFrameBytes: unsupported pixel format " + pixFmt);
}

RawVideo ffmpegDecode(const std::string& path, const std::string& pixFmt,
                      const std::vector<std::string>& outputOptions, int width, int height) {
  RawVideo v;
  if (width > 0 && height > 0) {
    v.width = width, v.height = height;
  } else {
    const nlohmann::json s = probeVideoStream(path);
    v.width = s["width"];
    v.height = s["height"];
  }
  TempDir dir;
  const std::string raw = dir.file("frames.raw");
  // -autorotate 0: the stored picture, as the comparisons expect.
  std::vector<std::string> args = {"-autorotate", "0", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough"};
  args.insert(args.end(), outputOptions.begin(), outputOptions.end());
  for (const char* a : {"-f", "rawvideo", "-pix_fmt"}) args.push_back(a);
  args.push_back(pixFmt);
  args.push_back(raw);
  ffmpeg(args);
  const std::vector<uint8_t> bytes = readFileBytes(raw);
  const size_t frame = rawFrameBytes(pixFmt, v.width, v.height);
  if (bytes.size() % frame != 0)
    throw std::runtime_error(path + ": " + std::to_string(bytes.size()) + " raw bytes, not whole frames of " +
                             std::to_string(frame));
  for (size_t off = 0; off < bytes.size(); off += frame)
    v.frames.emplace_back(bytes.begin() + long(off), bytes.begin() + long(off + frame));
  return v;
}

}  // namespace vp::test
