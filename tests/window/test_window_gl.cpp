// Window under a real X server (run through xvfb.sh: Xvfb + Mesa llvmpipe): the video upload
// path read back from the GL back buffer (pitch, odd pitch, size changes, letterbox bars), the
// HUD and help drawing on top, and SDL events turned into actions.
// Skips when no display can be opened.
#include <gtest/gtest.h>

#include <SDL.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <vector>

#include "app/ui/window.h"

namespace vp {
namespace {

using Rgb = std::array<uint8_t, 3>;
constexpr Rgb kRed{255, 0, 0}, kGreen{0, 255, 0}, kBlue{0, 0, 255}, kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr uint8_t kPoison[3] = {255, 0, 255};  // magenta row padding

// A frame of four uniform quadrants (red, green / blue, white) with poisoned row padding.
std::vector<uint8_t> quadrants(int w, int h, size_t pitch, Rgb tl = kRed, Rgb tr = kGreen, Rgb bl = kBlue,
                               Rgb br = kWhite) {
  std::vector<uint8_t> buf(pitch * static_cast<size_t>(h));
  for (int y = 0; y < h; ++y) {
    for (size_t i = 0; i < pitch; ++i) buf[y * pitch + i] = kPoison[i % 3];
    for (int x = 0; x < w; ++x) {
      const Rgb& c = y < h / 2 ? (x < w / 2 ? tl : tr) : (x < w / 2 ? bl : br);
      uint8_t* p = &buf[y * pitch + static_cast<size_t>(x) * 3];
      p[0] = c[0], p[1] = c[1], p[2] = c[2];
    }
  }
  return buf;
}

class WindowGl : public ::testing::Test {
 protected:
  void SetUp() override {
    WindowOptions o;
    o.title = "vidproc — gl test";
    o.width = 320;
    o.height = 240;
    o.vsync = false;
    o.hidpi = false;
    try {
      window = std::make_unique<Window>(o);
    } catch (const std::runtime_error& e) {
      GTEST_SKIP() << "no window (run under xvfb-run): " << e.what();
    }
    window->hud().visible = false;
  }

  // Draws one frame with the HUD data and reads it back; returns the drawable size.
  void drawAndRead(const HudData& hud = HudData()) {
    window->drawFrame(hud);
    window->readPixels(pixels, width, height);
    window->swap();
  }

  Rgb at(int x, int y) const {
    const uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 4];
    return {p[0], p[1], p[2]};
  }

  bool anyPoison() const {
    for (size_t i = 0; i < pixels.size(); i += 4) {
      if (pixels[i] == 255 && pixels[i + 1] == 0 && pixels[i + 2] == 255) return true;
    }
    return false;
  }

  std::unique_ptr<Window> window;
  std::vector<uint8_t> pixels;
  int width = 0, height = 0;
};

TEST_F(WindowGl, DrawableMatchesTheRequestedSize) {
  EXPECT_EQ(window->drawableWidth(), 320);
  EXPECT_EQ(window->drawableHeight(), 240);
  EXPECT_NE(window->glDescription().find('.'), std::string::npos);
}

TEST_F(WindowGl, BlackBeforeTheFirstFrame) {
  drawAndRead();
  EXPECT_EQ(at(160, 120), kBlack);
  EXPECT_EQ(at(0, 0), kBlack);
}

TEST_F(WindowGl, PitchedUploadFillsTheView) {
  const size_t pitch = 160 * 3 + 33;  // whole pixels of padding: GL_UNPACK_ROW_LENGTH path
  const auto frame = quadrants(160, 120, pitch);
  window->uploadFrame(frame.data(), pitch, 160, 120);
  drawAndRead();
  ASSERT_EQ(width, 320);
  ASSERT_EQ(height, 240);
  EXPECT_EQ(at(80, 60), kRed);  // top-left quadrant of the frame at the top-left of the view
  EXPECT_EQ(at(240, 60), kGreen);
  EXPECT_EQ(at(80, 180), kBlue);
  EXPECT_EQ(at(240, 180), kWhite);
  EXPECT_EQ(at(1, 1), kRed);  // no bar: same aspect ratio
  EXPECT_EQ(at(318, 238), kWhite);
  EXPECT_FALSE(anyPoison());
}

TEST_F(WindowGl, OddPitchUploadsRowByRow) {
  const size_t pitch = 160 * 3 + 2;  // not whole pixels: packed row by row
  const auto frame = quadrants(160, 120, pitch);
  window->uploadFrame(frame.data(), pitch, 160, 120);
  drawAndRead();
  EXPECT_EQ(at(80, 60), kRed);
  EXPECT_EQ(at(240, 60), kGreen);
  EXPECT_EQ(at(80, 180), kBlue);
  EXPECT_EQ(at(240, 180), kWhite);
  EXPECT_FALSE(anyPoison());
}

TEST_F(WindowGl, LetterboxBarsAreBlack) {
  // 8:3 frame in a 4:3 view: 320x120 picture, 60-pixel bars above and below.
  const auto wide = quadrants(160, 60, 160 * 3);
  window->uploadFrame(wide.data(), 160 * 3, 160, 60);
  drawAndRead();
  EXPECT_EQ(at(160, 10), kBlack);
  EXPECT_EQ(at(160, 55), kBlack);
  EXPECT_EQ(at(160, 185), kBlack);
  EXPECT_EQ(at(160, 230), kBlack);
  EXPECT_EQ(at(80, 90), kRed);
  EXPECT_EQ(at(240, 150), kWhite);

  // 1:2 frame: 120x240 picture, 100-pixel bars left and right.
  const auto tall = quadrants(60, 120, 60 * 3);
  window->uploadFrame(tall.data(), 60 * 3, 60, 120);
  drawAndRead();
  EXPECT_EQ(at(50, 120), kBlack);
  EXPECT_EQ(at(270, 120), kBlack);
  EXPECT_EQ(at(130, 60), kRed);
  EXPECT_EQ(at(190, 180), kWhite);
}

TEST_F(WindowGl, SameSizeAndNewSizeUploadsReplaceThePicture) {
  auto a = quadrants(160, 120, 160 * 3);
  window->uploadFrame(a.data(), 160 * 3, 160, 120);
  drawAndRead();
  EXPECT_EQ(at(80, 60), kRed);
  auto b = quadrants(160, 120, 160 * 3, kWhite, kBlue, kGreen, kRed);  // same size: sub-image
  window->uploadFrame(b.data(), 160 * 3, 160, 120);
  drawAndRead();
  EXPECT_EQ(at(80, 60), kWhite);
  EXPECT_EQ(at(240, 180), kRed);
  auto c = quadrants(64, 48, 64 * 3 + 9, kGreen, kGreen, kGreen, kGreen);  // new size
  window->uploadFrame(c.data(), 64 * 3 + 9, 64, 48);
  drawAndRead();
  EXPECT_EQ(at(160, 120), kGreen);
  EXPECT_EQ(at(5, 5), kGreen);
  EXPECT_FALSE(anyPoison());
}

TEST_F(WindowGl, RejectsBadFrames) {
  std::vector<uint8_t> buf(64 * 64 * 3);
  EXPECT_THROW(window->uploadFrame(nullptr, 192, 64, 64), std::invalid_argument);
  EXPECT_THROW(window->uploadFrame(buf.data(), 191, 64, 64), std::invalid_argument);
  EXPECT_THROW(window->uploadFrame(buf.data(), 192, 0, 64), std::invalid_argument);
}

TEST_F(WindowGl, HudAndHelpDrawOverTheVideo) {
  const auto frame = quadrants(160, 120, 160 * 3, kBlack, kBlack, kBlack, kBlack);
  window->uploadFrame(frame.data(), 160 * 3, 160, 120);
  HudData data;
  data.chain.push_back({"kmeans#1", "k=8", "iterations 4", true});
  data.element("kmeans#1").record(1.f);
  drawAndRead(data);
  EXPECT_EQ(at(30, 25), kBlack);  // HUD hidden
  EXPECT_TRUE(window->applyWindowCommand(commandFrom("hud")));
  EXPECT_TRUE(window->hud().visible);
  for (int i = 0; i < 3; ++i) drawAndRead(data);  // auto-sized windows appear on their 2nd frame
  EXPECT_NE(at(30, 25), kBlack);                  // the overlay's background covers the top-left corner
  EXPECT_EQ(at(2, 2), kBlack);                    // margin outside it
  EXPECT_TRUE(window->applyWindowCommand(commandFrom("hud")));
  EXPECT_TRUE(window->applyWindowCommand(commandFrom("help")));
  EXPECT_TRUE(window->hud().helpVisible);
  for (int i = 0; i < 3; ++i) drawAndRead(data);
  EXPECT_NE(at(160, 120), kBlack);                    // the help window sits in the middle
  EXPECT_FALSE(window->applyWindowCommand(commandFrom("k +1")));  // the player's, not the window's
}

// Pushes a key-down event the way SDL's X11 backend would deliver it.
void pushKey(SDL_Keycode key, uint16_t mods, bool repeat = false) {
  SDL_Event e{};
  e.type = SDL_KEYDOWN;
  e.key.state = SDL_PRESSED;
  e.key.repeat = repeat ? 1 : 0;
  e.key.keysym.sym = key;
  e.key.keysym.scancode = SDL_GetScancodeFromKey(key);
  e.key.keysym.mod = mods;
  ASSERT_EQ(SDL_PushEvent(&e), 1) << SDL_GetError();
}

std::vector<std::string> texts(const std::vector<Command>& commands) {
  std::vector<std::string> out;
  for (const Command& c : commands) out.push_back(c.text);
  return out;
}

TEST_F(WindowGl, EventsBecomeCommands) {
  drawAndRead();  // one ImGui frame so its capture flags are settled
  window->pollEvents();
  pushKey(SDLK_k, KMOD_LSHIFT);
  pushKey(SDLK_r, KMOD_NONE);
  pushKey(SDLK_EQUALS, KMOD_LSHIFT);  // '+' on a US keyboard
  pushKey(SDLK_F1, KMOD_NONE);
  pushKey(SDLK_z, KMOD_NONE);           // unbound: nothing
  pushKey(SDLK_h, KMOD_NONE, true);     // auto-repeat of a toggle: dropped
  pushKey(SDLK_LEFT, KMOD_NONE, true);  // auto-repeat of a seek: kept
  SDL_Event quit{};
  quit.type = SDL_QUIT;
  SDL_PushEvent(&quit);
  EXPECT_EQ(texts(window->pollEvents()),
            (std::vector<std::string>{"k +1", "radius -1", "param +1", "help", "seek -5", "quit"}));
  EXPECT_TRUE(window->pollEvents().empty());
}

TEST_F(WindowGl, DoubleClickTogglesFullscreen) {
  drawAndRead();
  window->pollEvents();
  SDL_Event e{};
  e.type = SDL_MOUSEBUTTONDOWN;
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = SDL_PRESSED;
  e.button.clicks = 1;
  e.button.x = 160;
  e.button.y = 120;
  SDL_PushEvent(&e);
  e.button.clicks = 2;
  SDL_PushEvent(&e);
  EXPECT_EQ(texts(window->pollEvents()), std::vector<std::string>{"fullscreen"});
}

TEST_F(WindowGl, RebindingReachesTheWindow) {
  window->keys().applyConfigEntry("quit", "ctrl+w");
  pushKey(SDLK_q, KMOD_NONE);
  pushKey(SDLK_w, KMOD_LCTRL);
  EXPECT_EQ(texts(window->pollEvents()), std::vector<std::string>{"quit"});
}

// Only the state and that drawing goes on: Xvfb has no window manager to honour
// _NET_WM_STATE_FULLSCREEN, so the X window keeps its size and there is nothing to compare.
TEST_F(WindowGl, FullscreenToggles) {
  const auto frame = quadrants(160, 120, 160 * 3);
  window->uploadFrame(frame.data(), 160 * 3, 160, 120);
  EXPECT_FALSE(window->fullscreen());
  EXPECT_TRUE(window->applyWindowCommand(commandFrom("fullscreen")));
  EXPECT_TRUE(window->fullscreen());
  window->pollEvents();
  drawAndRead();
  window->setFullscreen(false);
  EXPECT_FALSE(window->fullscreen());
  window->pollEvents();
  drawAndRead();
}

}  // namespace
}  // namespace vp
