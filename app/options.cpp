#include "app/options.h"

#include "app/input/command_table.h"
#include "app/input/filter_docs.h"
#include "gpu/filters/registry.h"

#include <CLI/CLI.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace vp {
namespace {

constexpr const char* kFooterEnd = R"(Exit codes: 0 success; 1 bad input, unwritable output, no CUDA device for --backend cuda,
or a runtime failure; 2 bad command line or config file; 130 interrupted (SIGINT/SIGTERM;
the output file is still finalised).

Every option can also be set in a TOML config file (--config FILE; keys are the long
option names, see config/default.toml); the command line wins.)";

// The one-filter shorthands of earlier versions: each sets a filter option's starting value.
struct OptionFlag {
  const char* flags;   // CLI11 names: "-k,--clusters"
  const char* filter;  // "kmeans"
  const char* option;  // "k"
  const char* help;
  const FilterInfo& info() const { return *findFilter(filter); }
  int index() const { return info().optionIndex(option); }
};

const std::vector<OptionFlag>& optionFlags() {
  static const std::vector<OptionFlag> kFlags = [] {
    std::vector<OptionFlag> out = {
        {"-k,--clusters", "kmeans", "k", "K-means clusters"},
        {"--iterations", "kmeans", "iterations", "K-means maximum iterations per frame"},
        {"--epsilon", "kmeans", "epsilon", "K-means stops when the largest squared centre shift < this"},
        {"--init", "kmeans", "init", "K-means initialisation"},
        {"--seed", "kmeans", "seed", "k-means++ seed"},
        {"-r,--radius", "blur", "r", "Box blur radius in pixels"},
        {"--passes", "blur", "passes", "Box blur passes (3 ~ Gaussian)"},
        {"--border", "blur", "border", "Blur border"},
    };
    for (const OptionFlag& sh : out)
      if (!findFilter(sh.filter) || sh.index() < 0)
        throw std::logic_error(std::string(sh.flags) + " names no registered option: " + sh.filter + "." + sh.option);
    return out;
  }();
  return kFlags;
}

// --vf NAME=help: the text to print instead of running.
struct FilterHelpRequest {
  std::string text;
};

// String forms of enum options, converted after parsing.
struct EnumStrings {
  std::string mode, vf, backend = "auto", compare = "off";
  std::vector<std::string> shorthand = std::vector<std::string>(optionFlags().size());  // "" = not given
  int splitPercent = 50;
  // Which of --vf / --mode the command line itself gave: it wins over the config's other.
  bool cliVf = false, cliMode = false;
  bool vfGiven = false;  // --vf was given at all (an empty value is the empty chain)
  bool noWarm = false, noVsync = false, noSync = false, noProgress = false, noAutorotate = false, noHud = false;
  std::string latency = "auto", geometry;
};

std::string filterNameList() { return filterNames(", ") + ", none"; }

void buildCli(CLI::App& app, Options& o, EnumStrings& e) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.footer(filtersHelpText() + "\n" + commandsHelpText() + "\n" + kFooterEnd);
  app.set_version_flag("--version", "vidproc " VP_VERSION);

  app.add_option("input", o.input, "Video file, device or lavfi graph (default: a built-in moving pattern)");
  app.add_option("-f,--format", o.format, "Force the input format (v4l2, lavfi, ...)");
  app.add_option("--webcam", o.webcam, "Capture from a webcam: -f v4l2 DEVICE")->expected(0, 1)->default_str("");
  app.add_option("--video-size", o.videoSize, "Capture size, e.g. 1280x720 (devices)");
  app.add_option("--framerate", o.framerate, "Capture frame rate (devices)");
  app.add_option("--input-pixfmt", o.inputPixfmt, "Capture pixel format: mjpeg, yuyv422, ... (devices)");
  app.add_flag("--list-devices", o.listDevices, "List capture devices and their formats, then exit");
  app.add_flag("--reconnect", o.reconnect,
               "Reopen a capture device that is unplugged, or a live stream that ends or stalls, when it returns");
  app.add_option("--latency", e.latency,
                 "low: live handling (short probe, newest frame shown at once, late frames dropped and counted); "
                 "normal: buffered and paced like a file; auto: low for webcams and network streams "
                 "(udp, rtp, rtsp, srt, rtmp, tcp, .sdp, live HLS)")
      ->check(CLI::IsMember({"auto", "low", "normal"}));
  app.add_flag("--loop", o.loop, "Restart the input at its end (files)");
  app.add_flag("--no-autorotate", e.noAutorotate, "Keep frames as stored, ignoring the display rotation");
  app.add_option("--frames", o.frames, "Stop after N processed frames (0 = all)")->check(CLI::NonNegativeNumber);

  app.add_flag("--no-audio", o.noAudio, "No sound: neither played nor written to -o");
  app.add_option("--audio-track", o.audioTrack, "Play / keep the N-th audio stream (from 0; default: the best one)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--audio-codec", o.audioCodec,
                 "Audio of -o: copy, none, aac, libmp3lame, ... (default: copy when the container takes it, "
                 "else AAC)");

  app.add_option("--volume", o.volume, "Sound volume in percent (0..100; keys 9 / 0)")->check(CLI::Range(0, 100));
  app.add_option("--audio-delay", o.audioDelay, "Play the sound SECONDS later than the video (negative: earlier); -o files get their "
                 "audio shifted the same way")
      ->check(CLI::Range(-60.0, 60.0));

  app.add_option("--vf", e.vf,
                 "Filter chain, ffmpeg's syntax: NAME=KEY=VALUE:...,NAME... (see Filters below; --vf NAME=help)");
  app.add_option("--mode", e.mode, "A one-filter chain: " + filterNameList() + " (default kmeans)")
      ->check([](const std::string& v) {
        return v == "none" || findFilter(v) ? std::string() : "must be one of " + filterNameList();
      });
  for (size_t i = 0; i < optionFlags().size(); ++i) {
    const OptionFlag& sh = optionFlags()[i];
    const OptionInfo& o = sh.info().option(sh.index());
    const std::string help = std::string(sh.help) + " (" + sh.filter + " " + o.name + ": " +
                             optionRange(o) + ")";
    app.add_option(sh.flags, e.shorthand[i], help)->check([&o](const std::string& v) {
      try {
        parseOptionValue(o, v);
        return std::string();
      } catch (const std::invalid_argument& bad) {
        return std::string(bad.what());
      }
    });
  }
  app.add_flag("--no-warm", e.noWarm, "Re-initialise K-means on every frame instead of warm-starting (kmeans warm=0)");
  app.add_option("--compare", e.compare, "Compare view: off, split (original left of a line) or side (side by side)")
      ->check(CLI::IsMember({"off", "split", "side"}));
  app.add_option("--split", e.splitPercent, "Compare split line at this percent of the width")->check(CLI::Range(0, 100));
  app.add_option("--output-view", o.outputView,
                 "What -o and screenshots save with a compare view: processed (the filtered frame) or shown")
      ->check(CLI::IsMember({"processed", "shown"}));
  app.add_option("--backend", e.backend, "auto, cuda or cpu")->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  app.add_option("--streams", o.streams, "Frames in flight (CUDA streams)")->check(CLI::Range(1, 16));
  app.add_option("--hwdec", o.hwdec,
                 "Hardware decoding: auto (default: NVDEC for the --hwdec-codecs when it can, else software), nvdec "
                 "(NVDEC or fail) or no")
      ->check(CLI::IsMember({"auto", "nvdec", "no"}));
  app.add_option("--hwdec-codecs", o.hwdecCodecs,
                 std::string("Codecs --hwdec auto decodes on NVDEC, FFmpeg's names separated by commas, or all "
                             "(default ") + kDefaultHwdecCodecs + ": the codecs whose decoding is exact)")
      ->check([](const std::string& list) { return hwdecCodecsError(list); });
  app.add_option("--gpu", o.gpu, "CUDA device N for processing and decoding (see --list-gpus)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--list-gpus", o.listGpus, "List the CUDA devices, then exit");

  app.add_flag("--headless", o.headless, "No window (chosen automatically when there is no display)");
  app.add_option("-o,--output", o.output, "Encode the processed video to FILE (.mp4/.mkv: H.264; --codec ffv1: lossless RGB)");
  app.add_option("--codec", o.codec, "Encoder: libx264, ffv1, ... (default by extension)");
  app.add_flag("-y,--overwrite", o.overwrite, "Overwrite an existing output file");
  app.add_option("--stats-json", o.statsJson, "Write run statistics as JSON to FILE");
  app.add_flag("--no-progress", e.noProgress, "No progress bar");
  app.add_option("--control", o.control,
                 "Read commands from FILE while running: a FIFO, a file being appended to, or - (stdin); "
                 "see Control commands below");

  app.add_flag("--no-vsync", e.noVsync, "Do not wait for the display's vertical sync");
  app.add_flag("--no-sync", e.noSync, "Present frames as fast as they come instead of by timestamp");
  app.add_flag("--fullscreen", o.fullscreen, "Start in fullscreen (the picture letterboxed; key f)");
  app.add_option("--geometry", e.geometry,
                 "Window size and place: WxH, WxH+X+Y or +X+Y in screen points (default: the video's size "
                 "fitted to the screen, centred)")
      ->check([](const std::string& v) {
        WindowGeometry g;
        return parseGeometry(v, g) ? std::string() : "expected WxH, WxH+X+Y or +X+Y, got '" + v + "'";
      });
  app.add_flag("--no-hud", e.noHud, "Start with the HUD hidden (key h shows it)");
  app.add_option("--screenshot-dir", o.screenshotDir, "Folder for screenshots (key s)");

  app.add_option("--synthetic", o.synthetic, "Benchmark: process WxH frames from memory (no decode), e.g. 1920x1080");
  app.add_flag("--decode-only", o.decodeOnly, "Benchmark: decode the input and discard the frames");
  app.add_option("--log-level", o.logLevel, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.add_option("--config", o.configPath, "TOML config file (see config/default.toml)");
}

std::string tomlScalar(const toml::node& node, const std::string& key) {
  if (node.is_string()) return **node.as_string();
  if (node.is_integer()) return std::to_string(**node.as_integer());
  if (node.is_floating_point()) {
    const double d = **node.as_floating_point();
    std::ostringstream os;
    os.precision(17);
    os << d;
    return os.str();
  }
  throw std::runtime_error("config: key '" + key + "' must be a string, number or boolean");
}

// Turns a config table into command-line words placed before the real arguments,
// so the real ones win (TakeLast) and CLI11 validates both the same way.
std::vector<std::string> configArgs(const toml::table& table, CLI::App& app, Options& o) {
  std::vector<std::string> args;
  for (const auto& [k, node] : table) {
    const std::string key(k.str());
    if (key == "presets") {
      const toml::table* presets = node.as_table();
      if (!presets) throw std::runtime_error("config: 'presets' must be a table of NAME = \"CHAIN\"");
      std::vector<std::pair<int, Preset>> ordered;  // toml++ sorts keys; cycle in the file's order
      for (const auto& [name, chain] : *presets) {
        auto v = chain.value<std::string>();
        if (!v) throw std::runtime_error("config: presets." + std::string(name.str()) + " must be a chain string");
        ordered.push_back({int(chain.source().begin.line), {std::string(name.str()), *v}});
      }
      std::stable_sort(ordered.begin(), ordered.end(), [](auto& a, auto& b) { return a.first < b.first; });
      o.presets.clear();
      for (auto& [line, preset] : ordered) o.presets.push_back(preset);
      continue;
    }
    if (key == "keys") {
      const toml::table* keys = node.as_table();
      if (!keys) throw std::runtime_error("config: 'keys' must be a table of \"key\" = \"command\"");
      for (const auto& [action, binding] : *keys) {
        auto v = binding.value<std::string>();
        if (!v) throw std::runtime_error("config: keys." + std::string(action.str()) + " must be a string");
        o.keys[std::string(action.str())] = *v;
      }
      continue;
    }
    CLI::Option* opt = key == "input" ? app.get_option_no_throw("input") : app.get_option_no_throw("--" + key);
    if (!opt || key == "config" || key == "help" || key == "version")
      throw std::runtime_error("config: unknown key '" + key + "'");
    if (node.is_boolean()) {
      if (opt->get_expected_max() != 0) throw std::runtime_error("config: key '" + key + "' is not a boolean");
      if (**node.as_boolean()) args.push_back("--" + key);
      continue;
    }
    if (key == "input") {
      args.push_back(tomlScalar(node, key));
      continue;
    }
    args.push_back("--" + key);
    args.push_back(tomlScalar(node, key));
  }
  return args;
}

// The chain the run starts with: --vf, else --mode; both built on the shorthands' values.
void buildChain(Options& o, const EnumStrings& e) {
  o.filterDefaults.clear();
  for (const FilterInfo* f : filterRegistry()) o.filterDefaults.emplace_back(*f);
  for (size_t i = 0; i < optionFlags().size(); ++i) {
    if (e.shorthand[i].empty()) continue;
    const OptionFlag& sh = optionFlags()[i];
    FilterElement& el = o.filterDefaults[registryIndex(sh.info())];
    el.set(sh.index(), parseOptionValue(sh.info().option(sh.index()), e.shorthand[i]));
  }
  if (e.noWarm) {
    const FilterInfo& kmeans = *findFilter("kmeans");
    o.filterDefaults[registryIndex(kmeans)].set(kmeans.optionIndex("warm"), 0);
  }
  const ElementDefaults defaults = [&o](const FilterInfo& f) { return defaultElement(o, f); };
  o.process.chain.clear();
  const bool useVf = e.vfGiven && !(e.cliMode && !e.cliVf);
  if (useVf) {
    if (!e.mode.empty() && e.cliVf == e.cliMode)
      throw CLI::ValidationError("--mode", "--vf gives the chain; drop --mode");
    try {
      o.process.chain = parseChain(e.vf, defaults);
    } catch (const ChainError& bad) {
      throw CLI::ValidationError("--vf", "'" + e.vf + "' " + bad.what());
    }
  } else {
    const std::string mode = e.mode.empty() ? "kmeans" : e.mode;
    if (mode != "none") o.process.chain.add(defaults(*findFilter(mode)));
  }
  for (const Preset& p : o.presets) {
    try {
      parseChain(p.chain, defaults);
    } catch (const ChainError& bad) {
      throw CLI::ValidationError("presets." + p.name, "'" + p.chain + "' " + bad.what());
    }
  }
}

void finish(Options& o, const EnumStrings& e) {
  buildChain(o, e);
  parseCompareMode(e.compare, o.process.compare);
  o.process.split = float(e.splitPercent) / 100.f;
  parseBackend(e.backend, o.backend);
  o.vsync = !e.noVsync;
  o.hud = !e.noHud;
  parseLatencyMode(e.latency, o.latency);
  if (!e.geometry.empty()) parseGeometry(e.geometry, o.geometry);
  o.sync = !e.noSync;
  o.progress = !e.noProgress;
  o.autorotate = !e.noAutorotate;
  if (o.hwdec == "nvdec" && o.backend == Backend::Cpu)
    throw CLI::ValidationError("--hwdec nvdec", "needs the cuda backend (not --backend cpu)");
}

// --vf help / --vf NAME=help: every filter, or one.
void checkFilterHelp(const std::string& vf) {
  if (vf == "help") throw FilterHelpRequest{filtersHelpText()};
  const size_t eq = vf.find('=');
  if (eq == std::string::npos || vf.substr(eq + 1) != "help") return;
  const FilterInfo* f = findFilter(vf.substr(0, eq));
  if (!f) return;  // parseChain names the unknown filter
  throw FilterHelpRequest{filterHelp(*f)};
}

std::string findConfigPath(int argc, const char* const* argv) {
  std::string path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) path = argv[++i];
    else if (a.rfind("--config=", 0) == 0) path = a.substr(9);
  }
  return path;
}

toml::table parseToml(const std::string& text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& err) {
    std::ostringstream os;
    os << "config " << source << ":" << err.source().begin.line << ": " << err.description();
    throw std::runtime_error(os.str());
  }
}

void runCli(CLI::App& app, std::vector<std::string> args, Options& o, EnumStrings& e) {
  std::reverse(args.begin(), args.end());  // CLI11 takes its vector back to front
  app.parse(args);
  e.vfGiven = app.get_option("--vf")->count() > 0;
  checkFilterHelp(e.vf);
  finish(o, e);
  if (app.get_option("--webcam")->count() > 0) {
    if (o.webcam.empty()) o.webcam = "/dev/video0";
    o.input = o.webcam;
    o.format = "v4l2";
  }
}

// A decimal 0..32767 at `text[i]`, advancing i; false when there is none.
bool parseCoordinate(const std::string& text, size_t& i, int& out) {
  const size_t start = i;
  long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 6)
    value = value * 10 + (text[i++] - '0');
  if (i == start || value > 32767) return false;
  out = int(value);
  return true;
}

}  // namespace

bool parseGeometry(const std::string& text, WindowGeometry& out) {
  WindowGeometry g;
  size_t i = 0;
  if (i < text.size() && text[i] != '+') {
    if (!parseCoordinate(text, i, g.width) || i >= text.size() || (text[i] != 'x' && text[i] != 'X')) return false;
    ++i;
    if (!parseCoordinate(text, i, g.height) || g.width == 0 || g.height == 0) return false;
  }
  if (i < text.size()) {
    if (text[i++] != '+' || !parseCoordinate(text, i, g.x) || i >= text.size() || text[i++] != '+' ||
        !parseCoordinate(text, i, g.y))
      return false;
    g.placed = true;
  }
  if (i != text.size() || (g.width == 0 && !g.placed)) return false;
  out = g;
  return true;
}

void applyConfigText(const std::string& tomlText, Options& out) {
  CLI::App app;
  EnumStrings e;
  buildCli(app, out, e);
  toml::table table = parseToml(tomlText, "(text)");
  try {
    runCli(app, configArgs(table, app, out), out, e);
  } catch (const CLI::ParseError& err) {
    throw std::runtime_error(std::string("config: ") + err.what());
  }
}

bool parseOptions(int argc, const char* const* argv, Options& out, int& exitCode) {
  // The filter list comes from the registry, so a new filter's folder keeps it true.
  CLI::App app{"vidproc: real-time video filters on CUDA (" + filterNames(", ") +
                   ") for files, webcams and live streams, each with a bit-exact CPU twin",
               "vidproc"};
  EnumStrings e;
  buildCli(app, out, e);
  std::vector<std::string> args;
  try {
    const std::string configPath = findConfigPath(argc, argv);
    if (!configPath.empty()) {
      std::ifstream in(configPath);
      if (!in) throw std::runtime_error("cannot read config file '" + configPath + "'");
      std::stringstream text;
      text << in.rdbuf();
      args = configArgs(parseToml(text.str(), configPath), app, out);
    }
  } catch (const std::exception& err) {
    std::fprintf(stderr, "vidproc: %s\n", err.what());
    exitCode = kExitUsage;
    return false;
  }
  for (int i = 1; i < argc; ++i) {
    args.emplace_back(argv[i]);
    const std::string& a = args.back();
    e.cliVf |= a == "--vf" || a.rfind("--vf=", 0) == 0;
    e.cliMode |= a == "--mode" || a.rfind("--mode=", 0) == 0;
  }
  try {
    runCli(app, args, out, e);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    exitCode = kExitOk;
    return false;
  } catch (const FilterHelpRequest& help) {
    std::printf("%s", help.text.c_str());
    exitCode = kExitOk;
    return false;
  } catch (const CLI::CallForVersion&) {
    std::printf("vidproc %s\n", VP_VERSION);
    exitCode = kExitOk;
    return false;
  } catch (const CLI::ParseError& err) {
    std::fprintf(stderr, "vidproc: %s (see --help)\n", err.what());
    exitCode = kExitUsage;
    return false;
  }
  return true;
}

}  // namespace vp
