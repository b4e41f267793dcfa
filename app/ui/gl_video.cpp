#include "app/ui/gl_video.h"

#include <epoxy/gl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

// GLSL sources of shaders/video.{vert,frag}, embedded at build time (app/ui/CMakeLists.txt).
namespace vp::shaders {
extern const char kVideoVert[];
extern const char kVideoFrag[];
}  // namespace vp::shaders

namespace vp {
namespace {

constexpr int kBytesPerPixel = 3;  // packed RGB24, as the processors output

GLuint compileShader(GLenum type, const char* source, const char* what) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("GLSL compile of ") + what + " failed: " + log);
  }
  return shader;
}

GLuint linkProgram(GLuint vert, GLuint frag) {
  const GLuint program = glCreateProgram();
  glAttachShader(program, vert);
  glAttachShader(program, frag);
  glLinkProgram(program);
  glDetachShader(program, vert);
  glDetachShader(program, frag);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    char log[2048] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    glDeleteProgram(program);
    throw std::runtime_error(std::string("GLSL link of the video program failed: ") + log);
  }
  return program;
}

}  // namespace

ViewportRect letterbox(int frameWidth, int frameHeight, int viewWidth, int viewHeight) {
  if (frameWidth <= 0 || frameHeight <= 0 || viewWidth <= 0 || viewHeight <= 0) return {};
  // Compare aspect ratios in integers: exact for equal ratios, no bar of rounding noise.
  const int64_t lhs = static_cast<int64_t>(viewWidth) * frameHeight;
  const int64_t rhs = static_cast<int64_t>(viewHeight) * frameWidth;
  ViewportRect r;
  if (lhs > rhs) {  // view is wider: bars left and right
    r.height = viewHeight;
    r.width = static_cast<int>((rhs + frameHeight / 2) / frameHeight);
  } else {  // view is taller (or equal): bars top and bottom
    r.width = viewWidth;
    r.height = static_cast<int>((lhs + frameWidth / 2) / frameWidth);
  }
  r.width = std::clamp(r.width, 1, viewWidth);
  r.height = std::clamp(r.height, 1, viewHeight);
  r.x = (viewWidth - r.width) / 2;
  r.y = (viewHeight - r.height) / 2;
  return r;
}

GlVideo::GlVideo() {
  const GLuint vert = compileShader(GL_VERTEX_SHADER, shaders::kVideoVert, "shaders/video.vert");
  GLuint frag = 0;
  try {
    frag = compileShader(GL_FRAGMENT_SHADER, shaders::kVideoFrag, "shaders/video.frag");
    program_ = linkProgram(vert, frag);
  } catch (...) {
    glDeleteShader(vert);
    if (frag) glDeleteShader(frag);
    throw;
  }
  glDeleteShader(vert);
  glDeleteShader(frag);
  frameUniform_ = glGetUniformLocation(program_, "u_frame");

  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &pbo_);
  glGenTextures(1, &texture_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  // Linear filtering: the letterboxed quad rarely maps 1:1 to the frame.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, 0);
}

GlVideo::~GlVideo() {
  glDeleteTextures(1, &texture_);
  glDeleteBuffers(1, &pbo_);
  glDeleteVertexArrays(1, &vao_);
  glDeleteProgram(program_);
}

void GlVideo::upload(const uint8_t* rgb, size_t pitch, int width, int height) {
  if (rgb == nullptr || width <= 0 || height <= 0 || pitch < static_cast<size_t>(width) * kBytesPerPixel) {
    throw std::invalid_argument("GlVideo::upload: bad frame (" + std::to_string(width) + "x" +
                                std::to_string(height) + ", pitch " + std::to_string(pitch) + ")");
  }
  const size_t rowBytes = static_cast<size_t>(width) * kBytesPerPixel;
  // A pitch of whole pixels goes up as one block and GL skips the padding; otherwise pack rows.
  const bool wholePixels = pitch % kBytesPerPixel == 0;
  const size_t bytes = wholePixels ? pitch * static_cast<size_t>(height - 1) + rowBytes
                                   : rowBytes * static_cast<size_t>(height);

  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
  void* dst = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes),
                               GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
  if (dst != nullptr) {
    if (wholePixels) {
      std::memcpy(dst, rgb, bytes);
    } else {
      auto* out = static_cast<uint8_t*>(dst);
      for (int y = 0; y < height; ++y) std::memcpy(out + y * rowBytes, rgb + y * pitch, rowBytes);
    }
    if (glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER) != GL_TRUE) dst = nullptr;  // store lost: resend
  }
  if (dst == nullptr) {  // mapping refused or lost: let the driver copy
    if (wholePixels) {
      glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes), rgb);
    } else {
      for (int y = 0; y < height; ++y) {
        glBufferSubData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLintptr>(y * rowBytes),
                        static_cast<GLsizeiptr>(rowBytes), rgb + y * pitch);
      }
    }
  }

  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, wholePixels ? static_cast<GLint>(pitch / kBytesPerPixel) : 0);
  glBindTexture(GL_TEXTURE_2D, texture_);
  if (width != width_ || height != height_) {
    // With the PBO bound, the null pointer is offset 0 in it: allocate and fill in one call.
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGB, GL_UNSIGNED_BYTE, nullptr);
    width_ = width;
    height_ = height;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, nullptr);
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);  // ImGui's font upload expects no unpack buffer
}

void GlVideo::draw(int viewWidth, int viewHeight) const {
  if (width_ == 0 || height_ == 0) return;
  const ViewportRect r = letterbox(width_, height_, viewWidth, viewHeight);
  if (r.width == 0) return;
  glViewport(r.x, r.y, r.width, r.height);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glUniform1i(frameUniform_, 0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  glBindVertexArray(0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glUseProgram(0);
}

}  // namespace vp
