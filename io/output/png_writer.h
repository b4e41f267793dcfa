// Screenshots: one RGB24 frame (as the processors output) to a PNG file through libavcodec's png encoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vp {

// Writes `width` x `height` packed RGB24 pixels (`pitch` bytes between rows) to `path`
// (replacing it). Throws std::runtime_error with a one-line message naming the
// file on failure. Reading back: openSource({path}) decodes it (image2).
void writePng(const std::string& path, const uint8_t* rgb, size_t pitch, int width, int height);

}  // namespace vp
