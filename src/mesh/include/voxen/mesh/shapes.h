// The geometry of block shapes, as definitions shared by the fast mesher and the reference mesher: which
// half-block sub-cells a box-built shape fills, which part of each cell side a shape covers, how a slope wedge
// lies. Everything is in half-blocks because every shape voxen has is made of half-block boxes (cube, slab,
// stairs), of a 45-degree wedge over one cell (slope), of two diagonal planes (cross) or of a fluid column.
//
// Space: cell-local, Y up. A cell is 2 x 2 x 2 half-blocks; a sub-cell is (hx, hy, hz), each 0 or 1, and its bit in
// an occupancy byte is hx | hy << 1 | hz << 2. A cell side (Face) is 2 x 2 squares on that face's tangent axes
// (quad.h: +X/-X: U = +Z, V = +Y; +Y/-Y: U = +X, V = +Z; +Z/-Z: U = +X, V = +Y); square (a, b) = (U half, V half)
// has bit a | b << 1 in a side mask. The two sides that touch (a cell's +X side and its east neighbour's -X side)
// use the same U and V, so masks of touching sides compare bit for bit.
//
// Block states (cell.h): slabs use kHalfBit (0 bottom, 1 top); stairs and slopes use the facing bits (the side of
// the tall back: north = -Z, east = +X, south = +Z, west = -X) and kHalfBit (upside-down). A stair is the slab of
// its half plus the quarter on the other half-layer at its back (Minecraft's stair shape). A slope rises from its
// front edge to its back side over one cell: upright, it is the wedge under the plane through the front-bottom
// edge and the back-top edge; upside-down, it is the wedge over the plane through the front-top edge and the
// back-bottom edge.
//
// Threads: everything here is constexpr or a pure function.
#pragma once

#include <cstdint>

#include "voxen/world/block_registry.h"
#include "voxen/world/cell.h"

namespace voxen::mesh {

/// The axis (0 x, 1 y, 2 z), sign (+1 / -1) and tangent axes (U, V) of each Face (+X, -X, +Y, -Y, +Z, -Z).
struct FaceAxes {
  int axis, sign, u, v;
};
inline constexpr FaceAxes kFaceAxes[6] = {{0, +1, 2, 1}, {0, -1, 2, 1}, {1, +1, 0, 2},
                                          {1, -1, 0, 2}, {2, +1, 0, 1}, {2, -1, 0, 1}};

/// The face pointing the other way (+X <-> -X ...).
constexpr int opposite_face(int face) { return face ^ 1; }

/// The Face a facing state points to: north -Z, east +X, south +Z, west -X.
constexpr int facing_face(int facing) {
  constexpr int kMap[4] = {kFaceNegZ, kFacePosX, kFacePosZ, kFaceNegX};
  return kMap[facing & 3];
}

/// Sub-cell bit of (hx, hy, hz), each 0 or 1.
constexpr int subcell_bit(int hx, int hy, int hz) { return hx | hy << 1 | hz << 2; }

/// Occupancy (8 sub-cell bits) of a box-built shape in the given state: cube 0xFF, bottom slab 0x33, top slab
/// 0xCC, stairs = slab of its half plus the back quarter on the other half-layer. 0 for shapes that are not
/// built from boxes (none, slope, cross, fluid). `state` should already be masked by the block's state_mask.
constexpr uint8_t box_occupancy(Shape shape, uint8_t state) {
  constexpr uint8_t kLower = 0x33, kUpper = 0xCC;
  // The back half of the cell for each facing (north: hz = 0, east: hx = 1, south: hz = 1, west: hx = 0).
  constexpr uint8_t kBack[4] = {0x0F, 0xAA, 0xF0, 0x55};
  switch (shape) {
    case Shape::kCube: return 0xFF;
    case Shape::kSlab: return state::top_half(state) ? kUpper : kLower;
    case Shape::kStairs: {
      const bool top = state::top_half(state);
      return static_cast<uint8_t>((top ? kUpper : kLower) | ((top ? kLower : kUpper) & kBack[state::facing(state)]));
    }
    default: return 0;
  }
}

/// A slope wedge's orientation: the Face of its tall back side and whether it is upside-down.
struct SlopeInfo {
  int back_face = kFaceNegZ;
  bool upside_down = false;
};
constexpr SlopeInfo slope_info(uint8_t state) { return {facing_face(state::facing(state)), state::top_half(state)}; }

/// For a side face of a slope (a vertical face on the axis that is not the back's): the U half (0 or 1) on which
/// the back lies.
constexpr int slope_back_u(const SlopeInfo& s) {
  // Sides of a north/south-facing wedge are +-X faces with U = +Z; of an east/west-facing one +-Z faces, U = +X.
  return (s.back_face == kFaceNegZ || s.back_face == kFaceNegX) ? 0 : 1;
}

/// What a slope's faces are: the back and the bottom (top when upside-down) are full cell sides, the two sides
/// perpendicular to the back are right triangles, the front side and the top (bottom when upside-down) have no
/// face; the sloped surface is interior.
enum class SlopeSide : uint8_t { kFull, kTriangle, kNone };
constexpr SlopeSide slope_side(const SlopeInfo& s, int face) {
  if (face == s.back_face) return SlopeSide::kFull;
  if (face == (s.upside_down ? kFacePosY : kFaceNegY)) return SlopeSide::kFull;
  if (face == kFacePosY || face == kFaceNegY || face == opposite_face(s.back_face)) return SlopeSide::kNone;
  return SlopeSide::kTriangle;
}

/// Squares of a triangle side that the triangle touches (all but the one at the front and on the open half
/// layer): the triangle is hidden only when the neighbour covers all of them.
constexpr uint8_t slope_triangle_touched(const SlopeInfo& s) {
  const int front_a = 1 - slope_back_u(s), open_b = s.upside_down ? 0 : 1;
  return static_cast<uint8_t>(0xF & ~(1 << (front_a | open_b << 1)));
}

/// Squares of a triangle side the triangle fully covers (the one at the back on the solid half layer).
constexpr uint8_t slope_triangle_cover(const SlopeInfo& s) {
  const int back_a = slope_back_u(s), solid_b = s.upside_down ? 1 : 0;
  return static_cast<uint8_t>(1 << (back_a | solid_b << 1));
}

/// The quad corner (0..3, quad.h order) a triangle side removes: the corner at the front on the open half layer.
/// It collapses onto the corner beside it along V: 2 onto 1, 3 onto 0 (upright wedges), 1 onto 2, 0 onto 3
/// (upside-down wedges). Carried in the quad's flow field (quad.h, kTriangle).
constexpr int slope_triangle_removed_corner(const SlopeInfo& s) {
  const int front_a = 1 - slope_back_u(s);
  if (!s.upside_down) return front_a == 1 ? 2 : 3;
  return front_a == 1 ? 1 : 0;
}

/// The squares of side `face` that a cell of this shape and state covers with its geometry (whatever its
/// transparency): for box shapes the sub-cells of the outer half-layer on that side; for slopes full back and
/// bottom (top when upside-down) and one square of each triangle side; nothing for crosses, fluids and air.
constexpr uint8_t side_cover(Shape shape, uint8_t state, int face) {
  if (shape == Shape::kSlope) {
    const SlopeInfo s = slope_info(state);
    switch (slope_side(s, face)) {
      case SlopeSide::kFull: return 0xF;
      case SlopeSide::kTriangle: return slope_triangle_cover(s);
      case SlopeSide::kNone: return 0;
    }
    return 0;
  }
  const uint8_t occ = box_occupancy(shape, state);
  if (!occ) return 0;
  const FaceAxes& fa = kFaceAxes[face];
  const int layer = fa.sign > 0 ? 1 : 0;
  uint8_t mask = 0;
  for (int b = 0; b < 2; ++b)
    for (int a = 0; a < 2; ++a) {
      int h[3] = {0, 0, 0};
      h[fa.axis] = layer;
      h[fa.u] = a;
      h[fa.v] = b;
      if (occ & (1 << subcell_bit(h[0], h[1], h[2]))) mask = static_cast<uint8_t>(mask | 1 << (a | b << 1));
    }
  return mask;
}

/// What a cell's geometry leaves open of one of its sides, over one half-block column of that side (the squares
/// a = `column` of side_cover's mask, both V halves): the band between a floor line and a ceiling line, each given
/// by its heights in 1/64 block above the side's bottom edge at the column's two ends (index 0 at the column's low
/// U end, 1 at its high end). A point of the column is covered by the cell's face on that side exactly when it
/// lies below the floor or above the ceiling; the band is empty where the ceiling is not above the floor.
///   - box shapes (cube, slab, stairs): a covered lower square raises the floor to 32, a covered upper square
///     lowers the ceiling to 32 (both: the empty band 32..32);
///   - slopes: a full side (back, bottom, or top when upside-down) is closed (32..32), a side without a face is
///     open (0..64); a triangle side's hypotenuse runs from the front edge to the back edge: upright wedges cover
///     what is under it (the floor rises from 0 at the front to 64 at the back), upside-down ones what is over it
///     (the ceiling falls from 64 at the front to 0 at the back);
///   - crosses, fluids and air leave the side open (0..64).
/// Transparency does not matter: this is geometry (glass and leaves close a side as stone does).
/// Used by fluids, whose side faces are drawn only inside this band of the neighbour's touching side (docs/
/// ARCHITECTURE.md, Fluids). A different fluid that ranks higher (seam_rank) closes the side up to its surface
/// instead; that floor depends on the cells around it, not on shape and state, so the meshers compute it.
struct SideBand {
  int floor[2] = {0, 0};
  int ceiling[2] = {64, 64};
};
constexpr SideBand side_band(Shape shape, uint8_t state, int face, int column) {
  SideBand band;
  if (shape == Shape::kSlope) {
    const SlopeInfo s = slope_info(state);
    switch (slope_side(s, face)) {
      case SlopeSide::kFull: return {{32, 32}, {32, 32}};
      case SlopeSide::kNone: return band;
      case SlopeSide::kTriangle: {
        // Height of the line from 0 at the front edge to 64 at the back edge, at the column's two ends.
        const int back_u = slope_back_u(s);
        for (int e = 0; e < 2; ++e) {
          const int u = column + e;  // half-blocks from the side's low U edge, 0..2
          const int toward_back = 32 * (back_u == 1 ? u : 2 - u);
          if (s.upside_down) band.ceiling[e] = 64 - toward_back;
          else band.floor[e] = toward_back;
        }
        return band;
      }
    }
    return band;
  }
  const uint8_t cover = side_cover(shape, state, face);
  if ((cover >> column) & 1) band.floor[0] = band.floor[1] = 32;
  if ((cover >> (column | 2)) & 1) band.ceiling[0] = band.ceiling[1] = 32;
  return band;
}

/// The rank that decides which of two blocks keeps its face on the plane between them when neither hides the
/// other by the opaque rule (docs/ARCHITECTURE.md, Faces and culling; Fluids): a block of opaque material ranks
/// above a see-through one, then the higher block id ranks higher. It depends on nothing but the two cells' blocks.
///   - two translucent blocks: a side is hidden where the neighbour covers it when the neighbour ranks at least as
///     high (same id: both hidden, glass against glass; glass 29 against ice 10: the ice's face goes);
///   - two different fluids: the lower-ranked one's side is drawn only above the other's surface (lava, opaque,
///     against water: the lava's side stays whole, so the water is never seen through into the lava's cell).
constexpr uint32_t seam_rank(Transparency transparency, uint16_t id) {
  return (transparency == Transparency::kOpaque ? uint32_t{1} << 16 : 0u) | id;
}

/// Fluid surface height (1/64 block, above the cell's bottom) of a fluid cell by its level (state::fluid_level,
/// 0 = source ... 7 = thinnest) when no fluid of its kind lies above it: 56 - 7 * level (7/8 block for a source,
/// down to 7/64). A fluid cell with its own fluid above is full: kFluidFull.
constexpr int fluid_level_height(int level) { return 56 - 7 * (level & 7); }
inline constexpr int kFluidFull = 64;

/// Fluid flow codes (quad.h word1 flow field).
inline constexpr int kFlowFalling = 8;
inline constexpr int kFlowStill = 15;

/// The flow direction of a fluid cell from its four top-corner heights (quad.h corner order of a +Y face:
/// 0 = (x0, z0), 1 = (x1, z0), 2 = (x1, z1), 3 = (x0, z1)): downhill along the gradient, quantised to 8 ways
/// (0 north -Z, 1 north-east, 2 east +X, ... 7 north-west); kFlowStill when the surface is level. Falling cells
/// (state bit) are kFlowFalling, decided by the caller.
constexpr int fluid_flow_from_heights(const int h[4]) {
  const int dx = (h[1] + h[2]) - (h[0] + h[3]);  // rise toward +X
  const int dz = (h[2] + h[3]) - (h[0] + h[1]);  // rise toward +Z
  const int fx = -dx, fz = -dz;                  // downhill
  if (fx == 0 && fz == 0) return kFlowStill;
  const int ax = fx < 0 ? -fx : fx, az = fz < 0 ? -fz : fz;
  // tan(22.5 degrees) ~ 12/29: within 22.5 degrees of an axis the flow is that axis, else the diagonal.
  if (ax * 29 < az * 12) return fz < 0 ? 0 : 4;
  if (az * 29 < ax * 12) return fx > 0 ? 2 : 6;
  if (fx > 0) return fz < 0 ? 1 : 3;
  return fz < 0 ? 7 : 5;
}

}  // namespace voxen::mesh
