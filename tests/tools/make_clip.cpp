// Makes a test clip with the project's own encoder (tests/support/clips.h), so the
// GPU machine, which has no FFmpeg tools, can make the clips its benchmarks decode.
//   vp_make_clip OUT.mp4 WIDTH HEIGHT FRAMES [CODEC=libx264] [PIXFMT=yuv420p] [FPS=30] [ROTATION=0]
//                [CHANGE_AT WxH] [OPTIONS]
// ROTATION: clockwise degrees a player turns the picture (a display matrix; .mp4/.mov).
// CHANGE_AT WxH: frames from index CHANGE_AT on have size WxH (the encoder is reopened:
// use a .ts output for H.264 / HEVC).
// OPTIONS (anywhere after OUT), for clips with sound (clips.h's Picture, Sound, AudioSpec):
//   --picture natural|black|flashes|noise   what the frames show (default natural)
//   --audio CODEC         an audio stream: aac, ac3, libmp3lame, pcm_s16le, flac, ...
//   --sound beeps|sine|silence|levels|turns (default beeps: one on each flash)
//   --layout NAME         mono (default), stereo, 5.1, 7.1, ...
//   --rate HZ             sample rate (default 48000)
// e.g. the A-V sync clip of the audio tests: OUT.mp4 160 120 100 libx264 yuv420p 25
//      --picture flashes --audio aac
#include "support/clips.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <string>
#include <vector>

namespace {

// Looks `name` up in `table`; false (with a message) when it is not there.
template <class T>
bool pick(const std::map<std::string, T>& table, const std::string& name, const char* what, T& out) {
  const auto it = table.find(name);
  if (it == table.end()) {
    std::fprintf(stderr, "vp_make_clip: unknown %s '%s'\n", what, name.c_str());
    return false;
  }
  out = it->second;
  return true;
}

// Moves the --options out of `args` into `spec`; false on a bad one.
bool parseOptions(std::vector<std::string>& args, vp::test::ClipSpec& spec) {
  using vp::test::Picture;
  using vp::test::Sound;
  const std::map<std::string, Picture> pictures = {
      {"natural", Picture::Natural}, {"black", Picture::Black}, {"flashes", Picture::Flashes}, {"noise", Picture::Noise}};
  const std::map<std::string, Sound> sounds = {{"beeps", Sound::Beeps},     {"sine", Sound::Sine},
                                               {"silence", Sound::Silence}, {"levels", Sound::Levels},
                                               {"turns", Sound::Turns}};
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      positional.push_back(a);
      continue;
    }
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "vp_make_clip: %s needs a value\n", a.c_str());
      return false;
    }
    const std::string& v = args[++i];
    if (a == "--picture") {
      if (!pick(pictures, v, "picture", spec.picture)) return false;
    } else if (a == "--sound") {
      if (!pick(sounds, v, "sound", spec.audio.sound)) return false;
    } else if (a == "--audio") {
      spec.audio.codec = v;
    } else if (a == "--layout") {
      spec.audio.layout = v;
    } else if (a == "--rate") {
      spec.audio.sampleRate = std::atoi(v.c_str());
    } else if (a == "--scene-every") {  // a scene cut every N frames (every second scene noisy)
      spec.sceneEvery = std::atoi(v.c_str());
    } else {
      std::fprintf(stderr, "vp_make_clip: unknown option %s\n", a.c_str());
      return false;
    }
  }
  args = positional;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  vp::test::ClipSpec spec;
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool optionsOk = parseOptions(args, spec);
  if (!optionsOk || args.size() < 4) {
    std::fprintf(stderr,
                 "usage: %s OUT WIDTH HEIGHT FRAMES [CODEC=libx264] [PIXFMT=yuv420p] [FPS=30] [ROTATION=0] "
                 "[CHANGE_AT WxH] [--picture natural|black|flashes|noise] [--audio CODEC] "
                 "[--sound beeps|sine|silence|levels|turns] [--layout NAME] [--rate HZ] [--scene-every N]\n",
                 argv[0]);
    return 2;
  }
  const auto arg = [&](size_t i) { return args[i].c_str(); };
  spec.width = std::atoi(arg(1));
  spec.height = std::atoi(arg(2));
  spec.frames = std::atoi(arg(3));
  spec.codec = args.size() > 4 ? arg(4) : "libx264";
  spec.pixFmt = args.size() > 5 ? arg(5) : "yuv420p";
  spec.fps = args.size() > 6 ? std::atoi(arg(6)) : 30;
  spec.rotation = args.size() > 7 ? std::atoi(arg(7)) : 0;
  if (args.size() > 9) {
    spec.changeAt = std::atoi(arg(8));
    if (std::sscanf(arg(9), "%dx%d", &spec.changedWidth, &spec.changedHeight) != 2) {
      std::fprintf(stderr, "vp_make_clip: size '%s' is not WxH\n", arg(9));
      return 2;
    }
  }
  spec.preset = "veryfast";
  spec.crf = 20;
  try {
    vp::test::makeClip(arg(0), spec);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp_make_clip: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %dx%d, %d frames, %s %s%s%s\n", arg(0), spec.width, spec.height, spec.frames, spec.codec.c_str(),
              spec.pixFmt.c_str(), spec.audio.codec.empty() ? "" : ", audio ", spec.audio.codec.c_str());
  return 0;
}
