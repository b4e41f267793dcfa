#version 330 core
// Samples the processed RGBA8 frame. Alpha is forced to 1: the pipeline leaves the frame's alpha
// unspecified, and the HUD drawn afterwards blends over an opaque picture.
uniform sampler2D u_frame;
in vec2 v_uv;
out vec4 o_color;

void main() {
  o_color = vec4(texture(u_frame, v_uv).rgb, 1.0);
}
