// CPU ray tracers over the occupancy (occupancy.h): the plain per-cell DDA, the oracle (Amanatides & Woo, "A Fast
// Voxel Traversal Algorithm for Ray Tracing", Eurographics 1987), and the hierarchical DDA that skips an empty
// section 16 cells at a time and an empty brick 4 at a time, as the voxelG seed's ray march does. The tests require
// them to name the same cell, face and distance for every ray.
//
// Exactness: both compute every boundary crossing with the same closed form, t = (boundary - origin) / direction per
// axis (never by accumulating steps), and step the axis of the smallest t, ties to x, then y, then z. A skip advances
// each axis over the crossings inside the empty box strictly before the box's exit, then takes one ordinary step:
// the state the plain DDA reaches after walking through the box (nothing inside can stop it), so the two agree
// bit for bit, ties included (a ray along a diagonal crosses two boundaries at one t).
// Coordinates: world blocks, Y up; a ray starts at block + frac and moves along dir (t in units of |dir|; give a
// unit vector for t in blocks). Cells above y 255 or below -128 and columns not held are empty.
// Threads: pure functions of the map and the ray.
#pragma once

#include <cstdint>
#include <optional>

#include <glm/glm.hpp>

#include "voxen/core/coords.h"
#include "voxen/trace/occupancy.h"

namespace voxen::trace {

/// A ray: origin = block + frac (frac each in [0, 1)), direction `dir` (not all zero).
struct Ray {
  BlockPos block;
  glm::dvec3 frac{0.5};
  glm::dvec3 dir{0.0, 0.0, -1.0};
};

/// Where a ray stopped.
struct TraceHit {
  BlockPos cell;
  int face = -1;       // the face of `cell` the ray entered through (block_registry.h Face: 0 +X, 1 -X, 2 +Y, 3 -Y,
                       // 4 +Z, 5 -Z); -1 when the ray starts inside it
  double t = 0;        // distance along the ray to that face, in |dir| units (0 when it starts inside)
  uint32_t steps = 0;  // loop iterations (cells visited, or boxes skipped plus cells visited)
  friend bool operator==(const TraceHit&, const TraceHit&) = default;
};

/// The plain DDA: each cell in turn until one whose bit is set in `layer`, or the next crossing lies past max_t.
std::optional<TraceHit> trace_cells(const OccupancyMap& map, const Ray& ray, double max_t, Layer layer);

/// The hierarchical DDA: the same answer (steps aside), skipping empty sections and bricks.
std::optional<TraceHit> trace_hierarchical(const OccupancyMap& map, const Ray& ray, double max_t, Layer layer);

}  // namespace voxen::trace
