// The geometry a packed quad stands for: the positions of its four corners, exactly as the renderer's vertex
// shader must compute them (this is the CPU statement of quad.h's rules; docs/formats/quad_format.md). Used by the
// tests (fluid surfaces meet, shapes have the right corners) and as the model for the shader.
//
// Units: 1/64 block, section-local (a section spans 0..1024 on each axis), Y up.
// Threads: pure functions.
#pragma once

#include <array>

#include "voxen/mesh/quad.h"

namespace voxen::mesh {

/// A corner position in 1/64 block, section-local. Whole numbers except at the crossing point a fluid side piece
/// may end at (below), which can fall between 1/64 steps; every value is exact in a double.
struct Corner64 {
  double x = 0, y = 0, z = 0;
  friend bool operator==(const Corner64&, const Corner64&) = default;
};

/// The four corners of a quad (quad.h corner order 0..3). `fluid_record` says the fields came from a 20-byte record:
/// then non-zero heights set each corner's Y to origin Y + height (fluid tops and fluid side pieces), and on a side
/// face (V = +Y) an end whose bottom corner lies above its top corner (height 1 > height 2, or 0 > 3) is pulled
/// in to the point where the bottom edge (0-1) crosses the top edge (3-2): both its corners sit there.
/// A triangle's removed corner sits on the corner it collapses onto (so corners repeat).
std::array<Corner64, 4> quad_corners(const QuadFields& f, bool fluid_record);

}  // namespace voxen::mesh
