// The box pass (renderer.h BoxInstance: creatures): one instanced draw of a unit cube [-0.5, 0.5]^3, 36 vertices
// from gl_VertexID (no vertex buffer), each instance mapped by its 3 x 4 affine rows into camera-relative blocks.
// Face f (0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z) is the square n/2 + s u/2 + t v/2 with cross(u, v) = n, so its two
// triangles (s, t) = (-,-) (+,-) (+,+) and (-,-) (+,+) (-,+) wind counter-clockwise seen from outside. The local -z
// face takes the instance's front layer, the others its skin layer; texture v runs down the face.
layout(location = 0) in vec4 i_row0;
layout(location = 1) in vec4 i_row1;
layout(location = 2) in vec4 i_row2;
layout(location = 3) in vec4 i_light;
layout(location = 4) in uvec2 i_skin;
uniform mat4 u_view_proj;
out vec3 v_rel;
out vec3 v_normal;
out vec2 v_uv;
flat out float v_layer;
out vec4 v_light;

const vec3 kN[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));
const vec3 kU[6] = vec3[6](vec3(0, 0, -1), vec3(0, 0, 1), vec3(1, 0, 0), vec3(1, 0, 0), vec3(1, 0, 0), vec3(-1, 0, 0));
const vec3 kV[6] = vec3[6](vec3(0, 1, 0), vec3(0, 1, 0), vec3(0, 0, -1), vec3(0, 0, 1), vec3(0, 1, 0), vec3(0, 1, 0));
const vec2 kST[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

void main() {
  int face = gl_VertexID / 6;
  vec2 st = kST[gl_VertexID % 6];
  vec3 local = 0.5 * (kN[face] + st.x * kU[face] + st.y * kV[face]);
  mat3 m = transpose(mat3(i_row0.xyz, i_row1.xyz, i_row2.xyz));  // rows -> GLSL's column-major
  vec3 rel = m * local + vec3(i_row0.w, i_row1.w, i_row2.w);
  v_rel = rel;
  v_normal = normalize(m * kN[face]);
  v_uv = vec2(st.x * 0.5 + 0.5, 0.5 - st.y * 0.5);
  v_layer = float(face == 5 ? i_skin.y : i_skin.x);
  v_light = i_light;
  gl_Position = u_view_proj * vec4(rel, 1.0);
}
