// The video layer of the window: one texture fed, from packed RGB24 frames, through a pixel buffer object, drawn as
// one textured quad letterboxed into the drawable (black bars keep the frame's aspect ratio).
// Needs a current OpenGL 3.3 core context (libepoxy resolves the entry points) for its whole life.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vp {

// A GL viewport rectangle in drawable pixels, origin bottom-left.
struct ViewportRect {
  int x = 0;
  int y = 0;
  int width = 0;   // pixels
  int height = 0;  // pixels
};

// Largest rectangle of the frame's aspect ratio centred in the view (square pixels assumed).
// Empty when either size is not positive.
ViewportRect letterbox(int frameWidth, int frameHeight, int viewWidth, int viewHeight);

class GlVideo {
 public:
  // Compiles the embedded shaders (shaders/video.*) and creates the texture, PBO and VAO.
  // Throws std::runtime_error with the GLSL info log when a shader fails.
  GlVideo();
  ~GlVideo();
  GlVideo(const GlVideo&) = delete;
  GlVideo& operator=(const GlVideo&) = delete;

  // Streams one frame into the texture: copy into an orphaned PBO (the driver keeps the previous
  // upload alive if the GPU still reads it, so this never waits on it), then glTexSubImage2D from
  // the PBO. `pitch` (bytes between rows, >= width * 3) is honoured through GL_UNPACK_ROW_LENGTH
  // when it is a whole number of pixels, row by row otherwise. A new size reallocates the texture.
  // Throws std::invalid_argument on a null pointer, a non-positive size or pitch < width * 3.
  void upload(const uint8_t* rgb, size_t pitch, int width, int height);

  // Draws the last uploaded frame letterboxed into a viewWidth x viewHeight drawable (whose
  // colour buffer the caller has cleared to black). Nothing before the first upload.
  // Leaves the viewport set to the letterbox rectangle.
  void draw(int viewWidth, int viewHeight) const;

  int width() const { return width_; }    // pixels of the last upload, 0 before
  int height() const { return height_; }  // pixels of the last upload, 0 before

 private:
  unsigned program_ = 0;   // GLuint: video.vert + video.frag
  unsigned vao_ = 0;       // GLuint: empty; core profile needs one bound to draw
  unsigned texture_ = 0;   // GLuint: RGBA8, width_ x height_
  unsigned pbo_ = 0;       // GLuint: GL_PIXEL_UNPACK_BUFFER, re-specified every upload
  int frameUniform_ = -1;  // GLint: location of u_frame
  int width_ = 0;          // pixels
  int height_ = 0;         // pixels
};

}  // namespace vp
