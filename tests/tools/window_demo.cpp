// vp_window_demo: opens the vidproc window ("vidproc — demo") on a moving synthetic RGBA pattern
// with the HUD filled with plausible fake numbers, for the Xvfb tests and for eyeballing.
//
//   vp_window_demo [--frames N] [--screenshot-after N PATH] [--size WxH] [--pitch-pad BYTES]
//
// Prints "command: <text>" for every command its keys send, so a test can check that real
// key events arrive; applies them to the fake HUD numbers the way the player would.
// Quits on q / Escape / window close, or after N frames. --screenshot-after writes the GL back
// buffer (video + HUD) as a PNG after N frames. Exit 0 on a normal quit, 2 when no window opens, 3 on a later
// error.
#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/input/chain_editor.h"
#include "app/ui/window.h"

namespace {

struct DemoOptions {
  long frames = 0;            // quit after this many frames; 0 = run until quit
  long screenshotAfter = -1;  // frame after which to write the PNG; -1 = never
  std::string screenshotPath;
  int width = 800;       // pixels of the synthetic frame (4:3, so a 16:9 window shows bars)
  int height = 600;      // pixels
  size_t pitchPad = 48;  // bytes of padding after each row, poisoned magenta
};

bool parseSize(const char* text, int& w, int& h) {
  return std::sscanf(text, "%dx%d", &w, &h) == 2 && w > 0 && h > 0;
}

bool parseArgs(int argc, char** argv, DemoOptions& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--frames" && more) {
      o.frames = std::atol(argv[++i]);
    } else if (a == "--screenshot-after" && i + 2 < argc) {
      o.screenshotAfter = std::atol(argv[++i]);
      o.screenshotPath = argv[++i];
    } else if (a == "--size" && more) {
      if (!parseSize(argv[++i], o.width, o.height)) return false;
    } else if (a == "--pitch-pad" && more) {
      o.pitchPad = static_cast<size_t>(std::atol(argv[++i]));
    } else {
      return false;
    }
  }
  return true;
}

// A scrolling colour gradient, a moving white bar, a checkerboard (shows scaling) and a 4-pixel
// red border (shows that no edge is cropped by the letterbox). Row padding is magenta: if the
// pitch were mishandled it would smear across the picture.
void fillPattern(std::vector<uint8_t>& buf, size_t pitch, int w, int h, long frame) {
  const int bar = static_cast<int>((frame * 6) % w);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = buf.data() + static_cast<size_t>(y) * pitch;
    for (int x = 0; x < w; ++x) {
      uint8_t* p = row + static_cast<size_t>(x) * 3;
      const int wave = static_cast<int>((x * 510 / w + frame * 3) % 510);  // triangle: no seam
      uint8_t r = static_cast<uint8_t>(wave < 256 ? wave : 510 - wave);
      uint8_t g = static_cast<uint8_t>(y * 255 / h);
      uint8_t b = static_cast<uint8_t>(255 - ((x + y) * 255 / (w + h)));
      if (x >= bar && x < bar + 24) r = g = b = 255;
      if (x >= w - 200 && x < w - 40 && y >= h - 200 && y < h - 40) {
        r = g = b = (((x / 16) + (y / 16)) & 1) ? 230 : 20;
      }
      if (x < 4 || y < 4 || x >= w - 4 || y >= h - 4) r = 255, g = 0, b = 0;
      p[0] = r, p[1] = g, p[2] = b;
    }
    for (size_t pad = static_cast<size_t>(w) * 3; pad < pitch; ++pad) {
      row[pad] = ((pad - static_cast<size_t>(w) * 3) % 3 == 1) ? 0 : 255;  // magenta
    }
  }
}

// Plausible numbers for an 800x600 K-means run; the keys change them like the player would.
void initHud(vp::HudData& d, const DemoOptions& o) {
  d.backend = "cuda";
  d.gpuName = "NVIDIA H200 (demo numbers)";
  d.inputWidth = o.width;
  d.inputHeight = o.height;
  d.pixelFormat = "rgb24";
  d.codec = "synthetic";
  d.inputFps = 60.0;
  d.durationS = 120.0;
  d.queueCapacity = 3;
}

void tickHud(vp::HudData& d, long frame) {
  const float t = static_cast<float>(frame) / 60.f;
  const float wobble = 0.5f + 0.5f * std::sin(t * 3.f);
  d.displayFps = 59.5f + wobble;
  d.decodeFps = 240.f + 20.f * wobble;
  d.processedFps = 60.f;
  d.droppedLate = static_cast<uint64_t>(frame / 900);
  d.queueFill = 1 + static_cast<int>(frame / 7 % 3);
  const auto wobbly = [&](float base, int i) {
    const float phase = static_cast<float>(i) * 1.3f;
    return base * (1.f + 0.25f * std::sin(t * 2.f + phase) + ((frame + long(i) * 37) % 97 == 0 ? 1.5f : 0.f));
  };
  const float base[vp::kStageCount] = {0.12f, 0.05f, 0.11f, 0.40f, 0.f};
  for (size_t i = 0; i + 1 < size_t(vp::kStageCount); ++i)  // no encode in a window
    d.stages[i].record(wobbly(base[i], int(i)));
  for (size_t i = 0; i < d.chain.size(); ++i) {
    vp::HudData::ChainLine& line = d.chain[i];
    if (!line.enabled) continue;
    d.element(line.label).record(wobbly(line.label.rfind("kmeans", 0) == 0 ? 0.80f : 0.30f, int(i) + 5));
    if (line.label.rfind("kmeans", 0) == 0) line.metrics = "iterations " + std::to_string(3 + frame / 11 % 4);
  }
  if (!d.paused) d.positionS = std::fmod(d.positionS + 1.0 / 60.0, d.durationS);
}

// The HUD's chain lines for `p`, as the player writes them.
void showChain(vp::HudData& d, const vp::ProcessParams& p) {
  d.chain.resize(size_t(p.chain.size()));
  for (int i = 0; i < p.chain.size(); ++i) {
    d.chain[size_t(i)].label = vp::elementLabel(p.chain, i);
    d.chain[size_t(i)].options = vp::describeElement(p.chain[i]);
    d.chain[size_t(i)].enabled = p.chain[i].enabled();
  }
  d.compare = p.compare;
  d.split = p.split;
}

// The demo's stand-in for the session: parameter commands through the real ChainEditor,
// pause, seek and screenshot on the HUD alone.
void applyToHud(vp::HudData& d, vp::ChainEditor& editor, vp::ProcessParams& p, const vp::Command& c) {
  if (vp::isParamCommand(c)) {
    try {
      if (auto what = editor.apply(c, p)) d.status = *what, ++d.statusSerial;
    } catch (const std::invalid_argument& bad) {
      d.status = bad.what(), ++d.statusSerial;
    }
    showChain(d, p);
    return;
  }
  switch (c.verb) {
    case vp::Verb::Pause:
      d.paused = c.change == vp::Change::Toggle ? !d.paused : c.value != 0;
      break;
    case vp::Verb::Seek: {
      const double target = double(c.seekUs) * 1e-6 + (c.change == vp::Change::Add ? d.positionS : 0.0);
      d.positionS = std::clamp(target, 0.0, d.durationS);
      break;
    }
    case vp::Verb::Screenshot:
      d.status = "screenshot saved: (the demo saves none)";
      ++d.statusSerial;
      break;
    default:
      break;
  }
}

bool writeScreenshot(vp::Window& window, const std::string& path) {
  std::vector<uint8_t> rgba;
  int w = 0, h = 0;
  window.readPixels(rgba, w, h);
  return stbi_write_png(path.c_str(), w, h, 4, rgba.data(), w * 4) != 0;
}

}  // namespace

int main(int argc, char** argv) {
  DemoOptions opts;
  if (!parseArgs(argc, argv, opts)) {
    std::fprintf(stderr,
                 "usage: vp_window_demo [--frames N] [--screenshot-after N PATH] [--size WxH] "
                 "[--pitch-pad BYTES]\n");
    return 1;
  }
  std::unique_ptr<vp::Window> owned;
  try {
    vp::WindowOptions wo;
    wo.title = "vidproc — demo";
    owned = std::make_unique<vp::Window>(wo);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp_window_demo: cannot open window: %s\n", e.what());
    return 2;
  }
  vp::Window& window = *owned;
  try {
    const size_t pitch = static_cast<size_t>(opts.width) * 3 + opts.pitchPad;
    std::vector<uint8_t> frame(pitch * static_cast<size_t>(opts.height));
    vp::HudData hud;
    initHud(hud, opts);
    vp::ProcessParams params;
    params.chain = vp::parseChain("blur=r=3:passes=2:border=reflect,kmeans=k=8");
    vp::ChainEditor editor;
    editor.start(params.chain);
    showChain(hud, params);

    using Clock = std::chrono::steady_clock;
    constexpr auto kFramePeriod = std::chrono::microseconds(16667);  // 60 fps when vsync is absent
    long animation = 0;  // frames of pattern motion (stops while paused)
    bool quit = false;
    for (long n = 1; !quit && (opts.frames == 0 || n <= opts.frames); ++n) {
      const auto start = Clock::now();
      for (const vp::Command& c : window.pollEvents()) {
        std::printf("command: %s\n", c.text.c_str());
        std::fflush(stdout);
        if (c.verb == vp::Verb::Quit) quit = true;
        if (!window.applyWindowCommand(c)) applyToHud(hud, editor, params, c);
        if (c.verb == vp::Verb::Step) hud.paused = true, ++animation;
      }
      if (!hud.paused) ++animation;
      fillPattern(frame, pitch, opts.width, opts.height, animation);
      window.uploadFrame(frame.data(), pitch, opts.width, opts.height);
      tickHud(hud, n);
      window.drawFrame(hud);
      if (n == opts.screenshotAfter) {
        const bool ok = writeScreenshot(window, opts.screenshotPath);
        std::printf("screenshot: %s %s\n", opts.screenshotPath.c_str(), ok ? "ok" : "FAILED");
        std::fflush(stdout);
      }
      window.swap();
      const auto spent = Clock::now() - start;
      if (spent < kFramePeriod) std::this_thread::sleep_for(kFramePeriod - spent);
    }
    std::printf("quit after %s\n", quit ? "quit command" : "frame limit");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp_window_demo: %s\n", e.what());
    return 3;
  }
}
