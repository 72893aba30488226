// The ray-march store and its tracers, shared by the ray march (raymarch_comp.glsl) and the raster passes' traced
// shadows (terrain_frag.glsl with VOXEN_SHADOWS, id_frag.glsl). The renderer prepends #version 430 core.
//
// Store (src/render/src/trace_store.cpp): every drawn section's record (src/trace/include/voxen/trace/
// section_record.h: brick masks, bricks of 4 x 4 x 4 cells as two words, the cell table, quad references and
// records) in one storage buffer, and a table of 128 x 128 columns x 24 sections giving each section's record:
// slot ((z & 127) * 128 + (x & 127)) * 24 + y of world section (x, y, z) holds (record offset + 1, tag), the tag
// (x >> 7 & 0xFFFF) | (z >> 7 & 0xFFFF) << 16 telling that section from those 128 sections away; (0, 0) is empty.
//
// Coordinates: cells are counted from the eye's block (floating origin: the world position of the eye's block is
// never in a float; u_eye_cell and the section offsets are small integers), Y up. A ray starts at u_eye_frac (the
// eye within its block) or any point given relative to the eye's block.
//
// The DDA (Amanatides & Woo 1987, as trace/dda.h): every boundary crossing is t = (boundary - origin) / direction
// per axis, the smallest taken, ties to x, then y, then z; a box known empty (a section without a record, a brick
// whose bit is clear) is crossed in one skip: each axis moves to the last cell of the box along the ray, then one
// ordinary step leaves it.

layout(std430, binding = 1) readonly buffer TraceRecords { uint rec[]; };
layout(std430, binding = 2) readonly buffer TraceTable { uvec2 table_entries[]; };

uniform ivec3 u_eye_cell;     // the eye's block within its section: x, z 0..15, y 0..15 from the section's base
uniform int u_eye_section_y;  // the eye's section index (0: y -128..-113; outside 0..23 above or below the world)
uniform ivec2 u_eye_slot;     // the eye's section x & 127 and z & 127
uniform uvec2 u_eye_tag;      // the eye's section (x >> 7) & 0xFFFF and (z >> 7) & 0xFFFF
uniform vec3 u_eye_frac;      // the eye within its block, [0, 1) each
uniform float u_shadow_reach; // blocks a sun ray is followed

const int kTableSide = 128;
const int kSectionsY = 24;
const float kNoCrossing = 1e30;
const float kShadowBias = 1.0 / 256.0;  // a sun ray starts this far (blocks) off the surface, along its normal

// The record (word offset into rec) of the section `sec` sections from the eye's; -1 where none is held.
int section_record(ivec3 sec) {
  int sy = u_eye_section_y + sec.y;
  if (sy < 0 || sy >= kSectionsY) return -1;
  int gx = u_eye_slot.x + sec.x, gz = u_eye_slot.y + sec.z;
  uint tag = ((u_eye_tag.x + uint(gx >> 7)) & 0xFFFFu) | (((u_eye_tag.y + uint(gz >> 7)) & 0xFFFFu) << 16);
  uvec2 e = table_entries[((gz & (kTableSide - 1)) * kTableSide + (gx & (kTableSide - 1))) * kSectionsY + sy];
  if (e.x == 0u || e.y != tag) return -1;
  return int(e.x - 1u);
}

bool bit64(uvec2 m, int i) { return i < 32 ? ((m.x >> uint(i)) & 1u) != 0u : ((m.y >> uint(i - 32)) & 1u) != 0u; }
// Set bits of m below bit i.
int rank64(uvec2 m, int i) {
  return i < 32 ? bitCount(m.x & ((1u << uint(i)) - 1u)) : bitCount(m.x) + bitCount(m.y & ((1u << uint(i - 32)) - 1u));
}
int brick_index(ivec3 l) { return (l.y >> 2) << 4 | (l.z >> 2) << 2 | (l.x >> 2); }
int bit_index(ivec3 l) { return (l.y & 3) << 4 | (l.z & 3) << 2 | (l.x & 3); }

// A ray's DDA state: cell c (from the eye's block), step signs s, origin o and direction d (eye-block-relative), the
// t of the next crossing on each axis, and t of the entry into c.
struct Dda {
  ivec3 c;
  ivec3 s;
  vec3 o;
  vec3 d;
  vec3 inv;
  vec3 tmax;
  float t;
};

// t where the ray crosses the far boundary of `cell` on axis i (kNoCrossing when it never moves on i).
float dda_exit(Dda r, int i, int cell) {
  if (r.s[i] == 0) return kNoCrossing;
  return (float(r.s[i] > 0 ? cell + 1 : cell) - r.o[i]) * r.inv[i];
}

Dda dda_start(vec3 o, vec3 d, float t0) {
  Dda r;
  r.o = o;
  r.d = d;
  r.s = ivec3(sign(d));
  r.inv = vec3(r.s.x != 0 ? 1.0 / d.x : 0.0, r.s.y != 0 ? 1.0 / d.y : 0.0, r.s.z != 0 ? 1.0 / d.z : 0.0);
  r.c = ivec3(floor(o + d * t0));
  r.t = t0;
  for (int i = 0; i < 3; ++i) r.tmax[i] = dda_exit(r, i, r.c[i]);
  return r;
}

// One ordinary step to the next cell.
void dda_step(inout Dda r) {
  int a = (r.tmax.x <= r.tmax.y && r.tmax.x <= r.tmax.z) ? 0 : (r.tmax.y <= r.tmax.z ? 1 : 2);
  r.t = r.tmax[a];
  r.c[a] += r.s[a];
  r.tmax[a] = dda_exit(r, a, r.c[a]);
}

// Moves across the empty box lo..hi (cells, inclusive) that holds the current cell to the box's last cell along the
// ray (the next ordinary step leaves the box).
void dda_skip_within(inout Dda r, ivec3 lo, ivec3 hi) {
  float t_exit = kNoCrossing;
  for (int i = 0; i < 3; ++i)
    if (r.s[i] != 0) t_exit = min(t_exit, dda_exit(r, i, r.s[i] > 0 ? hi[i] : lo[i]));
  for (int i = 0; i < 3; ++i) {
    if (r.s[i] == 0) continue;
    int last = r.s[i] > 0 ? hi[i] : lo[i];
    // The cell on this axis just before the box's exit: the closed form, then exact crossings decide the rounding.
    int c = clamp(int(floor(r.o[i] + r.d[i] * t_exit)), lo[i], hi[i]);
    if ((c - r.c[i]) * r.s[i] < 0) c = r.c[i];  // never backwards
    for (int k = 0; k < 2 && c != last && dda_exit(r, i, c) < t_exit; ++k) c += r.s[i];
    for (int k = 0; k < 2 && c != r.c[i] && dda_exit(r, i, c - r.s[i]) >= t_exit; ++k) c -= r.s[i];
    r.c[i] = c;
    r.tmax[i] = dda_exit(r, i, c);
  }
}

// Crosses the empty box lo..hi that holds the current cell, ending in the first cell after it.
void dda_skip(inout Dda r, ivec3 lo, ivec3 hi) {
  dda_skip_within(r, lo, hi);
  dda_step(r);
}

// The section offset (sections from the eye's) and section-local cell of cell c.
ivec3 section_of(ivec3 c) { return (u_eye_cell + c) >> 4; }
ivec3 local_of(ivec3 c) { return (u_eye_cell + c) & 15; }

// Whether a sun ray from o (eye-block-relative) along d meets a cell of the shadow layer within max_t blocks
// (d unit). Sections without a record are empty. `steps` counts loop iterations.
bool trace_shadow(vec3 o, vec3 d, float max_t, inout uint steps) {
  Dda r = dda_start(o, d, 0.0);
  for (int n = 0; n < 4096; ++n) {
    if (r.t > max_t) return false;
    ++steps;
    ivec3 sec = section_of(r.c);
    ivec3 l = local_of(r.c);
    int sy = u_eye_section_y + sec.y;
    if ((sy >= kSectionsY && r.s.y >= 0) || (sy < 0 && r.s.y <= 0)) return false;  // left the world for good
    int base = section_record(sec);
    ivec3 box = r.c - l;
    if (base < 0) {
      dda_skip(r, box, box + 15);
      continue;
    }
    uint flags = rec[base + 4];
    if ((flags & 1u) != 0u) return true;  // every cell casts a shadow
    uvec2 mask = uvec2(rec[base + 2], rec[base + 3]);
    int b = brick_index(l);
    if (!bit64(mask, b)) {
      ivec3 blo = box + (l & ~3);
      dda_skip(r, blo, blo + 3);
      continue;
    }
    int at = base + 9 + 3 * int((flags >> 8) & 255u) + 2 * rank64(mask, b);
    if (bit64(uvec2(rec[at], rec[at + 1]), bit_index(l))) return true;
    dda_step(r);
  }
  return false;
}

// The traced sun of a surface point at `rel` (camera-relative, blocks) with shading normal n: (the sun ray's origin,
// eye-block-relative; state) with state -1 where no ray is traced (the surface faces away from the sun, or it is
// below the horizon: its sun term is 0 anyway), 0 where the ray meets a shadow cell, 1 where it reaches the sky.
vec4 shadow_probe(vec3 rel, vec3 n, inout uint steps) {
  vec3 o = rel + u_eye_frac + n * kShadowBias;
  if (dot(n, u_sun_dir) <= 0.0 || u_sun_dir.y <= 0.0) return vec4(o, -1.0);
  return vec4(o, trace_shadow(o, u_sun_dir, u_shadow_reach, steps) ? 0.0 : 1.0);
}
