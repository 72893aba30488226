// The packed quad format: what the mesher emits and the renderer's vertex shader reads by vertex pulling
// (gl_VertexID / 6 = quad, gl_VertexID % 6 = corner of its two triangles). One record per quad.
//
// Space: section-local, in half-blocks (a section spans 0..32 on each axis), Y up. The renderer adds the
// section's camera-relative offset (floating origin), so positions here are always small.
//
// Opaque and cutout quads: 16 bytes, four uint32 words.
//   word0  bits  0- 5  x     origin (min corner of the rectangle) in half-blocks, 0..32
//          bits  6-11  y
//          bits 12-17  z
//          bits 18-22  w-1   extent along the face's U axis, half-blocks (1..32)
//          bits 23-27  h-1   extent along the face's V axis, half-blocks (1..32)
//          bits 28-30  face  0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z (the direction the quad faces)
//          bit  31     flip  1: split the quad along corners 1-3 instead of 0-2 (anisotropic AO)
//   word1  bits  0- 9  texture layer in the sampler2DArray (0..1023)
//          bits 10-12  kind  QuadKind below
//          bits 13-20  AO    2 bits per corner (corner i at bits 13+2i), 3 = open, 0 = darkest (classic 0-3 rule)
//          bits 21-24  flow  fluids: 0..7 = direction (0 north -Z, then clockwise in 45-degree steps), 8 falling,
//                            15 still; shape bits for kSlope and kTriangle (below); 15 for everything else
//          bits 25-31  reserved (0)
//   word2  corner 0 light (bits 0-15) | corner 1 light (bits 16-31)
//   word3  corner 2 light (bits 0-15) | corner 3 light (bits 16-31)
//          each light is the 16-bit Light layout of cell.h: sky << 12 | r << 8 | g << 4 | b
//
// Corners: 0 = (u0, v0), 1 = (u1, v0), 2 = (u1, v1), 3 = (u0, v1) on the face's tangent axes:
//   +X/-X: U = +Z, V = +Y     +Y/-Y: U = +X, V = +Z     +Z/-Z: U = +X, V = +Y
// The rectangle lies in the plane through the origin perpendicular to the face's axis; e.g. the +X face of the
// cell at section-local x = 3 has origin x = 8 (half-blocks). Winding is decided by the shader from `face`.
//
// Kinds (the exact corner positions of every kind are stated in code by voxen/mesh/quad_geometry.h, the model for
// the vertex shader; docs/formats/quad_format.md):
//   kAxis     an axis-aligned rectangle as above (cube faces, slab/stair parts, fluid faces).
//   kCrossA   a plant's diagonal plane through the cell from (x, z) to (x + w, z + w) (origin = cell min
//             corner, w = 2 half-blocks, h = height), both sides drawn (face is +Y, ignored for geometry).
//             Corners: 0 (x, y, z), 1 (x + w, y, z + w), 2 (x + w, y + h, z + w), 3 (x, y + h, z).
//   kCrossB   the other diagonal, from (x + w, z) to (x, z + w). Corners: 0 (x + w, y, z), 1 (x, y, z + w),
//             2 (x, y + h, z + w), 3 (x + w, y + h, z).
//   kSlope    a 45-degree wedge's sloped surface over one cell (origin = cell min corner, w along X, h along Z):
//             it rises toward `face`'s horizontal direction (the wedge's tall back side; +X, -X, +Z or -Z).
//             Corners in +Y order over the cell's x-z square: 0 (x0, z0), 1 (x1, z0), 2 (x1, z1), 3 (x0, z1);
//             a corner on the back side is one block high, the others at the origin's y. flow bit 0 = 1 marks an
//             upside-down wedge: then the back corners are low and the others high (the surface faces down).
//   kTriangle a wedge's side: the axis rectangle with one corner removed, collapsed onto its neighbour along V:
//             flow & 3 names the removed corner: 2 (onto 1) or 3 (onto 0) for upright wedges, 1 (onto 2) or
//             0 (onto 3) for upside-down ones.
//   For kSlope and kTriangle the flow field carries these shape bits instead of a fluid flow.
//
// Translucent and fluid quads (the second, blended pass): 20 bytes, the four words above plus
//   word4  bits  0- 6  corner 0 height in 1/64 block above the quad's origin plane (fluid tops; 64 = full)
//          bits  7-13  corner 1 height
//          bits 14-20  corner 2 height
//          bits 21-27  corner 3 height
//          bits 28-31  reserved (0)
//   When word4 is not 0, every corner's Y is the origin's Y plus that corner's height (replacing the rectangle's
//   own Y for it). A fluid top (+Y) has its origin at the cell's bottom, so its heights are the surface heights.
//   A fluid side is a piece of the cell's side between a bottom edge (corners 0, 1) and a top edge (3, 2), its
//   origin at the cell's bottom: heights 0 at corners 0 and 1 and the top's corner heights at 2 and 3 for a whole
//   side of an open cell; a side that stops at a neighbour's face starts higher (32: a bottom slab's half) or ends
//   lower; a piece over one half-block column has w = 1. On a side (V = +Y), an end whose bottom corner lies above
//   its top corner (height 1 > height 2, or 0 > 3) is pulled in: both its corners sit where the bottom edge crosses
//   the top edge, so the piece is a triangle ending at the crossing (a surface meeting a slope's side). A full
//   side under more fluid with nothing on its plane (heights 0, 0, 64, 64) and fluid bottoms are plain rectangles
//   (word4 = 0). Non-fluid translucent quads (glass, ice) carry 0 in word4 (no offset).
#pragma once

#include <cstdint>

namespace voxen::mesh {

enum class QuadKind : uint8_t { kAxis = 0, kCrossA = 1, kCrossB = 2, kSlope = 3, kTriangle = 4 };

/// 16 bytes: opaque and cutout geometry.
struct Quad {
  uint32_t w[4];
};
static_assert(sizeof(Quad) == 16);

/// 20 bytes: translucent and fluid geometry (Quad plus corner heights).
struct FluidQuad {
  uint32_t w[5];
};
static_assert(sizeof(FluidQuad) == 20);

/// The fields of a quad, unpacked: what the mesher fills and the tests compare.
struct QuadFields {
  int x = 0, y = 0, z = 0;   // origin, half-blocks 0..32
  int w = 2, h = 2;          // extents, half-blocks 1..32
  int face = 0;              // 0..5
  bool flip = false;
  int texture = 0;           // 0..1023
  QuadKind kind = QuadKind::kAxis;
  uint8_t ao[4] = {3, 3, 3, 3};
  int flow = 15;
  uint16_t light[4] = {0, 0, 0, 0};
  uint8_t height[4] = {0, 0, 0, 0};  // fluid corner heights in 1/64 (translucent records only)
};

constexpr uint32_t pack_word0(const QuadFields& f) {
  return static_cast<uint32_t>(f.x) | static_cast<uint32_t>(f.y) << 6 | static_cast<uint32_t>(f.z) << 12 |
         static_cast<uint32_t>(f.w - 1) << 18 | static_cast<uint32_t>(f.h - 1) << 23 |
         static_cast<uint32_t>(f.face) << 28 | (f.flip ? 1u << 31 : 0u);
}
constexpr uint32_t pack_word1(const QuadFields& f) {
  return static_cast<uint32_t>(f.texture) | static_cast<uint32_t>(f.kind) << 10 |
         static_cast<uint32_t>(f.ao[0]) << 13 | static_cast<uint32_t>(f.ao[1]) << 15 |
         static_cast<uint32_t>(f.ao[2]) << 17 | static_cast<uint32_t>(f.ao[3]) << 19 |
         static_cast<uint32_t>(f.flow) << 21;
}
constexpr Quad pack_quad(const QuadFields& f) {
  return Quad{{pack_word0(f), pack_word1(f),
               static_cast<uint32_t>(f.light[0]) | static_cast<uint32_t>(f.light[1]) << 16,
               static_cast<uint32_t>(f.light[2]) | static_cast<uint32_t>(f.light[3]) << 16}};
}
constexpr FluidQuad pack_fluid_quad(const QuadFields& f) {
  const Quad q = pack_quad(f);
  return FluidQuad{{q.w[0], q.w[1], q.w[2], q.w[3],
                    static_cast<uint32_t>(f.height[0]) | static_cast<uint32_t>(f.height[1]) << 7 |
                        static_cast<uint32_t>(f.height[2]) << 14 | static_cast<uint32_t>(f.height[3]) << 21}};
}
constexpr QuadFields unpack_quad(const uint32_t* w, bool fluid_record) {
  QuadFields f;
  f.x = static_cast<int>(w[0] & 63);
  f.y = static_cast<int>((w[0] >> 6) & 63);
  f.z = static_cast<int>((w[0] >> 12) & 63);
  f.w = static_cast<int>((w[0] >> 18) & 31) + 1;
  f.h = static_cast<int>((w[0] >> 23) & 31) + 1;
  f.face = static_cast<int>((w[0] >> 28) & 7);
  f.flip = (w[0] >> 31) != 0;
  f.texture = static_cast<int>(w[1] & 1023);
  f.kind = static_cast<QuadKind>((w[1] >> 10) & 7);
  for (int i = 0; i < 4; ++i) f.ao[i] = static_cast<uint8_t>((w[1] >> (13 + 2 * i)) & 3);
  f.flow = static_cast<int>((w[1] >> 21) & 15);
  f.light[0] = static_cast<uint16_t>(w[2] & 0xFFFF);
  f.light[1] = static_cast<uint16_t>(w[2] >> 16);
  f.light[2] = static_cast<uint16_t>(w[3] & 0xFFFF);
  f.light[3] = static_cast<uint16_t>(w[3] >> 16);
  if (fluid_record)
    for (int i = 0; i < 4; ++i) f.height[i] = static_cast<uint8_t>((w[4] >> (7 * i)) & 127);
  return f;
}

}  // namespace voxen::mesh
