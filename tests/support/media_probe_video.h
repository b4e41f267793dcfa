// The video side of the outside reference reader (support/media_probe.h): a file's video
// stream and frames as ffprobe describes them, and its frames decoded to raw pixels as the
// ffmpeg program writes them, with FFmpeg's libraries (libavformat, libavcodec,
// libswscale) directly and not through the project's io/. Needs no ffmpeg / ffprobe
// program, so it also runs on the GPU machine.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vp::test::probe {

// The first video stream's entry as ffprobe -select_streams v:0 -show_streams -of json
// prints it, for these keys: index, codec_name, codec_type, width, height, pix_fmt,
// color_range, color_space, color_transfer, color_primaries, field_order (a key ffprobe
// leaves out, e.g. an unspecified range, is absent). Throws when there is no video stream.
nlohmann::json videoStream(const std::string& path);

// Every decoded frame of the first video stream as ffprobe -show_frames prints it, for
// these keys: media_type, stream_index, key_frame, pts, pts_time, best_effort_timestamp,
// best_effort_timestamp_time, width, height, pix_fmt, pict_type (times as ffprobe's
// strings, "0.040000"; pts keys absent without a timestamp).
std::vector<nlohmann::json> videoFrames(const std::string& path);

// The first video stream decoded as
//   ffmpeg -autorotate 0 -i PATH -map 0:v:0 -fps_mode passthrough -f rawvideo -pix_fmt FMT
// writes it: every decoded frame once (no frame rate conversion, no filter), converted to
// `pixFmt` with libswscale as ffmpeg's automatic scale filter does (bicubic; the matrix and
// range the frame states), planes packed without padding (rawFrameBytes). One difference:
// a frame whose size differs from the first keeps its own size (ffmpeg scales it to the
// first's); sizes says each frame's.
struct DecodedVideo {
  int width = 0, height = 0;  // the first frame's size
  std::vector<std::vector<uint8_t>> frames;
  std::vector<std::pair<int, int>> sizes;  // width, height of each frame
};
DecodedVideo decodeVideo(const std::string& path, const std::string& pixFmt);

}  // namespace vp::test::probe
