// The ray march (renderer.h RenderPath::kRayMarch; after the voxelG seed's compute renderer): one invocation per
// pixel marches the primary ray through the store (trace_common.glsl) with the hierarchical DDA, skipping sections
// without a record and empty bricks, and at each cell with the hit bit intersects the mesher's quads listed there
// as the rasteriser's triangles (quad_common.glsl: same corners, same split), so the hit has the raster path's
// surface, texture coordinates, light and AO; shade_common.glsl colours it.
//   - cutout: an opaque-record texel with alpha < 0.5 is no hit (the raster path's discard); the ray goes on;
//   - translucent records (water, glass, ice): both sides, composited front to back until an opaque hit;
//   - opaque records: front faces only (the raster path culls back faces);
//   - sections whose footprint lies beyond u_draw_radius are not drawn (the raster path culls them by the fog end).
// Texture level of detail: the rasteriser takes derivatives across each 2 x 2 pixel quad; here the hit triangle's
// plane is intersected with the rays of the quad's first pixel and its neighbours in x and y, and textureGrad gets
// those differences (what the rasteriser computes for a triangle covering the quad).
// VOXEN_BEAM 1 compiles the beam pre-pass instead: one invocation per 8 x 8 pixel tile marches the tile's centre
// ray a brick at a time and stops at the first brick within the beam's reach (the tile's widest angle times the
// distance, plus a margin) that holds a hit cell; no pixel ray of the tile meets a hit cell before that distance, so
// the main pass starts there.
// Outputs (image units): 0 colour (RGBA16F, premultiplied: a composite pass blends it over the sky and far view),
// 1 depth (R32F, window depth of the opaque hit, 1 where none), 2 ids (RGBA32I: the opaque hit's cell from the
// eye's block and its quad's face; w = -1 where none), 3 shadow probe (RGBA32F, trace_common.glsl shadow_probe),
// 4 the beam (R32F, t per tile). The step counts go to a histogram (binding 3).
layout(local_size_x = 8, local_size_y = 8) in;

uniform mat4 u_inv_view_proj;  // inverse of the rotation-only view-projection: clip position -> direction
uniform mat4 u_view_proj;
uniform vec2 u_size;           // framebuffer pixels
uniform float u_draw_radius;   // sections with a footprint farther than this (blocks) are not drawn: the fog end
uniform float u_max_t;         // the ray stops here (blocks)
uniform float u_time;
uniform int u_translucent;     // draw translucent records
uniform int u_shadows;         // trace a sun ray from each surface
uniform int u_use_beam;        // start from the beam pre-pass's distance
uniform int u_outputs;         // bit 0: ids and shadow probe, bit 1: step histogram
uniform float u_beam_angle;    // the widest angle (radians) between a tile's centre ray and any pixel ray of it
uniform sampler2DArray u_textures;

#if VOXEN_BEAM
layout(r32f, binding = 4) writeonly uniform image2D o_beam;
#else
layout(rgba16f, binding = 0) writeonly uniform image2D o_color;
layout(r32f, binding = 1) writeonly uniform image2D o_depth;
layout(rgba32i, binding = 2) writeonly uniform iimage2D o_id;
layout(rgba32f, binding = 3) writeonly uniform image2D o_probe;
layout(r32f, binding = 4) readonly uniform image2D i_beam;
layout(std430, binding = 3) buffer Steps { uint step_histogram[]; };  // [k]: rays that took k steps (last: more)
#endif

const float kBeamMargin = 0.05;  // blocks kept before the beam's stop

// The direction (unit, world axes) of the ray through pixel position `px` (window coordinates, y up).
vec3 pixel_dir(vec2 px) {
  vec2 ndc = px / u_size * 2.0 - 1.0;
  vec4 far = u_inv_view_proj * vec4(ndc, 1.0, 1.0);
  return normalize(far.xyz / far.w);
}

// Möller & Trumbore (1997): t and barycentrics (b1, b2) where the ray from the eye (the origin of camera-relative
// space) along d meets the plane of triangle a b c; t < 0 when parallel.
vec3 ray_triangle(vec3 d, vec3 a, vec3 b, vec3 c) {
  vec3 e1 = b - a, e2 = c - a;
  vec3 p = cross(d, e2);
  float det = dot(e1, p);
  if (abs(det) < 1e-12) return vec3(-1.0, -1.0, -1.0);
  float inv = 1.0 / det;
  vec3 s = -a;
  float b1 = dot(s, p) * inv;
  vec3 q = cross(s, e1);
  float b2 = dot(d, q) * inv;
  return vec3(dot(e2, q) * inv, b1, b2);
}

#if VOXEN_BEAM
// Whether any brick overlapping cells lo..hi (from the eye's block) holds a hit cell.
bool bricks_hit(ivec3 lo, ivec3 hi) {
  ivec3 blo = (u_eye_cell + lo) >> 2, bhi = (u_eye_cell + hi) >> 2;  // bricks counted from the eye section's origin
  for (int by = blo.y; by <= bhi.y; ++by)
    for (int bz = blo.z; bz <= bhi.z; ++bz)
      for (int bx = blo.x; bx <= bhi.x; ++bx) {
        ivec3 bb = ivec3(bx, by, bz);
        int base = section_record(bb >> 2);
        if (base < 0) continue;
        if (bit64(uvec2(rec[base], rec[base + 1]), brick_index((bb & 3) << 2))) return true;
      }
  return false;
}

void main() {
  ivec2 tile = ivec2(gl_GlobalInvocationID.xy);
  ivec2 tiles = ivec2(ceil(u_size / 8.0));
  if (tile.x >= tiles.x || tile.y >= tiles.y) return;
  vec3 d = pixel_dir(vec2(tile * 8) + 4.0);
  Dda r = dda_start(u_eye_frac, d, 0.0);
  for (int n = 0; n < 512; ++n) {
    ivec3 l = local_of(r.c);
    ivec3 blo = r.c - (l & 3), bhi = blo + 3;  // the brick of the current cell
    float t_out = kNoCrossing;
    for (int i = 0; i < 3; ++i)
      if (r.s[i] != 0) t_out = min(t_out, dda_exit(r, i, r.s[i] > 0 ? bhi[i] : blo[i]));
    float reach = t_out * u_beam_angle + kBeamMargin;
    if (reach > 4.0 || r.t > u_max_t) break;
    int g = int(ceil(reach));
    if (bricks_hit(blo - g, bhi + g)) break;
    dda_skip(r, blo, bhi);
  }
  // Every pixel ray of the tile is clear of hit cells up to the entry of the brick where the march stopped.
  imageStore(o_beam, tile, vec4(max(r.t - kBeamMargin, 0.0)));
}
#else

// A hit on a quad: where, what it shows there, and which quad.
struct Hit {
  float t;
  vec3 rel;      // camera-relative position, blocks
  vec4 tex;      // the texel
  vec4 light;    // sky, red, green, blue, 0..1
  float ao;      // 0..3
  float layer;
  vec3 normal;
  int face;
  uint quad;     // record word offset of the quad (tells one quad from another)
};

// The uv of triangle a b c (corner uvs ua ub uc) where the ray along d meets its plane.
vec2 plane_uv(vec3 d, QuadVertex a, QuadVertex b, QuadVertex c) {
  vec3 h = ray_triangle(d, a.rel, b.rel, c.rel);
  return a.uv * (1.0 - h.y - h.z) + b.uv * h.y + c.uv * h.z;
}

// A quick rejection of an axis quad (kind 0, no fluid heights: a rectangle on its plane) before its triangles are
// built: true when the ray meets the plane outside the cell's t window or outside the rectangle grown by a margin
// (wider than the triangle test's tolerance, so no hit the full test would take is refused).
bool axis_quad_missed(uint w0, uint w1, uint w4, vec3 offset, vec3 d, float t0, float t1, float eps) {
  if (((w1 >> 10) & 7u) != 0u || w4 != 0u) return false;
  int axis = int((w0 >> 28) & 7u) % 6 >> 1;
  if (d[axis] == 0.0) return true;
  vec3 origin = vec3(float(w0 & 63u), float((w0 >> 6) & 63u), float((w0 >> 12) & 63u)) * 0.5 + offset;  // blocks
  float t = origin[axis] / d[axis];
  if (t < t0 - eps || t > t1 + eps) return true;
  int ua = axis == 0 ? 2 : 0, va = axis == 1 ? 2 : 1;  // quad.h: U, V of the face's axis
  float pu = d[ua] * t - origin[ua], pv = d[va] * t - origin[va];
  float w = float(((w0 >> 18) & 31u) + 1u) * 0.5, h = float(((w0 >> 23) & 31u) + 1u) * 0.5;
  float m = 1e-3 + 1e-4 * t;
  return pu < -m || pu > w + m || pv < -m || pv > h + m;
}

// The record of the section `sec` sections from the eye's, whose min cell is `box` (from the eye's block), and its
// camera-relative offset; -1 where none is held or the raster path does not draw it (the fog end's cull: its
// column's footprint lies beyond u_draw_radius).
int drawn_record(ivec3 sec, ivec3 box, out vec3 offset) {
  offset = vec3(box) - u_eye_frac;
  int base = section_record(sec);
  vec2 nxz = max(max(offset.xz, vec2(0.0)), -(offset.xz + 16.0));
  return base >= 0 && length(nxz) <= u_draw_radius ? base : -1;
}

// Whether section-local cell l of the record at `base` has the hit bit (its brick's bit must be set).
bool cell_bit(int base, ivec3 l) {
  int at = base + 9 + 3 * rank64(uvec2(rec[base], rec[base + 1]), brick_index(l));
  return bit64(uvec2(rec[at], rec[at + 1]), bit_index(l));
}

uint g_steps = 0u;
ivec2 g_px;

// The colour of a hit (alpha: the texel's), with its traced sun where shadows are on; `probe`: write the shadow
// probe output for this pixel.
vec4 shade_hit(Hit h, bool probe) {
  float lit = 1.0;
  bool write_probe = probe && (u_outputs & 1) != 0;  // the id pass's probe: written with shadows on or off
  if (u_shadows != 0 || write_probe) {
    uint s = 0u;
    vec4 p = shadow_probe(h.rel, h.normal, s);
    if (u_shadows != 0 && p.w == 0.0) lit = 0.0;
    if (write_probe) imageStore(o_probe, g_px, p);
  }
  // Clamped as the raster path's RGBA8 target clamps each fragment before blending it (a sunlit water texel's blue
  // passes 1.0).
  return clamp(vec4(shade_terrain(h.tex.rgb, h.normal, h.light, h.ao, h.layer, h.rel, lit), h.tex.a), 0.0, 1.0);
}

// Tests the quads listed in cell `l` of the section at record `base` (camera-relative offset `offset`) for hits with
// t in [t0, t1]: the nearest opaque one in `best` (returns true), translucent ones composited into (acc, trans) in
// order of t when nearer than the opaque one, skipping `last_translucent` (already composited from the cell before).
bool cell_hits(int base, ivec3 l, vec3 offset, vec3 d, float t0, float t1, inout Hit best, inout vec3 acc, inout float trans,
               inout uint last_translucent) {
  uvec2 mask = uvec2(rec[base], rec[base + 1]);
  int b = brick_index(l);
  int at = base + 9 + 3 * rank64(mask, b);
  int rank = int(rec[at + 2]) + rank64(uvec2(rec[at], rec[at + 1]), bit_index(l));
  uint entry = rec[base + int(rec[base + 5]) + rank];  // offsets in the header are from the record's start
  int refs = base + int(rec[base + 6]);
  int quads = base + int(rec[base + 7]);
  const int kMaxLayers = 4;
  Hit layers[kMaxLayers];
  int n_layers = 0;
  bool found = false;
  float eps = 1e-3 + t1 * 1e-5;
  for (uint k = 0u; k < (entry >> 20); ++k) {
    uint ref = (entry & 0xFFFFFu) + k;
    uint qi = (rec[refs + int(ref >> 1)] >> (16u * (ref & 1u))) & 0xFFFFu;
    int q = quads + 5 * int(qi);
    uint w1 = rec[q + 1];
    bool translucent = (w1 & (1u << 25)) != 0u;
    if (translucent && u_translucent == 0) continue;
    w1 &= ~(1u << 25);
    uint w0 = rec[q], w2 = rec[q + 2], w3 = rec[q + 3], w4 = rec[q + 4];
    if (axis_quad_missed(w0, w1, w4, offset, d, t0, t1, eps)) continue;
    for (int tri = 0; tri < 2; ++tri) {
      QuadVertex a = quad_vertex(w0, w1, w2, w3, w4, translucent, 3 * tri, offset, 0.0, u_time);
      QuadVertex bq = quad_vertex(w0, w1, w2, w3, w4, translucent, 3 * tri + 1, offset, 0.0, u_time);
      QuadVertex c = quad_vertex(w0, w1, w2, w3, w4, translucent, 3 * tri + 2, offset, 0.0, u_time);
      vec3 h = ray_triangle(d, a.rel, bq.rel, c.rel);
      const float kEdge = -1e-6;
      if (h.x < t0 - eps || h.x > t1 + eps || h.y < kEdge || h.z < kEdge || h.y + h.z > 1.0 - kEdge) continue;
      if (found && h.x >= best.t) continue;
      // Opaque records: the front side only (counter-clockwise seen from the eye, as the raster path culls).
      if (!translucent && dot(cross(bq.rel - a.rel, c.rel - a.rel), a.rel) >= 0.0) continue;
      if (translucent && uint(q) == last_translucent) continue;
      float w_a = 1.0 - h.y - h.z;
      vec2 uv = a.uv * w_a + bq.uv * h.y + c.uv * h.z;
      // Derivatives across the 2 x 2 pixel quad (the rasteriser's): the plane met by the quad's pixel rays.
      ivec2 q0 = g_px & ~1;
      vec2 uv00 = plane_uv(pixel_dir(vec2(q0) + 0.5), a, bq, c);
      vec2 ddx = plane_uv(pixel_dir(vec2(q0) + vec2(1.5, 0.5)), a, bq, c) - uv00;
      vec2 ddy = plane_uv(pixel_dir(vec2(q0) + vec2(0.5, 1.5)), a, bq, c) - uv00;
      vec4 tex = textureGrad(u_textures, vec3(uv, a.layer), ddx, ddy);
      if (!translucent && tex.a < 0.5) continue;  // cutout: no hit here
      Hit hit;
      hit.t = h.x;
      hit.rel = a.rel * w_a + bq.rel * h.y + c.rel * h.z;
      hit.tex = tex;
      hit.light = a.light * w_a + bq.light * h.y + c.light * h.z;
      hit.ao = a.ao * w_a + bq.ao * h.y + c.ao * h.z;
      hit.layer = a.layer;
      hit.normal = a.normal;
      hit.face = int((w0 >> 28) & 7u) % 6;
      hit.quad = uint(q);
      if (!translucent) {
        best = hit;
        found = true;
      } else if (n_layers < kMaxLayers) {
        layers[n_layers++] = hit;
      }
      // A ray meets a quad once: on the diagonal both triangles take the point (their edges are tested with a
      // tolerance), and a translucent quad would be composited twice.
      break;
    }
  }
  // Translucent layers nearer than the opaque hit, near first.
  for (int i = 0; i < n_layers; ++i) {
    int m = i;
    for (int j = i + 1; j < n_layers; ++j)
      if (layers[j].t < layers[m].t) m = j;
    Hit h = layers[m];
    layers[m] = layers[i];
    if (found && h.t >= best.t) continue;
    vec4 color = shade_hit(h, false);
    acc += trans * color.a * color.rgb;
    trans *= 1.0 - color.a;
    last_translucent = h.quad;
  }
  return found;
}

void main() {
  g_px = ivec2(gl_GlobalInvocationID.xy);
  if (g_px.x >= int(u_size.x) || g_px.y >= int(u_size.y)) return;
  vec3 d = pixel_dir(vec2(g_px) + 0.5);
  float t_start = u_use_beam != 0 ? imageLoad(i_beam, g_px >> 3).r : 0.0;
  Dda r = dda_start(u_eye_frac, d, t_start);
  Hit best;
  bool found = false;
  vec3 acc = vec3(0.0);
  float trans = 1.0;
  uint last_translucent = 0xFFFFFFFFu;
  ivec3 cur_sec = ivec3(1 << 30);
  int base = -1;
  vec3 offset = vec3(0.0);
  ivec3 hit_cell = ivec3(0);
  if ((u_outputs & 1) != 0) imageStore(o_probe, g_px, vec4(0.0, 0.0, 0.0, -1.0));
  for (int n = 0; n < 8192; ++n) {
    if (r.t > u_max_t) break;
    ++g_steps;
    ivec3 sec = section_of(r.c);
    ivec3 l = local_of(r.c);
    ivec3 box = r.c - l;
    if (sec != cur_sec) {
      cur_sec = sec;
      int sy = u_eye_section_y + sec.y;
      if ((sy >= kSectionsY && r.s.y >= 0) || (sy < 0 && r.s.y <= 0)) break;  // left the world for good
      base = drawn_record(sec, box, offset);
    }
    if (base < 0) {
      dda_skip_within(r, box, box + 15);
    } else {
      uvec2 mask = uvec2(rec[base], rec[base + 1]);
      int b = brick_index(l);
      if (!bit64(mask, b)) {
        ivec3 blo = box + (l & ~3);
        dda_skip_within(r, blo, blo + 3);
      } else if (cell_bit(base, l)) {
        float t1 = min(r.tmax.x, min(r.tmax.y, r.tmax.z));
        if (cell_hits(base, l, offset, d, r.t, t1, best, acc, trans, last_translucent)) {
          found = true;
          hit_cell = r.c;
          break;
        }
      }
    }
    dda_step(r);
  }
  float depth = 1.0;
  if (found) {
    acc += trans * shade_hit(best, true).rgb;
    trans = 0.0;
    vec4 clip = u_view_proj * vec4(best.rel, 1.0);
    depth = clip.z / clip.w * 0.5 + 0.5;
  }
  imageStore(o_color, g_px, vec4(acc, 1.0 - trans));
  imageStore(o_depth, g_px, vec4(depth));
  if ((u_outputs & 1) != 0) imageStore(o_id, g_px, found ? ivec4(hit_cell, best.face) : ivec4(0, 0, 0, -1));
  if ((u_outputs & 2) != 0) atomicAdd(step_histogram[min(g_steps, uint(step_histogram.length() - 1))], 1u);
}
#endif
