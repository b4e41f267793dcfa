// The ffmpeg and ffprobe programs as an outside reference for end-to-end tests: clips
// made with them, vidproc's outputs decoded by them (not through the project's
// openSource), their metadata read by ffprobe. Tests skip (visibly) when the programs
// are missing; scripts/setup.sh installs them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace vp::test {

// True when `ffmpeg -version` and `ffprobe -version` run.
bool haveFfmpegCli();

// Runs ffmpeg -hide_banner -nostdin -loglevel error -y ARGS in `cwd`; throws
// std::runtime_error with its stderr when it fails.
void ffmpeg(const std::vector<std::string>& args, const std::string& cwd = "/tmp");

// ffprobe -of json ARGS PATH, parsed.
nlohmann::json ffprobe(const std::string& path, const std::vector<std::string>& args);
// The first video stream's entry (codec_name, width, height, pix_fmt, color_space,
// color_range, field_order, ... as ffprobe names them; absent keys: unspecified).
nlohmann::json probeVideoStream(const std::string& path);
// Every decoded frame of the first video stream: pts_time (s), pict_type, ...
std::vector<nlohmann::json> probeVideoFrames(const std::string& path);

// The first video stream decoded by ffmpeg into raw `pixFmt` frames (rawvideo, no
// filter: no scaling, no deinterlacing; frame timing passed through), one vector per
// frame. Supported pixFmt: yuv420p, yuvj420p, rgb24, gray.
struct RawVideo {
  int width = 0, height = 0;
  std::vector<std::vector<uint8_t>> frames;
};
// outputOptions go after the input (e.g. a -vf select); width/height > 0: the decoded size
// when it is not the stream's header size (a clip whose size changes, from the change on).
RawVideo ffmpegDecode(const std::string& path, const std::string& pixFmt,
                      const std::vector<std::string>& outputOptions = {}, int width = 0, int height = 0);
size_t rawFrameBytes(const std::string& pixFmt, int width, int height);

}  // namespace vp::test
