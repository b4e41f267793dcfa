// Writes the fuzz seed corpus: tiny real clips in several containers, codecs and
// pixel formats (a few frames, small sizes, so mutations stay cheap), made with
// the tests' own encoder (tests/support/clips.h). Generated, never committed.
//   vp_fuzz_seeds OUT_FOLDER
#include "support/clips.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_FOLDER\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::create_directories(dir);
  struct Seed {
    const char* name;  // file name: the extension picks the container
    const char* codec;
    const char* pixFmt;
    int width, height, frames;
    int rotation;
    int changeAt;  // -1: one size
  };
  const Seed seeds[] = {
      {"ffv1_yuv420p.mkv", "ffv1", "yuv420p", 16, 12, 3, 0, -1},
      {"ffv1_gray_1x1.mkv", "ffv1", "gray", 1, 1, 2, 0, -1},
      {"ffv1_yuv420p10le.nut", "ffv1", "yuv420p10le", 9, 7, 2, 0, -1},
      {"x264_yuv420p.mp4", "libx264", "yuv420p", 16, 16, 3, 0, -1},
      {"x264_yuv444p_rot90.mov", "libx264", "yuv444p", 12, 8, 2, 90, -1},
      {"x264_change.ts", "libx264", "yuv420p", 16, 16, 4, 0, 2},
      {"mjpeg_yuvj422p.avi", "mjpeg", "yuv422p", 15, 9, 2, 0, -1},
      {"mjpeg_change.avi", "mjpeg", "yuv420p", 16, 8, 3, 0, 1},
      {"mpeg4_yuv420p.avi", "mpeg4", "yuv420p", 16, 16, 3, 0, -1},
      {"raw_rgb24.nut", "rawvideo", "rgb24", 7, 5, 2, 0, -1},
      {"raw_yuyv422.nut", "rawvideo", "yuyv422", 6, 4, 2, 0, -1},
      {"raw_nv12_rot270.mov", "rawvideo", "nv12", 8, 6, 2, 270, -1},
      {"png_rgba.mkv", "png", "rgba", 8, 8, 2, 0, -1},
      // Decoders whose output vidproc converts (io/pixel_format_map): palettes,
      // planar RGB, alpha, high bit depths, packed 10-bit.
      {"gif_bgr8.gif", "gif", "bgr8", 8, 8, 2, 0, -1},
      {"utvideo_gbrp.avi", "utvideo", "gbrp", 16, 8, 2, 0, -1},
      {"ffvhuff_yuva420p.nut", "ffvhuff", "yuva420p", 16, 16, 2, 0, -1},
      {"huffyuv_yuv422p.avi", "huffyuv", "yuv422p", 8, 6, 2, 0, -1},
      {"png_rgb48be.mkv", "png", "rgb48be", 6, 4, 2, 0, -1},
      {"v210.nut", "v210", "yuv422p10le", 12, 4, 2, 0, -1},
      {"prores_yuv422p10le.mov", "prores_ks", "yuv422p10le", 16, 16, 2, 0, -1},
      {"qtrle_rgb24.mov", "qtrle", "rgb24", 8, 6, 2, 0, -1},
      {"vp8_yuv420p.webm", "libvpx", "yuv420p", 16, 16, 2, 0, -1},
      {"vp9_yuv444p.webm", "libvpx-vp9", "yuv444p", 16, 16, 2, 0, -1},
      {"hevc_yuv420p.mkv", "libx265", "yuv420p", 32, 32, 2, 0, -1},
      {"av1_yuv420p.mkv", "libaom-av1", "yuv420p", 16, 16, 2, 0, -1},
      {"mpeg2_yuv420p.ts", "mpeg2video", "yuv420p", 16, 16, 3, 0, -1},
      {"theora_yuv420p.ogg", "libtheora", "yuv420p", 16, 16, 2, 0, -1},
      {"jpeg2000_gray.nut", "jpeg2000", "gray", 8, 8, 2, 0, -1},
  };
  int written = 0;
  for (const Seed& s : seeds) {
    vp::test::ClipSpec spec;
    spec.codec = s.codec;
    spec.pixFmt = s.pixFmt;
    spec.width = s.width;
    spec.height = s.height;
    spec.frames = s.frames;
    spec.rotation = s.rotation;
    spec.changeAt = s.changeAt;
    spec.changedWidth = s.width / 2;
    spec.changedHeight = s.height / 2;
    const std::string path = dir + "/" + s.name;
    try {
      vp::test::makeClip(path, spec);
      ++written;
    } catch (const std::exception& e) {  // an encoder this libavcodec lacks: one seed fewer
      std::fprintf(stderr, "vp_fuzz_seeds: skipped %s: %s\n", s.name, e.what());
      std::filesystem::remove(path);  // no half-written seed
    }
  }
  std::printf("%d seeds in %s\n", written, dir.c_str());
  return written > 0 ? 0 : 1;
}
