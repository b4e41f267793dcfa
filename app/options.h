// Command line (CLI11) + config file (toml++) -> Options. The command line wins
// over the config file, which wins over the built-in defaults (the same values
// config/default.toml documents). An unknown config key is an error naming it.
#pragma once

#include "app/input/chain_editor.h"
#include "gpu/filters/registry.h"
#include "gpu/processor.h"
#include "io/source.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vp {

// Exit codes, documented in --help.
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,  // bad input, unwritable output, no device, runtime failure
  kExitUsage = 2,  // bad command line or config file
  kExitInterrupted = 130,  // SIGINT/SIGTERM (output still finalised)
};

// --geometry WxH[+X+Y] or +X+Y (mpv's and X11's spelling): the window's first size in
// screen points and its top-left corner on the screen; what is not given is chosen (the
// video's size, shrunk to fit the screen; centred).
struct WindowGeometry {
  int width = 0, height = 0;  // points; 0: not given
  bool placed = false;        // x, y given
  int x = 0, y = 0;           // points from the screen's top-left corner
};
// Parses `text` into `out`; false (out unchanged) when it is not of the forms above with
// sizes 1..32767 and offsets 0..32767.
bool parseGeometry(const std::string& text, WindowGeometry& out);

struct Options {
  Options();  // the built-in defaults: the chain is one kmeans element, filterDefaults the registry's

  // input
  std::string input;          // file, device or lavfi graph; empty = built-in pattern
  std::string format;         // forced input format (-f): v4l2, lavfi, ...
  std::string webcam;         // --webcam [DEVICE]: shorthand for -f v4l2 DEVICE
  std::string videoSize;      // device option video_size, e.g. 1280x720
  std::string framerate;      // device option framerate
  std::string inputPixfmt;    // device option input_format (mjpeg, yuyv422, ...)
  bool listDevices = false;
  bool reconnect = false;     // reopen an unplugged device, or a live stream that ends or stalls
  LatencyMode latency = LatencyMode::Auto;  // --latency auto|low|normal (io/source.h)
  bool loop = false;
  bool autorotate = true;     // turn frames upright as the stream's display matrix says
  int64_t frames = 0;         // stop after this many processed frames; 0 = all

  // audio
  bool noAudio = false;       // --no-audio: neither played nor written
  int audioTrack = -1;        // --audio-track N: the N-th audio stream (from 0); -1 = the best one
  std::string audioCodec;     // --audio-codec: "" copy when possible, copy, none, aac, ...
  int volume = 100;           // --volume: percent, 0..100 (window playback)
  double audioDelay = 0;      // --audio-delay: seconds the sound comes after the video (window and -o)

  // processing
  ProcessParams process;      // the chain (--vf, or --mode and its shorthands) and the compare view
  // Each registered filter's starting values: the registry's defaults with the shorthands
  // (-k, -r, --passes, ...) applied; elements of --vf, presets and commands start from them.
  std::vector<FilterElement> filterDefaults;
  std::vector<Preset> presets = ChainEditor::defaultPresets();  // config [presets], in file order
  std::string outputView = "processed";  // --output-view: what -o and screenshots save (processed | shown)
  Backend backend = Backend::Auto;
  int streams = 3;            // in-flight slots (CUDA streams)
  std::string hwdec = "auto";  // --hwdec auto|nvdec|no: hardware decoding (nvdec keeps frames on the GPU)
  std::string hwdecCodecs = kDefaultHwdecCodecs;  // --hwdec-codecs: what auto may decode on NVDEC
  int gpu = 0;                // --gpu N: CUDA device for the pipeline and the decoder
  bool listGpus = false;      // --list-gpus: name the CUDA devices, then exit

  // output
  bool headless = false;
  std::string output;         // -o: encode processed frames here
  std::string codec;          // encoder; empty = by extension
  bool overwrite = false;     // -y
  std::string statsJson;      // --stats-json FILE
  bool progress = true;       // progress bar on a terminal (headless)
  std::string control;        // --control FILE: command lines from a FIFO, a file or "-" (stdin)

  // window
  bool vsync = true;
  bool sync = true;           // pace by timestamps (false: as fast as possible)
  bool fullscreen = false;
  WindowGeometry geometry;    // --geometry
  bool hud = true;            // --no-hud: start with the HUD hidden (key h shows it)
  std::string screenshotDir = ".";
  std::map<std::string, std::string> keys;  // key name -> command text (config [keys])

  // benchmark modes (app/player/benchmark_modes.h)
  std::string synthetic;      // --synthetic WxH: pinned frames, no decode
  bool decodeOnly = false;    // --decode-only: decode and discard

  std::string logLevel = "info";
  std::string configPath;     // --config FILE, if given
};

// Parses argv (and the config file it names). On --help/--version prints and sets
// `exitCode` to kExitOk; on error prints one line and sets kExitUsage; returns false
// in both cases. Returns true when the program should run.
bool parseOptions(int argc, const char* const* argv, Options& out, int& exitCode);

// Applies a TOML document (text) to `out` as parseOptions does for --config; throws
// std::runtime_error naming the first unknown key or bad value. For tests.
void applyConfigText(const std::string& tomlText, Options& out);

inline Options::Options() {
  for (const FilterInfo* f : filterRegistry()) filterDefaults.emplace_back(*f);
  process.chain.add(FilterElement(*findFilter("kmeans")));
}

// The starting element of `filter` under `options` (its filterDefaults entry). Inline:
// the player uses it without the command-line parser.
inline FilterElement defaultElement(const Options& options, const FilterInfo& filter) {
  for (const FilterElement& e : options.filterDefaults)
    if (&e.filter() == &filter) return e;
  return FilterElement(filter);
}

}  // namespace vp
