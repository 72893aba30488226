// LOD vertex shader (the far pass): vertex pulling of LOD sections' 8-byte quads (mesh::LodQuad,
// src/mesh/include/voxen/mesh/lod_mesher.h). No vertex buffer: indexed draws, 4 vertices a quad (each shaded once,
// where 6 unindexed ones were shaded six times): the renderer's index pattern is 0, 1, 2, 0, 2, 3 + 4q and the
// draw's base vertex 4 * the quads' first arena position, so vertex gl_VertexID is corner gl_VertexID % 4 of quad
// gl_VertexID / 4 of the LOD arena. A quad is two little-endian uint words:
//   word 0: bits 0-4 x, 5-9 y, 10-14 z (first cell, LOD-section-local 0..31), 15-17 face (0 +X, 1 -X, 2 +Y, 3 -Y,
//           4 +Z, 5 -Z), 18-21 w-1, 22-25 h-1 (cells along the face's U, V), 26-31 texture layer bits 0-5;
//   word 1: bits 0-3 texture layer bits 6-9, 4-19 light (sky << 12 | r << 8 | g << 4 | b), 20-31 reserved.
// U, V as the near quads: +X/-X: U = +Z, V = +Y; +Y/-Y: U = +X, V = +Z; +Z/-Z: U = +X, V = +Y. The quad lies on
// its face of its cells: the plane x (y, z) + 1 for the positive faces, x (y, z) for the negative ones.
//
// The renderer prepends #version 430 core, VOXEN_MDI 1, VOXEN_FLUID 0, VOXEN_PEEL 0, VOXEN_LOD 1. The draw's
// per-instance attribute (divisor 1, selected by the indirect command's baseInstance) is (camera-relative float
// offset of the LOD section's min corner, blocks; cell size 2^level, blocks). Floating origin as terrain_vert:
// float32 never sees a large coordinate.
// Outputs: the varyings of terrain_vert (so terrain_frag shades both the same; v_ao = 3, no occlusion), plus
// v_inward: the camera-relative point half a cell inside the face's cell, for the hand-over mask.

layout(std430, binding = 0) readonly buffer Arena { uint arena_words[]; };
layout(location = 0) in vec4 a_draw;  // xyz: camera-relative section offset (blocks); w: cell size (blocks)

uniform mat4 u_view_proj;  // the far projection * rotation-only view (camera at the origin)

out vec3 v_rel;            // camera-relative world position, blocks
out vec2 v_uv;             // texture coordinates in blocks (the texture repeats every block)
flat out float v_layer;    // texture layer
flat out vec3 v_normal;    // world-space normal for shading
out vec4 v_light;          // sky, red, green, blue light, 0..1
out float v_ao;            // ambient occlusion level 0..3 (always 3: open)
out vec3 v_inward;         // v_rel moved half a cell inward (against the normal): inside the face's own cell

// kNormals and axis_uv come from quad_common.glsl (prepended), as for the near quads.

void main() {
  int quad = gl_VertexID >> 2;
  int slot = gl_VertexID & 3;
  uint w0 = arena_words[quad * 2];
  uint w1 = arena_words[quad * 2 + 1];
  vec3 cell = vec3(float(w0 & 31u), float((w0 >> 5) & 31u), float((w0 >> 10) & 31u));
  int face = int((w0 >> 15) & 7u) % 6;  // the renderer refuses faces 6 and 7 on upload
  float w = float(((w0 >> 18) & 15u) + 1u);
  float h = float(((w0 >> 22) & 15u) + 1u);
  int layer = int((w0 >> 26) | ((w1 & 15u) << 6));
  uint light = (w1 >> 4) & 0xFFFFu;

  vec3 normal = kNormals[face];
  // Axis faces: U x V is -X, -Y, +Z for the X, Y, Z pairs, so +X, +Y and -Z faces wind the other way: corners 1
  // and 3 trade places, and the pattern's triangles (0, 1, 2), (0, 2, 3) become (0, 3, 2), (0, 2, 1): the same two
  // triangles as the unindexed (0, 2, 1), (0, 3, 2), in the other order (they share only their diagonal).
  bool reversed = face == 0 || face == 2 || face == 5;
  int corner = (reversed && (slot & 1) == 1) ? 4 - slot : slot;
  float cu = (corner == 1 || corner == 2) ? 1.0 : 0.0;
  float cv = (corner >= 2) ? 1.0 : 0.0;
  // The face plane: the positive faces lie on the far side of their cells.
  vec3 origin = cell + max(normal, vec3(0.0));
  vec3 p;  // LOD-section-local position, cells
  if (face < 2) p = origin + vec3(0.0, cv * h, cu * w);       // U = +Z, V = +Y
  else if (face < 4) p = origin + vec3(cu * w, 0.0, cv * h);  // U = +X, V = +Z
  else p = origin + vec3(cu * w, cv * h, 0.0);                // U = +X, V = +Y
  float size = a_draw.w;
  vec3 local = p * size;  // blocks from the section's min corner

  v_rel = a_draw.xyz + local;
  v_uv = axis_uv(face, local);
  v_layer = float(layer);
  v_normal = normal;
  v_light = vec4(float(light >> 12), float((light >> 8) & 15u), float((light >> 4) & 15u), float(light & 15u)) / 15.0;
  v_ao = 3.0;
  v_inward = v_rel - normal * (0.5 * size);
  gl_Position = u_view_proj * vec4(v_rel, 1.0);
}
