// Overlay pass (overlay.h): positions arrive in clip space, computed on the CPU (pixel quads converted with the
// frame size, 3D lines projected in double precision), so the shader only passes them on. The #version line
// (330 core) is prepended by the overlay.
layout(location = 0) in vec4 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
out vec2 v_uv;
out vec4 v_color;
void main() {
  gl_Position = a_pos;
  v_uv = a_uv;
  v_color = a_color;
}
