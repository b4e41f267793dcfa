#include "app/ui/window.h"

// libepoxy's header must come before anything that could pull in another GL header.
#include <epoxy/gl.h>

#include <SDL.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "app/ui/gl_video.h"

namespace vp {
namespace {

[[noreturn]] void throwSdl(const std::string& what) {
  throw std::runtime_error(what + " failed: " + SDL_GetError());
}

// Owns one reference to SDL's video subsystem (SDL counts them).
struct SdlVideo {
  SdlVideo() {
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) throwSdl("SDL_Init(VIDEO) (no display?)");
  }
  ~SdlVideo() { SDL_QuitSubSystem(SDL_INIT_VIDEO); }
  SdlVideo(const SdlVideo&) = delete;
  SdlVideo& operator=(const SdlVideo&) = delete;
};

struct SdlWindowDeleter {
  void operator()(SDL_Window* w) const { SDL_DestroyWindow(w); }
};
using SdlWindowPtr = std::unique_ptr<SDL_Window, SdlWindowDeleter>;

SdlWindowPtr createWindow(const WindowOptions& o) {
  // GL 3.3 core, forward compatible (the only way macOS gives 3.3; harmless elsewhere).
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);  // 2D only: a quad and the HUD
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE;
  if (o.hidpi) flags |= SDL_WINDOW_ALLOW_HIGHDPI;
  if (o.showOnFit) flags |= SDL_WINDOW_HIDDEN;
  const int x = o.placed ? o.x : int(SDL_WINDOWPOS_CENTERED), y = o.placed ? o.y : int(SDL_WINDOWPOS_CENTERED);
  SDL_Window* w = SDL_CreateWindow(o.title.c_str(), x, y, o.width, o.height, flags);
  if (w == nullptr) throwSdl("SDL_CreateWindow (OpenGL 3.3 core)");
  return SdlWindowPtr(w);
}

// Owns the GL context and makes it current; checks the version libepoxy sees.
struct GlContext {
  explicit GlContext(SDL_Window* window) {
    context = SDL_GL_CreateContext(window);
    if (context == nullptr) throwSdl("SDL_GL_CreateContext (OpenGL 3.3 core)");
    if (SDL_GL_MakeCurrent(window, context) != 0) {
      SDL_GL_DeleteContext(context);
      throwSdl("SDL_GL_MakeCurrent");
    }
    if (epoxy_gl_version() < 33) {
      SDL_GL_DeleteContext(context);
      throw std::runtime_error("OpenGL 3.3 core needed, the context has " +
                               std::to_string(epoxy_gl_version() / 10) + "." +
                               std::to_string(epoxy_gl_version() % 10));
    }
  }
  ~GlContext() { SDL_GL_DeleteContext(context); }
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;
  SDL_GLContext context = nullptr;
};

// Owns the Dear ImGui context and its SDL2 + OpenGL3 backends.
struct ImGuiSession {
  ImGuiSession(SDL_Window* window, SDL_GLContext gl) {
    IMGUI_CHECKVERSION();
    context = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini in the user's working directory
    io.LogFilename = nullptr;
    ImGui::StyleColorsDark();
    if (!ImGui_ImplSDL2_InitForOpenGL(window, gl)) {
      ImGui::DestroyContext(context);
      throw std::runtime_error("ImGui_ImplSDL2_InitForOpenGL failed");
    }
    if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
      ImGui_ImplSDL2_Shutdown();
      ImGui::DestroyContext(context);
      throw std::runtime_error("ImGui_ImplOpenGL3_Init failed");
    }
  }
  ~ImGuiSession() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext(context);
  }
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;
  ImGuiContext* context = nullptr;
};

bool setSwapInterval(bool vsync) {
  if (!vsync) {
    SDL_GL_SetSwapInterval(0);
    return false;
  }
  if (SDL_GL_SetSwapInterval(1) == 0) return true;
  spdlog::debug("window: vsync refused ({}), presenting unsynchronised", SDL_GetError());
  return false;
}

}  // namespace

// Members are destroyed in reverse order: GL objects before their context, the context before
// the window, the window before SDL's video subsystem.
namespace {

// The split position, in percent of the video's width, of a mouse at x (window points).
int splitPercentAt(const SDL_Rect& video, int x) {
  if (video.w <= 0) return 50;
  return std::clamp(int(std::lround(100.0 * (x - video.x) / video.w)), 0, kMaxSplitPercent);
}

// "original" and "processed" along the bottom of the video, either side of the split line
// (or of the middle, side by side).
void drawCompareLabels(const HudData& hud, const SDL_Rect& video) {
  if (hud.compare == CompareMode::Off || video.w <= 0) return;
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const float pad = 6.f, line = ImGui::GetTextLineHeight();
  const float y = float(video.y + video.h) - line - 3 * pad;  // along the bottom: the HUD is at the top
  const auto label = [&](float x, const char* text, bool rightAligned) {
    const ImVec2 size = ImGui::CalcTextSize(text);
    const float left = rightAligned ? x - size.x - 2 * pad : x;
    draw->AddRectFilled(ImVec2(left, y), ImVec2(left + size.x + 2 * pad, y + line + 2 * pad), IM_COL32(0, 0, 0, 160),
                        4.f);
    draw->AddText(ImVec2(left + pad, y + pad), IM_COL32(255, 255, 255, 255), text);
  };
  const float x0 = float(video.x);
  const float mid = hud.compare == CompareMode::Side ? x0 + video.w / 2.f : x0 + video.w * hud.split;
  label(mid - pad, "original", true);
  label(mid + pad, "processed", false);
}

}  // namespace

struct Window::Impl {
  Impl(const WindowOptions& options, KeyMap keyMap)
      : window(createWindow(options)),
        gl(window.get()),
        imgui(window.get(), gl.context),
        keys(std::move(keyMap)),
        options(options) {
    vsync = setSwapInterval(options.vsync);
    hud.visible = options.hud;
  }

  SdlVideo sdl;
  SdlWindowPtr window;
  GlContext gl;
  ImGuiSession imgui;
  GlVideo video;
  Hud hud;
  KeyMap keys;
  WindowOptions options;  // as opened (fitVideo)
  bool fitted = false;    // fitVideo() has run
  bool isFullscreen = false;  // setFullscreen(true) is in force
  SDL_Rect windowed{};      // the window's place and size before fullscreen (points)
  HudData emptyHud;    // drawn by render() without data
  const Command quit = commandFrom("quit");              // a window close
  const Command fullscreen = commandFrom("fullscreen");  // a double-click
  bool vsync = false;  // swap interval 1 accepted
  CompareMode compare = CompareMode::Off;  // of the HUD data drawn last: a drag moves the split line
  bool dragging = false;                   // the left button went down on a split view
  int dragPercent = -1;                    // the split position the drag sent last

  // The video's rectangle in window points (SDL's mouse coordinates), origin top-left.
  SDL_Rect videoRectPoints() const {
    int ww = 0, wh = 0, dw = 0, dh = 0;
    SDL_GetWindowSize(window.get(), &ww, &wh);
    SDL_GL_GetDrawableSize(window.get(), &dw, &dh);
    const ViewportRect r = letterbox(video.width(), video.height(), dw, dh);
    const double sx = dw > 0 ? double(ww) / dw : 1.0, sy = dh > 0 ? double(wh) / dh : 1.0;
    return {int(r.x * sx), int((dh - r.y - r.height) * sy), int(r.width * sx), int(r.height * sy)};
  }

  // A split command for a mouse at x (points), when it differs from the last one sent.
  std::optional<Command> dragTo(int x) {
    const int percent = splitPercentAt(videoRectPoints(), x);
    if (percent == dragPercent) return std::nullopt;
    dragPercent = percent;
    return commandFrom("split " + std::to_string(percent));
  }
};

Window::Window(const WindowOptions& options, KeyMap keys)
    : impl_(std::make_unique<Impl>(options, std::move(keys))) {
  if (options.fullscreen && !options.showOnFit) setFullscreen(true);
  spdlog::info("window: {}x{} drawable, GL {}, vsync {}", drawableWidth(), drawableHeight(), glDescription(),
               impl_->vsync ? "on" : "off");
}

Window::~Window() = default;


std::vector<Command> Window::pollEvents() {
  std::vector<Command> commands;
  const ImGuiIO& io = ImGui::GetIO();
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    ImGui_ImplSDL2_ProcessEvent(&e);  // always: ImGui tracks focus, mouse and modifiers
    switch (e.type) {
      case SDL_QUIT:  // last window closed, or SIGINT/SIGTERM
        spdlog::debug("window: SDL_QUIT");
        commands.push_back(impl_->quit);
        break;
      case SDL_KEYDOWN: {
        if (io.WantCaptureKeyboard) break;
        // Holding a key repeats only the commands that adjust or move; toggles would flicker.
        const Command* c = impl_->keys.lookup(e.key.keysym);
        if (c && (e.key.repeat == 0 || repeats(*c))) commands.push_back(*c);
        break;
      }
      case SDL_MOUSEBUTTONDOWN:
        if (io.WantCaptureMouse || e.button.button != SDL_BUTTON_LEFT) break;
        if (e.button.clicks == 2) {
          impl_->dragging = false;
          commands.push_back(impl_->fullscreen);
        } else if (impl_->compare == CompareMode::Split) {  // the split line follows a drag
          impl_->dragging = true;
          impl_->dragPercent = -1;
          if (auto c = impl_->dragTo(e.button.x)) commands.push_back(*c);
        }
        break;
      case SDL_MOUSEMOTION:
        if (impl_->dragging && (e.motion.state & SDL_BUTTON_LMASK))
          if (auto c = impl_->dragTo(e.motion.x)) commands.push_back(*c);
        break;
      case SDL_MOUSEBUTTONUP:
        if (e.button.button == SDL_BUTTON_LEFT) impl_->dragging = false;
        break;
      default:
        break;
    }
  }
  return commands;
}

bool Window::applyWindowCommand(const Command& command) {
  switch (command.verb) {
    case Verb::Fullscreen:
      setFullscreen(!fullscreen());
      return true;
    case Verb::Hud:
      impl_->hud.visible = !impl_->hud.visible;
      return true;
    case Verb::Help:
      impl_->hud.helpVisible = !impl_->hud.helpVisible;
      return true;
    default:
      return false;
  }
}

void Window::uploadFrame(const uint8_t* rgb, size_t pitch, int width, int height) {
  impl_->video.upload(rgb, pitch, width, height);
}

void Window::render(const HudData& hud) {
  drawFrame(hud);
  swap();
}

void Window::render() { render(impl_->emptyHud); }

void Window::drawFrame(const HudData& hud) {
  const int w = drawableWidth(), h = drawableHeight();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, w, h);
  glClearColor(0.f, 0.f, 0.f, 1.f);  // the letterbox bars
  glClear(GL_COLOR_BUFFER_BIT);
  impl_->video.draw(w, h);

  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
  impl_->compare = hud.compare;
  drawCompareLabels(hud, impl_->videoRectPoints());
  impl_->hud.draw(hud, impl_->keys);
  ImGui::Render();
  glViewport(0, 0, w, h);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::readPixels(std::vector<uint8_t>& rgba, int& width, int& height) const {
  width = drawableWidth();
  height = drawableHeight();
  const size_t row = static_cast<size_t>(width) * 4;
  std::vector<uint8_t> bottomUp(row * static_cast<size_t>(height));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottomUp.data());
  rgba.resize(bottomUp.size());
  for (int y = 0; y < height; ++y) {
    std::copy_n(bottomUp.data() + static_cast<size_t>(height - 1 - y) * row, row,
                rgba.data() + static_cast<size_t>(y) * row);
  }
}

void Window::swap() { SDL_GL_SwapWindow(impl_->window.get()); }

void Window::fitVideo(int videoWidth, int videoHeight) {
  if (std::exchange(impl_->fitted, true)) return;
  SDL_Window* w = impl_->window.get();
  const WindowOptions& o = impl_->options;
  if (!o.sized && videoWidth > 0 && videoHeight > 0) {
    double scale = std::max(1, std::min(640 / videoWidth, 360 / videoHeight));  // small videos: whole steps up
    SDL_Rect usable{};
    const int display = std::max(0, SDL_GetWindowDisplayIndex(w));
    if (SDL_GetDisplayUsableBounds(display, &usable) == 0 && usable.w > 0 && usable.h > 0)
      scale = std::min({scale, double(usable.w) / videoWidth, double(usable.h) / videoHeight});
    SDL_SetWindowSize(w, std::max(1, int(videoWidth * scale)), std::max(1, int(videoHeight * scale)));
  }
  if (!o.placed) SDL_SetWindowPosition(w, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED);
  SDL_ShowWindow(w);
  if (o.fullscreen) setFullscreen(true);  // leaving it returns to the size above
}

// Fullscreen is a borderless window covering its display, asked of the window manager as
// well (SDL's desktop fullscreen). Without a window manager (a kiosk, Xvfb) nobody acts on
// that request, and SDL alone would leave the window where it was while believing it
// fullscreen: the explicit geometry makes the result the same with or without one.
void Window::setFullscreen(bool on) {
  Impl& m = *impl_;
  SDL_Window* w = m.window.get();
  if (on == m.isFullscreen) return;
  if (on) {
    SDL_GetWindowPosition(w, &m.windowed.x, &m.windowed.y);
    SDL_GetWindowSize(w, &m.windowed.w, &m.windowed.h);
    SDL_Rect screen{};
    if (SDL_GetDisplayBounds(std::max(0, SDL_GetWindowDisplayIndex(w)), &screen) != 0) {
      spdlog::warn("window: fullscreen refused: {}", SDL_GetError());
      return;
    }
    SDL_SetWindowBordered(w, SDL_FALSE);
    SDL_SetWindowPosition(w, screen.x, screen.y);
    SDL_SetWindowSize(w, screen.w, screen.h);
    if (SDL_SetWindowFullscreen(w, SDL_WINDOW_FULLSCREEN_DESKTOP) != 0)
      spdlog::debug("window: desktop fullscreen refused ({}); a borderless window covers the screen", SDL_GetError());
  } else {
    SDL_SetWindowFullscreen(w, 0);
    SDL_SetWindowBordered(w, SDL_TRUE);
    SDL_SetWindowSize(w, m.windowed.w, m.windowed.h);
    SDL_SetWindowPosition(w, m.windowed.x, m.windowed.y);
  }
  m.isFullscreen = on;
}

bool Window::fullscreen() const { return impl_->isFullscreen; }

void Window::setTitle(const std::string& title) { SDL_SetWindowTitle(impl_->window.get(), title.c_str()); }

int Window::drawableWidth() const {
  int w = 0, h = 0;
  SDL_GL_GetDrawableSize(impl_->window.get(), &w, &h);
  return w;
}

int Window::drawableHeight() const {
  int w = 0, h = 0;
  SDL_GL_GetDrawableSize(impl_->window.get(), &w, &h);
  return h;
}

bool Window::vsync() const { return impl_->vsync; }

void Window::setVsync(bool on) { impl_->vsync = setSwapInterval(on); }

double Window::refreshHz() const {
  SDL_DisplayMode mode{};
  const int display = SDL_GetWindowDisplayIndex(impl_->window.get());
  if (display >= 0 && SDL_GetCurrentDisplayMode(display, &mode) == 0 && mode.refresh_rate > 0)
    return mode.refresh_rate;
  return 60.0;
}

std::string Window::glDescription() const {
  const auto str = [](GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return std::string(s ? s : "?");
  };
  return str(GL_VERSION) + ", " + str(GL_RENDERER);
}

Hud& Window::hud() { return impl_->hud; }
KeyMap& Window::keys() { return impl_->keys; }
const KeyMap& Window::keys() const { return impl_->keys; }

}  // namespace vp
