// Terrain vertex shader: vertex pulling of the mesher's packed quads (src/mesh/include/voxen/mesh/quad.h).
// There is no vertex buffer: vertex gl_VertexID belongs to quad gl_VertexID / 6 of the arena (the draw's `first`
// is 6 * the mesh's span offset, so gl_VertexID indexes the whole arena) and is corner slot gl_VertexID % 6 of
// its two triangles.
//
// The renderer prepends:
//   #version 450 core, VOXEN_MDI 1: the arena is an SSBO (binding 0) and the draw's camera-relative section offset
//     is the per-instance attribute a_draw_offset, which the indirect command's baseInstance selects in the
//     per-draw buffer (an SSBO read at gl_BaseInstanceARB per vertex cost 2.4x the frame on llvmpipe);
//   #version 330 core, VOXEN_MDI 0 (the per-chunk fallback): the arena is read through a usamplerBuffer (R32UI
//     view of the same buffer) and the offset is the uniform u_draw_offset, set before each draw.
//   VOXEN_FLUID 0: 16-byte records (opaque and cutout); 1: 20-byte records (translucent and fluid).
//   VOXEN_ID 1: the id pass (renderer.h FrameParams::hit_ids) also passes the quad's face and kind.
// quad_common.glsl (prepended) computes each corner.
// Floating origin: positions are section-local half-blocks (0..32) plus the section's offset from the camera,
// computed on the CPU in int64/double; the view matrix is rotation only, so float32 never sees a big number.

#if VOXEN_FLUID
#define RECORD_WORDS 5
#else
#define RECORD_WORDS 4
#endif

#if VOXEN_MDI
layout(std430, binding = 0) readonly buffer Arena { uint arena_words[]; };
// The draw's camera-relative section offset: a per-instance attribute (divisor 1) of the per-draw buffer, so the
// command's baseInstance selects it (fetched once per draw, not once per vertex).
layout(location = 0) in vec4 a_draw_offset;
uint arena_word(int i) { return arena_words[i]; }
vec3 draw_offset() { return a_draw_offset.xyz; }
#else
uniform usamplerBuffer u_arena;
uniform vec3 u_draw_offset;
uint arena_word(int i) { return texelFetch(u_arena, i).x; }
vec3 draw_offset() { return u_draw_offset; }
#endif

uniform mat4 u_view_proj;  // projection * rotation-only view (camera at the origin)
uniform float u_time;      // seconds, scrolls flowing fluids
uniform float u_seam;      // opaque axis quads grow by this many blocks per block of distance (T-junction cracks)

out vec3 v_rel;            // camera-relative world position, blocks
out vec2 v_uv;             // texture coordinates in blocks (the texture repeats every block)
flat out float v_layer;    // texture layer
flat out vec3 v_normal;    // world-space normal for shading
out vec4 v_light;          // sky, red, green, blue light, 0..1
out float v_ao;            // ambient occlusion level 0..3 (3 = open)
#if VOXEN_ID
flat out int v_face_kind;  // the quad's face | kind << 3 (the id pass, id_frag.glsl)
#endif

void main() {
  int quad = gl_VertexID / 6;
  int slot = gl_VertexID - quad * 6;
  int base = quad * RECORD_WORDS;
  uint w0 = arena_word(base);
  uint w1 = arena_word(base + 1);
  uint w2 = arena_word(base + 2);
  uint w3 = arena_word(base + 3);
#if VOXEN_FLUID
  uint w4 = arena_word(base + 4);
#else
  uint w4 = 0u;
#endif

  QuadVertex q = quad_vertex(w0, w1, w2, w3, w4, VOXEN_FLUID != 0, slot, draw_offset(), u_seam, u_time);
  v_rel = q.rel;
  v_uv = q.uv;
  v_layer = q.layer;
  v_normal = q.normal;
  v_light = q.light;
  v_ao = q.ao;
#if VOXEN_ID
  v_face_kind = int((w0 >> 28) & 7u) % 6 | int((w1 >> 10) & 7u) << 3;
#endif
  gl_Position = u_view_proj * vec4(v_rel, 1.0);
}
