// Makes a test clip with the project's own encoder (tests/support/clips.h), so the
// GPU machine, which has no FFmpeg tools, can make the clips its benchmarks decode.
//   vp_make_clip OUT.mp4 WIDTH HEIGHT FRAMES [CODEC=libx264] [PIXFMT=yuv420p] [FPS=30] [ROTATION=0]
//                [CHANGE_AT WxH]
// ROTATION: clockwise degrees a player turns the picture (a display matrix; .mp4/.mov).
// CHANGE_AT WxH: frames from index CHANGE_AT on have size WxH (the encoder is reopened:
// use a .ts output for H.264 / HEVC).
#include "support/clips.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s OUT WIDTH HEIGHT FRAMES [CODEC=libx264] [PIXFMT=yuv420p] [FPS=30] [ROTATION=0] "
                 "[CHANGE_AT WxH]\n",
                 argv[0]);
    return 2;
  }
  vp::test::ClipSpec spec;
  spec.width = std::atoi(argv[2]);
  spec.height = std::atoi(argv[3]);
  spec.frames = std::atoi(argv[4]);
  spec.codec = argc > 5 ? argv[5] : "libx264";
  spec.pixFmt = argc > 6 ? argv[6] : "yuv420p";
  spec.fps = argc > 7 ? std::atoi(argv[7]) : 30;
  spec.rotation = argc > 8 ? std::atoi(argv[8]) : 0;
  if (argc > 10) {
    spec.changeAt = std::atoi(argv[9]);
    if (std::sscanf(argv[10], "%dx%d", &spec.changedWidth, &spec.changedHeight) != 2) {
      std::fprintf(stderr, "vp_make_clip: size '%s' is not WxH\n", argv[10]);
      return 2;
    }
  }
  spec.preset = "veryfast";
  spec.crf = 20;
  try {
    vp::test::makeClip(argv[1], spec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp_make_clip: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %dx%d, %d frames, %s %s\n", argv[1], spec.width, spec.height, spec.frames, spec.codec.c_str(),
              spec.pixFmt.c_str());
  return 0;
}
