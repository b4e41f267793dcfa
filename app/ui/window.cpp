#include "app/ui/window.h"

// libepoxy's header must come before anything that could pull in another GL header.
#include <epoxy/gl.h>

#include <SDL.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>
#include <imgui.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

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
  if (o.fullscreen) flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
  SDL_Window* w = SDL_CreateWindow(o.title.c_str(), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, o.width,
                                   o.height, flags);
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
struct Window::Impl {
  Impl(const WindowOptions& options, KeyMap keyMap)
      : window(createWindow(options)),
        gl(window.get()),
        imgui(window.get(), gl.context),
        keys(std::move(keyMap)) {
    vsync = setSwapInterval(options.vsync);
  }

  SdlVideo sdl;
  SdlWindowPtr window;
  GlContext gl;
  ImGuiSession imgui;
  GlVideo video;
  Hud hud;
  KeyMap keys;
  HudData emptyHud;    // drawn by render() without data
  const Command quit = commandFrom("quit");              // a window close
  const Command fullscreen = commandFrom("fullscreen");  // a double-click
  bool vsync = false;  // swap interval 1 accepted
};

Window::Window(const WindowOptions& options, KeyMap keys)
    : impl_(std::make_unique<Impl>(options, std::move(keys))) {
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
        if (!io.WantCaptureMouse && e.button.button == SDL_BUTTON_LEFT && e.button.clicks == 2) {
          commands.push_back(impl_->fullscreen);
        }
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

void Window::setFullscreen(bool on) {
  if (SDL_SetWindowFullscreen(impl_->window.get(), on ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0) != 0) {
    spdlog::warn("window: fullscreen {} refused: {}", on ? "on" : "off", SDL_GetError());
  }
}

bool Window::fullscreen() const {
  return (SDL_GetWindowFlags(impl_->window.get()) & SDL_WINDOW_FULLSCREEN) != 0;
}

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
