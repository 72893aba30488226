// Block shapes as boxes, and swept box-against-boxes collision.
//
// Space: boxes are axis-aligned, in blocks. A cell's boxes are cell-local ([0,1]^3, Y up); boxes in a query are
// relative to an origin block (an int64 world block, the floating origin of the player's step), so every number
// is small and exact even 2^40 blocks out.
//
// Shapes (the registry's BlockDef::shape and Cell::state, cell.h):
//   collision  cube: the whole cell. slab: its half. stairs: the slab of its half plus the quarter at its back
//              (mesh/shapes.h box_occupancy, merged into at most 2 boxes + singles). slope: collides like stairs of
//              the same facing and half (a two-step approximation of the wedge, so walking up a hillside of slopes
//              is two half-block step-ups per cell). Blocks with solid = false (crosses, fluids, air) have none.
//   picking    what the crosshair can target: the collision boxes of solid blocks; a cross (plants, torch) the box
//              [0.2, 0.8] x [0, 0.8] x [0.2, 0.8]; other non-solid, non-fluid blocks the whole cell; fluids and air
//              nothing (the ray passes through water).
// Sweeping (Minecraft's per-axis clip): the obstacles overlapping the box's motion are gathered once, then the motion
// is clipped along Y, then X, then Z, each against every obstacle the box overlaps on the other two axes. Since
// every obstacle in the swept region is tested, no step length tunnels through a box; the player's step still
// sub-steps its motion (player.h) to keep the gathered region small.
// Threads: pure functions; CollisionWorld reads a World on the owner's thread.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::play {

/// An axis-aligned box [min, max] in blocks.
struct Aabb {
  glm::dvec3 min{0.0}, max{0.0};
  Aabb moved(const glm::dvec3& d) const { return {min + d, max + d}; }
  /// True if the two boxes overlap by more than `eps` on every axis (touching faces do not overlap).
  bool overlaps(const Aabb& o, double eps = 1e-7) const {
    for (int a = 0; a < 3; ++a)
      if (o.max[a] <= min[a] + eps || o.min[a] >= max[a] - eps) return false;
    return true;
  }
};

/// Up to 8 boxes of one cell, cell-local.
struct CellBoxes {
  std::array<Aabb, 8> box{};
  int count = 0;
  void add(const Aabb& b) { box[static_cast<size_t>(count++)] = b; }
};

/// The collision boxes of a block in a state (see the file comment). Empty for non-solid blocks.
CellBoxes collision_boxes(const BlockDef& def, uint8_t state);
/// The boxes the crosshair can target (see the file comment).
CellBoxes pick_boxes(const BlockDef& def, uint8_t state);

/// Collision queries against a World. Cells of columns that are not loaded are solid cubes (the world ends where
/// it is not loaded), cells below the world (y < -128) are solid, cells above it (y > 255) are air.
class CollisionWorld {
 public:
  CollisionWorld(const World& world, const BlockRegistry& registry) : m_world(world), m_registry(registry) {}

  /// Appends the boxes of every cell overlapping `region` (relative to `origin`), relative to `origin`.
  void collect(const BlockPos& origin, const Aabb& region, std::vector<Aabb>& out) const;
  /// True if a loaded solid cell's box overlaps `box` (relative to `origin`) by more than `eps`: the player is
  /// inside a block. Unloaded cells do not count here.
  bool box_inside_solid(const BlockPos& origin, const Aabb& box, double eps = 1e-6) const;

  const World& world() const { return m_world; }
  const BlockRegistry& registry() const { return m_registry; }

 private:
  const World& m_world;
  const BlockRegistry& m_registry;
};

/// The part of `delta` (along `axis` 0 x, 1 y, 2 z) that `box` can move before touching one of `obstacles` that it
/// overlaps on the other two axes. Obstacles already overlapping `box` on the moving axis are ignored (a box never
/// gets stuck in one it already intersects). Exact arithmetic on the given doubles.
double clip_axis(const Aabb& box, int axis, double delta, const std::vector<Aabb>& obstacles);

/// Moves `box` by `delta` against `obstacles`, axis by axis in the order Y, X, Z. Returns the motion applied;
/// `blocked[a]` says whether axis a was clipped. `obstacles` must hold every box overlapping the swept region.
glm::dvec3 sweep(Aabb& box, const glm::dvec3& delta, const std::vector<Aabb>& obstacles, bool blocked[3]);

}  // namespace voxen::play
