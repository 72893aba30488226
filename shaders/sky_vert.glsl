// Sky pass: one full-screen triangle from gl_VertexID (no vertex buffer); passes the clip-space position on so
// the fragment shader can rebuild the view ray. The #version line is prepended by the renderer.
out vec2 v_ndc;

void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;
  v_ndc = p;
  gl_Position = vec4(p, 1.0, 1.0);
}
