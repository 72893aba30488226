// The raster path's id pass (renderer.h FrameParams::hit_ids): the opaque pass's geometry again (terrain_vert.glsl
// with VOXEN_ID), writing per pixel the cell its nearest opaque fragment belongs to and the quad's face, the
// primary-hit oracle the ray march's ids are compared with; and the traced sun of that fragment (trace_common.glsl
// shadow_probe, the terrain pass's own computation for the same fragment). The renderer prepends #version 430 core,
// sky_common.glsl and trace_common.glsl.
// Which cell: an axis face (and a slope's side) lies on the side of the cell it faces out of, or inside it (a slab's
// top, a stair's step: half a block in), so the point 1/128 block behind it (against the face's normal) is inside
// that cell; a plant's or a slope's surface lies inside its cell. (Half a block behind would be the next cell for a
// face half a block in.)
uniform sampler2DArray u_textures;

in vec3 v_rel;
in vec2 v_uv;
flat in float v_layer;
flat in vec3 v_normal;
in vec4 v_light;
in float v_ao;
flat in int v_face_kind;
layout(location = 0) out ivec4 o_id;
layout(location = 1) out vec4 o_probe;

const vec3 kFaceNormals[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));

void main() {
  vec4 tex = texture(u_textures, vec3(v_uv, v_layer));
  if (tex.a < 0.5) discard;  // cutout, as the opaque pass
  int face = v_face_kind & 7, kind = v_face_kind >> 3;
  vec3 p = v_rel + u_eye_frac;  // from the eye's block
  if (kind == 0 || kind == 4) p -= kFaceNormals[face] * (1.0 / 128.0);
  o_id = ivec4(ivec3(floor(p)), face);
  uint steps = 0u;
  o_probe = shadow_probe(v_rel, v_normal, steps);
}
