#version 330 core
// The video quad without a vertex buffer: gl_VertexID 0..3 drawn as a triangle strip gives the
// four corners of the viewport (which GlVideo sets to the letterbox rectangle).
// v_uv puts texture row 0 (the first row of the frame in memory, the top of the picture) at the top.
out vec2 v_uv;

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));  // (0,0) (1,0) (0,1) (1,1)
  v_uv = vec2(corner.x, 1.0 - corner.y);
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
