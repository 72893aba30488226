// The corners of a packed quad (src/mesh/include/voxen/mesh/quad.h), shared by the terrain vertex shader (one
// corner per vertex) and the ray march (raymarch_comp.glsl: a hit quad's two triangles), so both paths see the same
// triangles with the same texture coordinates, light and AO at their corners. quad_geometry.cpp is the CPU model.

// Triangle corner order: two triangles per quad, split along 0-2 (or 1-3 when the quad's flip bit is set),
// wound counter-clockwise seen from the side U x V points to, or the other way when `reversed`.
const int kSplit02[6] = int[6](0, 1, 2, 0, 2, 3);
const int kSplit13[6] = int[6](1, 2, 3, 1, 3, 0);
const int kSplit02R[6] = int[6](0, 2, 1, 0, 3, 2);
const int kSplit13R[6] = int[6](1, 3, 2, 1, 0, 3);

const vec3 kNormals[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0), vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));

// Position (half-blocks, section-local) of corner c = (u, v) of an axis quad: origin + u*w along U + v*h along V.
vec3 axis_corner(int face, vec3 origin, float w, float h, float u, float v) {
  if (face < 2) return origin + vec3(0.0, v * h, u * w);   // U = +Z, V = +Y
  if (face < 4) return origin + vec3(u * w, 0.0, v * h);   // U = +X, V = +Z
  return origin + vec3(u * w, v * h, 0.0);                 // U = +X, V = +Y
}

// Texture coordinates (blocks) of a point on an axis face, oriented so the texture's top row is up on side
// faces and it reads left to right seen from outside.
vec2 axis_uv(int face, vec3 p) {
  if (face == 0) return vec2(-p.z, -p.y);
  if (face == 1) return vec2(p.z, -p.y);
  if (face == 2) return vec2(p.x, p.z);
  if (face == 3) return vec2(p.x, -p.z);
  if (face == 4) return vec2(p.x, -p.y);
  return vec2(-p.x, -p.y);
}

// Corner `geo` (0..3) at `p` of a fluid record whose heights (word 4: 7 bits per corner, 1/64 block above the
// origin plane) are not all 0: its Y is the origin's plus its height; on a side (V = +Y), an end whose bottom
// corner lies above its top corner (height 1 > 2, or 0 > 3) moves both its corners to where the bottom edge 0-1
// crosses the top edge 3-2 (a piece ending where the neighbour's slope meets the surface). quad_geometry.cpp is
// the model.
vec3 fluid_corner(int face, vec3 p, vec3 origin, float w, uint w4, int geo) {
  float h0 = float(w4 & 127u), h1 = float((w4 >> 7) & 127u), h2 = float((w4 >> 14) & 127u), h3 = float((w4 >> 21) & 127u);
  float hk = geo == 0 ? h0 : (geo == 1 ? h1 : (geo == 2 ? h2 : h3));
  p.y = origin.y + hk / 32.0;
  if (face != 2 && face != 3) {
    float gap_lo = h3 - h0, gap_hi = h2 - h1;
    bool low_end = geo == 0 || geo == 3;
    if ((low_end && gap_lo < 0.0 && gap_hi >= 0.0) || (!low_end && gap_hi < 0.0 && gap_lo >= 0.0)) {
      float s = gap_lo / (gap_lo - gap_hi);
      p.y = origin.y + (h0 + s * (h1 - h0)) / 32.0;
      if (face < 2) p.z = origin.z + s * w;  // U = +Z
      else p.x = origin.x + s * w;           // U = +X
    }
  }
  return p;
}

// The horizontal unit direction of a fluid flow code 0..7 (0 north -Z, clockwise in 45-degree steps: 2 east +X).
vec2 flow_direction(int flow) {
  float a = float(flow) * 0.78539816;
  return vec2(sin(a), -cos(a));
}

// One triangle corner of a quad: its camera-relative position (blocks), texture coordinates, layer, shading normal,
// light (sky, red, green, blue, 0..1) and AO level (0..3).
struct QuadVertex {
  vec3 rel;
  vec2 uv;
  float layer;
  vec3 normal;
  vec4 light;
  float ao;
};

// Corner slot `slot` (0..5: the two triangles' corners in drawing order) of the quad whose record words are w0..w4
// (w4 = 0 for 16-byte records). `fluid`: a translucent record (fluid heights and flowing textures apply). `offset`:
// the section's camera-relative offset (blocks). `seam`: opaque axis quads grow by this many blocks per block of
// distance (T-junction cracks; 0 for none). `time`: seconds, scrolls flowing fluids.
QuadVertex quad_vertex(uint w0, uint w1, uint w2, uint w3, uint w4, bool fluid, int slot, vec3 offset, float seam, float time) {
  vec3 origin = vec3(float(w0 & 63u), float((w0 >> 6) & 63u), float((w0 >> 12) & 63u));
  float w = float(((w0 >> 18) & 31u) + 1u);
  float h = float(((w0 >> 23) & 31u) + 1u);
  int face = int((w0 >> 28) & 7u) % 6;
  bool flip = (w0 >> 31) != 0u;
  int layer = int(w1 & 1023u);
  int kind = int((w1 >> 10) & 7u);
  int flow = int((w1 >> 21) & 15u);

  // The side U x V points to (quad corner order 0..3 runs counter-clockwise seen from there), the shading normal,
  // and whether the winding must be reversed so the visible side is the front (back faces are culled).
  vec3 normal = kNormals[face];
  bool reversed;
  if (kind == 1 || kind == 2) {
    // Plants (kCrossA: U x V = (-1, 0, 1); kCrossB: (-1, 0, -1)) are seen from both sides: wind toward the
    // camera, which sits at the origin of camera-relative space. Shaded like the ground they stand on.
    vec3 uxv = kind == 1 ? vec3(-1.0, 0.0, 1.0) : vec3(-1.0, 0.0, -1.0);
    vec3 centre = offset + (origin + vec3(w * 0.5, h * 0.5, w * 0.5)) * 0.5;
    reversed = dot(uxv, centre) > 0.0;
    normal = vec3(0.0, 1.0, 0.0);
  } else if (kind == 3) {
    // Slope: corners in +Y order (U = +X, V = +Z: U x V = -Y); upright it faces up (reversed), upside-down down.
    bool upside = (flow & 1) != 0;
    reversed = !upside;
    normal = normalize(vec3(0.0, upside ? -1.0 : 1.0, 0.0) - kNormals[face]);
  } else {
    // Axis faces: U x V is -X, -Y, +Z for the X, Y, Z pairs, so +X, +Y and -Z faces wind the other way.
    reversed = face == 0 || face == 2 || face == 5;
  }
  int corner = flip ? (reversed ? kSplit13R[slot] : kSplit13[slot]) : (reversed ? kSplit02R[slot] : kSplit02[slot]);
  // quad_geometry.cpp (the mesher's CPU statement of these rules) is the model for every case below.
  int geo = corner;
  if (kind == 4) {
    // Triangle: the removed corner (flow & 3) collapses onto its neighbour along V: 2 -> 1, 3 -> 0, 1 -> 2, 0 -> 3.
    if (corner == (flow & 3)) geo = 3 - corner;
  }
  float cu = (geo == 1 || geo == 2) ? 1.0 : 0.0;
  float cv = (geo >= 2) ? 1.0 : 0.0;

  vec3 p;  // section-local position, half-blocks
  vec2 uv;
  if (kind == 1 || kind == 2) {
    float along = kind == 1 ? cu * w : (1.0 - cu) * w;
    p = origin + vec3(along, cv * h, cu * w);
    uv = vec2(cu * w * 0.5, 1.0 - cv * h * 0.5);
  } else if (kind == 3) {
    // Corners over the cell's x-z square (w along X, h along Z); those on the back side are high (low when
    // upside-down); the rise is one block (2 half-blocks).
    float along = (face < 2) ? cu : cv;
    bool on_back = (face == 0 || face == 4) == (along == 1.0);
    bool high = ((flow & 1) != 0) ? !on_back : on_back;
    p = origin + vec3(cu * w, high ? 2.0 : 0.0, cv * h);
    uv = vec2(p.x, p.z) * 0.5;
  } else {
    p = axis_corner(face, origin, w, h, cu, cv);
    if (!fluid) {
      // T-junctions: greedy quads meet the middle of a longer quad's edge, and the rasteriser's rounding may leave a
      // crack a sample falls through (pinholes showing what lies behind the ground). Each opaque axis quad grows by
      // `seam` (a small fraction of a pixel at its distance) along U and V, so neighbours overlap instead; the
      // texture coordinates follow the grown position, so the texture does not stretch.
      vec3 du = face < 2 ? vec3(0, 0, 1) : vec3(1, 0, 0);
      vec3 dv = face < 2 ? vec3(0, 1, 0) : (face < 4 ? vec3(0, 0, 1) : vec3(0, 1, 0));
      p += ((cu * 2.0 - 1.0) * du + (cv * 2.0 - 1.0) * dv) * (2.0 * seam * length(offset + p * 0.5));
    }
    if (fluid && w4 != 0u) p = fluid_corner(face, p, origin, w, w4, geo);
    uv = axis_uv(face, p * 0.5);  // from the final position, so fluid pieces tile their texture in world space
  }
  if (fluid && (w4 != 0u || flow != 15)) {
    if (face == 2 && flow < 8) {
      // A flowing surface: the texture's bands turn across the flow and scroll downstream.
      vec2 d = flow_direction(flow);
      vec2 xz = p.xz * 0.5;
      uv = vec2(dot(xz, vec2(-d.y, d.x)), dot(xz, d) - time * 0.8);
    } else if (face != 2 && face != 3 && flow != 15) {
      uv.y -= time * 1.6;  // falling and flowing sides pour downward
    }
  }

  QuadVertex o;
  o.rel = offset + p * 0.5;
  o.uv = uv;
  o.layer = float(layer);
  o.normal = normal;
  uint light = (corner < 2) ? (w2 >> (16 * corner)) & 0xFFFFu : (w3 >> (16 * (corner - 2))) & 0xFFFFu;
  o.light = vec4(float(light >> 12), float((light >> 8) & 15u), float((light >> 4) & 15u), float(light & 15u)) / 15.0;
  o.ao = float((w1 >> (13 + 2 * corner)) & 3u);
  return o;
}
