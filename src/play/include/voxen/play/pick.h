// Picking: which block the crosshair targets. A voxel DDA (Amanatides and Woo, "A Fast Voxel Traversal Algorithm
// for Ray Tracing", Eurographics 1987) walks the cells the eye's ray crosses in order, up to a reach (8 blocks), and
// tests each cell's picking boxes (collision.h pick_boxes: slabs and stairs by their shape, plants by a smaller box,
// fluids not at all) with the slab method; the first box hit wins. The face is the side of the box the ray entered
// through, so placing "against the targeted face" puts the new block in the cell beyond that side.
//
// Space: the ray starts at the eye, given as an int64 world block plus a fraction (floating origin); arithmetic is
// relative to that block, so it is exact anywhere. A ray starting inside a box does not hit that box.
// Threads: reads a World on the owner's thread.
#pragma once

#include <optional>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/play/collision.h"
#include "voxen/world/block_registry.h"
#include "voxen/world/world.h"

namespace voxen::play {

/// The targeted block.
struct PickHit {
  BlockPos cell;          // world cell hit
  int face = 0;           // Face (block_registry.h) of the box side entered: the normal points back at the eye
  double distance = 0.0;  // along the (unit) ray, blocks
  glm::dvec3 point{0.0};  // hit point relative to the cell's min corner (each 0..1)
  /// The cell beyond the hit face (where a placed block goes).
  BlockPos adjacent() const;
};

/// Unit normal (world axes) of a Face.
glm::ivec3 face_normal(int face);

/// The first pickable box along the ray from eye (block + frac) in direction `dir` (need not be unit; zero gives
/// nothing) within `reach` blocks; nullopt if none. Unloaded columns and y outside the world hold nothing.
std::optional<PickHit> pick(const World& world, const BlockRegistry& registry, const BlockPos& eye_block,
                            const glm::dvec3& eye_frac, glm::dvec3 dir, double reach = 8.0);

/// The same answer by brute force (the oracle of the tests): samples the ray every `step` blocks and tests the
/// boxes of every cell within one cell of each sample, keeping the nearest exact hit. Slow.
std::optional<PickHit> pick_reference(const World& world, const BlockRegistry& registry, const BlockPos& eye_block,
                                      const glm::dvec3& eye_frac, glm::dvec3 dir, double reach = 8.0);

}  // namespace voxen::play
